// ZS_CUDA_CHECK: the one check for CUDA runtime calls (kernels/cuda/ and the code that calls it).
//
// A failing CUDA call is a bug (a bad launch configuration, an illegal address) or a broken
// environment (no driver, a device that ran out of memory on a size the plan said fits); it is
// never a user's bad input. So, like ZS_CHECK (common/check.h), the macro prints file:line, the
// call and CUDA's own name and message for the error, then aborts. Kernel launches are checked
// with ZS_CUDA_CHECK(cudaGetLastError()) right after the launch; a fault inside a kernel
// surfaces at the next checked call that synchronizes with its stream.
// The cuBLASLt twin, ZS_CUBLAS_CHECK, is in kernels/cuda/cublas_check.h (it needs cublasLt.h).
#pragma once

#include <cuda_runtime_api.h>

namespace zs::kernels::cuda::internal {
[[noreturn]] void cuda_failed(cudaError_t error, const char* file, int line, const char* call);
}  // namespace zs::kernels::cuda::internal

#define ZS_CUDA_CHECK(call)                                                                  \
  do {                                                                                       \
    const cudaError_t zs_cuda_error_ = (call);                                               \
    if (zs_cuda_error_ != cudaSuccess) {                                                     \
      ::zs::kernels::cuda::internal::cuda_failed(zs_cuda_error_, __FILE__, __LINE__, #call); \
    }                                                                                        \
  } while (0)
