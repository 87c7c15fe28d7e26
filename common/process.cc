#include "common/process.h"

#include <cstdlib>  // defines __GLIBC__ on glibc

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

}  // namespace zs
