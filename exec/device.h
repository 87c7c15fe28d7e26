// What the executor can run on this machine.
#pragma once

#include "common/status.h"

namespace zs::exec {

// Why `zerosim run --backend cuda` cannot run here, as a kInvalidArgument Status: this build
// has no CUDA (built without the toolkit), or the machine has no CUDA device (the count the
// runtime reports, with its error), or, with a device, that the CUDA executor is not built yet
// (the kernels are in kernels/cuda; training on a GPU is the next part of the executor).
Status cuda_backend_status();

}  // namespace zs::exec
