#include "common/check.h"

#include <cstdio>
#include <cstdlib>

namespace zs::internal {

void check_failed(const char* file, int line, const char* condition, const char* message) {
  std::fprintf(stderr, "zerosim internal error at %s:%d: check failed: %s%s%s\n", file, line,
               condition, message ? ": " : "", message ? message : "");
  std::fflush(stderr);
  std::abort();
}

}  // namespace zs::internal
