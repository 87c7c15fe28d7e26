#include "kernels/cuda/check.h"

#include <cstdio>
#include <cstdlib>

#include "kernels/cuda/cublas_check.h"

namespace zs::kernels::cuda::internal {

void cuda_failed(cudaError_t error, const char* file, int line, const char* call) {
  std::fprintf(stderr, "zerosim CUDA error at %s:%d: %s returned %s (%s)\n", file, line, call,
               cudaGetErrorName(error), cudaGetErrorString(error));
  std::fflush(stderr);
  std::abort();
}

void cublas_failed(cublasStatus_t status, const char* file, int line, const char* call) {
  std::fprintf(stderr, "zerosim cuBLAS error at %s:%d: %s returned %s (%s)\n", file, line, call,
               cublasLtGetStatusName(status), cublasLtGetStatusString(status));
  std::fflush(stderr);
  std::abort();
}

}  // namespace zs::kernels::cuda::internal
