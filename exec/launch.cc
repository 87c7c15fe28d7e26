#include "exec/launch.h"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace zs::exec {

int launched_world_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    const char* v = std::getenv(name);
    if (v == nullptr) continue;
    int n = 0;
    const char* end = v + std::strlen(v);
    const auto [ptr, ec] = std::from_chars(v, end, n);
    if (ec == std::errc() && ptr == end && n > 0) return n;
  }
  return 1;
}

}  // namespace zs::exec
