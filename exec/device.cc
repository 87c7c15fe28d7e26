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
    (void)cudaGetLastError();  // not left for a later checked call to report
    return Status::invalid_argument(
        std::string("--backend cuda: this machine has no CUDA device (cudaGetDeviceCount: ") +
        (e == cudaSuccess ? "0 devices" : cudaGetErrorString(e)) + "); use --backend cpu");
  }
  return Status::ok();
#else
  return Status::invalid_argument(
      "--backend cuda: this zerosim was built without CUDA; use --backend cpu");
#endif
}

std::string cuda_device_name() {
  if (!cuda_backend_status().is_ok()) return "";
#if defined(ZS_WITH_CUDA)
  int device = 0;
  cudaDeviceProp props{};
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&props, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return "";
  }
  return props.name;
#else
  return "";
#endif
}

}  // namespace zs::exec
