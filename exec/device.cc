#include "exec/device.h"

#include <string>

#if defined(ZS_WITH_CUDA)
#include <cuda_runtime.h>
#endif

namespace zs::exec {

Status cuda_backend_status() {
#if defined(ZS_WITH_CUDA)
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    return Status::invalid_argument(
        std::string("--backend cuda: this machine has no CUDA device (cudaGetDeviceCount: ") +
        (e == cudaSuccess ? "0 devices" : cudaGetErrorString(e)) + "); use --backend cpu");
  }
  return Status::invalid_argument(
      "--backend cuda: found " + std::to_string(count) +
      " CUDA device(s), but the CUDA executor is not built yet; use --backend cpu");
#else
  return Status::invalid_argument(
      "--backend cuda: this zerosim was built without CUDA; use --backend cpu");
#endif
}

}  // namespace zs::exec
