// What the executor is asked to do and what it reports, shared by its backends (CPU and CUDA).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace zs::exec {

class Communicator;  // exec/communicator.h

// Where the model's tensors live and its kernels run.
enum class Backend {
  kCpu,   // kernels/cpu on the host (exec/model_runner.h)
  kCuda,  // kernels/cuda on the current CUDA device (exec/cuda/cuda_model_runner.h)
};

struct StepStats {
  int step = 0;
  double loss = 0;       // mean over the step's micro-steps
  double seconds = 0;    // wall time of the step
  bool skipped = false;  // the optimizer did not run: an fp16 overflow, or bf16 ZeRO-1/2's check
  bool non_finite_grads = false;  // the gradients held inf or NaN (exec/plan_interpreter.h)
  double loss_scale = 1;          // the scale this step ran with
  double lr = 0;                  // the learning rate the step applied (or would have)
  double grad_norm = 0;  // global norm of the unscaled gradients (inf or NaN when they are)
};

struct ExecOptions {
  int steps = 10;          // optimizer steps
  std::uint64_t seed = 0;  // weights and synthetic tokens
  // Training text, byte-level tokens; none: seeded random tokens. A text given must hold one
  // sequence plus one token (an empty file is an error, not random tokens).
  std::optional<std::string> text;
  // Puts an inf into one gradient before the optimizer step of this step (0-based; -1: never):
  // what an fp16 overflow looks like to the loss scaler, and what a bf16/fp32 step with
  // non-finite gradients does (exec/plan_interpreter.h).
  int inject_overflow_step = -1;
  // The rank whose gradient gets that inf (the others see the overflow through the Plan's
  // collectives, as DeepSpeed's ranks do).
  int inject_overflow_rank = 0;
  // This process's rank of the Plan's data-parallel group; null: a group of one. Its size must
  // be the Plan's world size. Not owned.
  Communicator* communicator = nullptr;
  // How long a collective of the CUDA backend's NCCL communicator may take before the rank ends
  // itself (exec/cuda/nccl_communicator.h); the MPI communicator has its own.
  double collective_timeout_s = 600;
  // Keep the model's weights after the last step in ExecResult::final_weights.
  bool keep_weights = false;
  Backend backend = Backend::kCpu;
  // Called after each step with its figures, before the next starts (a command prints them as
  // they come). Unset: nothing is called.
  std::function<void(const StepStats&)> on_step;
};

// One op's run in the last step: the Plan's op id, which repetition of its segment, and its
// start and end from the start of the step.
struct OpTiming {
  int op = 0;
  int repetition = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

// Device memory as the caching allocator counted it over the whole run (exec/caching_allocator.h
// Stats: torch.cuda.max_memory_allocated / max_memory_reserved), one rank's.
struct DeviceMemoryStats {
  std::int64_t peak_allocated_bytes = 0;
  std::int64_t peak_reserved_bytes = 0;
  std::int64_t num_raw_allocs = 0;  // cudaMalloc calls
};

struct ExecResult {
  std::vector<StepStats> steps;
  std::vector<OpTiming> timeline;  // the last step
  double final_loss_scale = 1;
  int skipped_steps = 0;
  std::int64_t tokens_per_step = 0;
  // The device memory peaks through the caching allocator: on CUDA every device byte; on the
  // CPU backend the Plan's device buffers as that allocator would place them
  // (exec/plan_buffers.h), this rank's.
  std::optional<DeviceMemoryStats> device_memory;
  // The model's working weights after the last step, flat in ModelRunner order, when
  // ExecOptions::keep_weights (CPU backend).
  std::vector<float> final_weights;
};

}  // namespace zs::exec
