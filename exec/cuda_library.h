// The executor's CUDA backend as the rest of zerosim sees it: an interface whose implementation
// (exec/cuda/cuda_library_entry.cc: exec/cuda/ over kernels/cuda, linked against cudart,
// cuBLASLt and NCCL) is the shared library libzerosim_cuda.so, loaded on first use
// (exec/backend_library.h says where from and why). Only what runs on a GPU asks for it:
// exec::execute with Backend::kCuda and the device queries of exec/device.h, i.e. `run`,
// `validate` and `calibrate` with --backend cuda. The library is built only with CUDA
// (ZS_HAVE_CUDA); this header needs no CUDA headers.
#pragma once

#include <string>

#include "common/status.h"
#include "configs/ds_config.h"
#include "exec/backend_library.h"
#include "exec/exec_types.h"
#include "plan/build_plan.h"

namespace zs::exec {

class CudaLibrary {
 public:
  virtual ~CudaLibrary() = default;

  // OK when the CUDA runtime reports at least one device; else kInvalidArgument as
  // exec/device.h cuda_backend_status says.
  virtual Status device_status() const = 0;
  // The current device's name (cudaGetDeviceProperties); empty without one.
  virtual std::string device_name() const = 0;
  // exec/cuda/cuda_executor.h execute_cuda. REQUIRES: device_status() is OK.
  virtual Result<ExecResult> execute(const plan::BuiltPlan& built, const configs::DsConfig& config,
                                     const ExecOptions& options) const = 0;
};

// The library's file name and its entry point, a BackendEntry<CudaLibrary>
// (exec/backend_library.h).
inline constexpr char kCudaLibraryFile[] = "libzerosim_cuda.so";
inline constexpr char kCudaLibraryEntry[] = "zs_exec_cuda_library";

// Version 1: the interface above. The sizes are those of the types execute() passes.
inline constexpr BackendAbi kCudaLibraryAbi{
    1,
    {sizeof(plan::BuiltPlan), sizeof(configs::DsConfig), sizeof(ExecOptions), sizeof(ExecResult),
     sizeof(Status), sizeof(std::string)}};

// The CUDA backend, its library loaded on first call. Not owned (it lives as long as the
// process). kInvalidArgument, with "--backend cuda" and "use --backend cpu" in the message, when
// this build has no CUDA, or the library cannot be loaded (its path and dlerror()'s words, e.g.
// a missing libzerosim_cuda.so or libcublasLt.so), has no entry point, or was built from other
// sources (both ABIs named).
Result<const CudaLibrary*> load_cuda_library();

}  // namespace zs::exec
