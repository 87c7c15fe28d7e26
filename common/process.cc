#include "common/process.h"

#include <cstdlib>  // defines __GLIBC__ on glibc
#include <ctime>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace zs {

void keep_freed_memory() {
#if defined(__GLIBC__)
  constexpr int kThresholdBytes = 1 << 30;
  mallopt(M_MMAP_THRESHOLD, kThresholdBytes);
  mallopt(M_TRIM_THRESHOLD, kThresholdBytes);
#endif
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace zs
