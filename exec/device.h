// What the executor can run on this machine. Asking loads the CUDA backend's library: only
// commands that will run on a GPU ask.
#pragma once

#include <string>

#include "common/status.h"

namespace zs::exec {

// OK when `zerosim run --backend cuda` can run here: this build has CUDA, its library loads
// (exec/cuda_library.h: the first call loads libzerosim_cuda.so and with it the CUDA runtime)
// and the runtime reports at least one device (the executor uses the current one, device 0).
// Otherwise kInvalidArgument saying why, with "--backend cuda" and "use --backend cpu" in the
// message: the build has no CUDA (configured without the toolkit or with -DZS_CUDA=OFF), the
// library cannot be loaded (its path and the loader's error), or the machine has no CUDA device
// (cudaGetDeviceCount's count or its error, which is cleared).
Status cuda_backend_status();

// The current CUDA device's name (cudaGetDeviceProperties), e.g. "NVIDIA H100 80GB HBM3";
// empty when cuda_backend_status() is not OK.
std::string cuda_device_name();

}  // namespace zs::exec
