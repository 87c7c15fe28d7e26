// The executor's CUDA backend: trains a Plan on this rank's CUDA device (exec/executor.h
// execute() with Backend::kCuda calls it). Built only with CUDA (ZS_HAVE_CUDA); this header
// needs no CUDA headers.
//
// What runs: exec/plan_interpreter.h decides (the same semantics, op for op, as the CPU
// backend); this backend runs it:
// - Tensors: a CudaModelRunner<T> (exec/cuda/cuda_model_runner.h) with T the training dtype (fp32,
//   bf16 or fp16: working weights and activations in T, weight gradients accumulated in fp32);
//   fp32 master weights and Adam states (exp_avg, exp_avg_sq) of this rank's partition on the
//   device, or in pinned host memory with offload (exec/owned_runs.h PartitionStore), as ZeRO
//   keeps its fp32 partitions
//   (stage_1_and_2.py single_partition_of_fp32_groups); the collectives' buffers, reduced and
//   offloaded gradients of exec/cuda/cuda_rank_tensors.h.
//   Every byte of device memory comes from one CachingAllocator over cudaMalloc
//   (exec/cuda/cuda_memory.h), whose peaks ExecResult::device_memory reports.
// - Streams: one CUDA stream per Plan stream of a device kind (compute, collective, H2D, D2H);
//   ComputeWork runs on its stream (the Plan has one compute stream; the runner's). Ops on the
//   host thread or NVMe stream are host ops, except OptimizerWork, whose Adam runs on the
//   compute stream (the optimizer states stay on the device: offload is timed as the device
//   step, not emulated).
// - Order: before a device op, its stream waits (cudaStreamWaitEvent) on the end event of each
//   dependency that ran on another stream (same-stream dependencies are FIFO; a host op's end
//   event is on the compute stream, after any device work it queued); a host op waits
//   for its device dependencies (cudaEventSynchronize), as does the host before an op with
//   host_wait_for, and after an op marked host_waits. The gradient check, norm, unscale-and-clip
//   and Adam first make their stream wait on every stream's last op (they read every gradient).
// - Ranks: one process per GPU, launched by mpirun; the launcher's local rank picks the device.
//   Over several ranks the collectives are NCCL's (exec/cuda/nccl_communicator.h, bootstrapped
//   over ExecOptions::communicator), on the stream of their Plan op; on one rank they move
//   nothing (as on the CPU backend): device ops with no work, ordered and timed like the others.
//   Optimizer offload as DeepSpeed's: the gradient copies move this rank's partition to pinned
//   host memory (exec/cuda/cuda_rank_tensors.h), where the overflow check, the norm, the
//   unscale-and-clip and CPU Adam (exec/cpu_adam.h, every core) run over host-resident fp32
//   master weights and Adam states; the parameter copy rounds the update to T on the host and
//   copies it up on its stream. A plan with part of the optimizer on each side is refused.
// - Gradient work: kernels/cuda/grad_norm.h has_inf_or_nan (the fp16 loss scaler's overflow
//   check), sum_squares and scale_by_inverse over the fp32 gradients, each result read back with
//   one synchronization; kernels/cuda/adamw.h adam_step over each OptimizerWork's range, which
//   also writes the updated weights rounded to T into the runner's working weights (the
//   DeepSpeed fp16/bf16 optimizers' copy of the fp32 partition into the 16-bit params).
// - Timing: each device op records a start and an end CUDA event on its stream; the timeline
//   is their cudaEventElapsedTime from an event recorded at the start of the step; host ops are
//   timed on the host clock from the moment that start event completed. A step ends with a
//   device synchronization, so StepStats::seconds is the step's wall time.
#pragma once

#include "common/status.h"
#include "configs/ds_config.h"
#include "exec/exec_types.h"
#include "plan/build_plan.h"

namespace zs::exec {

// Trains `built.plan` for options.steps steps on this rank's CUDA device (executor.h's
// contract). REQUIRES: cuda_backend_status() is OK; the communicator's size is the plan's world
// size (execute() checks both).
// kInvalidArgument as execute(), and when the Plan's ComputeWork is on more than one stream,
// or the device runs out of memory (the allocator's "out of memory: ..." message).
Result<ExecResult> execute_cuda(const plan::BuiltPlan& built, const configs::DsConfig& config,
                                const ExecOptions& options);

}  // namespace zs::exec
