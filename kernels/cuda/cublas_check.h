// ZS_CUBLAS_CHECK: the one check for cuBLAS / cuBLASLt calls. Internal to kernels/cuda/ (and
// exec/, should it call cuBLAS directly): it includes cublasLt.h, which the public kernel
// headers do not.
//
// As ZS_CUDA_CHECK (kernels/cuda/check.h): a failing call is a bug or a broken environment, so
// the macro prints file:line, the call and cuBLAS's status name and message, then aborts.
#pragma once

#include <cublasLt.h>

namespace zs::kernels::cuda::internal {
[[noreturn]] void cublas_failed(cublasStatus_t status, const char* file, int line,
                                const char* call);
}  // namespace zs::kernels::cuda::internal

#define ZS_CUBLAS_CHECK(call)                                                                     \
  do {                                                                                            \
    const cublasStatus_t zs_cublas_status_ = (call);                                              \
    if (zs_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                                             \
      ::zs::kernels::cuda::internal::cublas_failed(zs_cublas_status_, __FILE__, __LINE__, #call); \
    }                                                                                             \
  } while (0)
