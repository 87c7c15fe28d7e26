#include "exec/device.h"

#include <string>

#include "exec/cuda_library.h"

namespace zs::exec {

Status cuda_backend_status() {
  ZS_ASSIGN_OR_RETURN(const CudaLibrary* cuda, load_cuda_library());
  return cuda->device_status();
}

std::string cuda_device_name() {
  auto cuda = load_cuda_library();
  return cuda.ok() ? (*cuda)->device_name() : "";
}

}  // namespace zs::exec
