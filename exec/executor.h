// The executor: trains with a Plan as one rank of its data-parallel group, running its ops for
// real, on the CPU (kernels/cpu) or on a CUDA device (kernels/cuda). Several ranks are several
// processes (mpirun), each running the same Plan with its own ExecOptions::communicator: the
// Plan's collectives move real data between them (MPI on the CPU backend, NCCL on CUDA's).
//
// It is a plain interpreter of the Plan, like the simulator (sim/engine.h), and shares its op
// ids, so a measured op lines up with its prediction. What runs when (micro-batches, the fp16
// loss scaler, clipping, the optimizer's sub-groups, the LR schedule) is one piece of code for
// both backends, exec/plan_interpreter.h, whose header states the semantics; a backend
// (exec/step_backend.h) owns the tensors and launches the work.
//
// CPU backend (ExecOptions::backend kCpu): a ModelRunner (exec/model_runner.h) runs the ops one
// after another in the Plan's issue order; fp32 master weights and Adam states in host memory;
// with bf16 or fp16 the runner's weights are the master weights rounded to 16 bits
// (kernels/cpu/dtype.h) after every applied step, while activations and gradients stay fp32.
// Ops are timed on the host clock.
//
// CUDA backend (kCuda): exec/cuda/cuda_executor.h, in the shared library libzerosim_cuda.so that
// the first CUDA run loads (exec/cuda_library.h): a CudaModelRunner on the current device, with
// 16-bit activations and weights, fp32 master weights, Adam states and gradients, streams and
// events from the Plan, and every byte of device memory from exec/caching_allocator.h, whose
// peaks ExecResult::device_memory reports.
#pragma once

#include "common/status.h"
#include "configs/ds_config.h"
#include "exec/exec_types.h"
#include "plan/build_plan.h"

namespace zs::exec {

// Trains `built.plan` for options.steps steps on options.backend. kInvalidArgument when the
// plan's world size is not the communicator's (none: 1), a CUDA rank of a node has no GPU of
// its own, a collective is not one the executor runs (ZeRO++ subgroups), the model cannot run on
// the backend's kernels (exec/model_runner.h check_runnable; exec/cuda/cuda_model_runner.h
// check_cuda_runnable), the optimizer or scheduler is not one this executor implements, the
// text is shorter than one micro-batch plus one token or holds bytes beyond the vocabulary,
// the fp16 loss scale reaches its minimum (DeepSpeed raises there), on the CPU the run would need
// more host memory than is available (common/process.h available_memory_bytes), or, on CUDA,
// this build has no CUDA, its library cannot be loaded or the machine has no device
// (exec/device.h), or the device runs out of memory.
Result<ExecResult> execute(const plan::BuiltPlan& built, const configs::DsConfig& config,
                           const ExecOptions& options);

}  // namespace zs::exec
