// The entry point of libzerosim_cuda.so (exec/cuda_library.h): the CUDA backend behind the
// CudaLibrary interface. The only symbol the library exports (exec/cuda/exports.map).
#include <cuda_runtime.h>

#include <string>

#include "exec/cuda/cuda_executor.h"
#include "exec/cuda_library.h"

namespace zs::exec {
namespace {

class CudaLibraryImpl final : public CudaLibrary {
 public:
  Status device_status() const override {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      (void)cudaGetLastError();  // not left for a later checked call to report
      return Status::invalid_argument(
          std::string("--backend cuda: this machine has no CUDA device (cudaGetDeviceCount: ") +
          (e == cudaSuccess ? "0 devices" : cudaGetErrorString(e)) + "); use --backend cpu");
    }
    return Status::ok();
  }

  std::string device_name() const override {
    if (!device_status().is_ok()) return "";
    int device = 0;
    cudaDeviceProp props{};
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaGetDeviceProperties(&props, device) != cudaSuccess) {
      (void)cudaGetLastError();
      return "";
    }
    return props.name;
  }

  Result<ExecResult> execute(const plan::BuiltPlan& built, const configs::DsConfig& config,
                             const ExecOptions& options) const override {
    return execute_cuda(built, config, options);
  }
};

}  // namespace
}  // namespace zs::exec

extern "C" const zs::exec::CudaLibrary* zs_exec_cuda_library(const zs::exec::BackendAbi* caller,
                                                             zs::exec::BackendAbi* library) {
  static const zs::exec::CudaLibraryImpl kImpl;  // stateless
  return zs::exec::backend_entry<zs::exec::CudaLibrary>(kImpl, zs::exec::kCudaLibraryAbi, caller,
                                                        library);
}
