// The executor: trains with a Plan on one rank, running its ops for real (exec CPU backend).
//
// It is a plain interpreter of the Plan, like the simulator (sim/engine.h), and shares its op
// ids, so a measured op lines up with its prediction. The CPU backend runs the ops one after
// another in the Plan's issue order, which respects every dependency (an op depends only on
// earlier ones); a repeated segment runs `repeat` times.
//
// - ComputeWork runs its model-op range forward, backward or as recomputation on a
//   ModelRunner (exec/model_runner.h). The forward of model op 0 starts a micro-step: the
//   runner gets the next micro-batch.
// - On one rank every collective leaves the data as it is (an all-reduce, reduce-scatter or
//   all-gather over a group of one). Copies, casts, syncs and NVMe work move no values on the
//   CPU backend, where every tensor is in host memory; they are timed as no-ops.
// - The optimizer step as DeepSpeed's ZeRO optimizers do it: at the first op of the step that
//   an overflow would skip (or the first OptimizerWork when nothing is marked), fp16 checks the
//   gradients for inf/NaN and updates the dynamic loss scaler (exec/loss_scaler.h); an
//   overflow skips every op marked skipped_on_overflow and leaves weights, Adam state and the
//   LR schedule as they were. Otherwise the global gradient norm gives DeepSpeed's combined
//   unscale-and-clip divisor (kernels/cpu/grad_norm.h), and each OptimizerWork runs AdamW
//   (kernels/cpu/adamw.h) over the next `numel` elements of the flat fp32 master weights, in
//   order (ZeRO's sub-groups; clamped to the model: stage 1/2 partitions are padded).
//   Gradients are zeroed after every step, skipped or not.
// - Mixed precision: fp32 master weights and Adam states; with bf16 or fp16 the runner's
//   weights are the master weights rounded to 16 bits (kernels/cpu/dtype.h) after every
//   applied step. Activations and gradients stay fp32 on the CPU backend.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "configs/ds_config.h"
#include "exec/loss_scaler.h"
#include "exec/lr_schedule.h"
#include "plan/build_plan.h"

namespace zs::exec {

struct ExecOptions {
  int steps = 10;           // optimizer steps
  std::uint64_t seed = 0;   // weights and synthetic tokens
  std::string text;         // training text, byte-level tokens; empty: seeded random tokens
  // Puts an inf into one gradient before the optimizer step of this step (0-based; -1: never):
  // what an fp16 overflow looks like to the loss scaler.
  int inject_overflow_step = -1;
};

struct StepStats {
  int step = 0;
  double loss = 0;        // mean over the step's micro-steps
  double seconds = 0;     // wall time of the step
  bool skipped = false;   // an fp16 overflow skipped the optimizer
  double loss_scale = 1;  // the scale this step ran with
  double lr = 0;          // the learning rate the step applied (or would have)
  double grad_norm = 0;   // global norm of the unscaled gradients
};

// One op's run in the last step: the Plan's op id, which repetition of its segment, and its
// start and end from the start of the step.
struct OpTiming {
  int op = 0;
  int repetition = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

struct ExecResult {
  std::vector<StepStats> steps;
  std::vector<OpTiming> timeline;  // the last step
  double final_loss_scale = 1;
  int skipped_steps = 0;
  std::int64_t tokens_per_step = 0;
};

// Trains `built.plan` for options.steps steps. kInvalidArgument when the plan is for more than
// one rank (the CPU backend runs one rank per process), the model cannot run on the CPU
// kernels (exec/model_runner.h check_runnable), the optimizer or scheduler is not one this
// executor implements, the text is shorter than one micro-batch plus one token or holds bytes
// beyond the vocabulary, or the fp16 loss scale reaches its minimum (DeepSpeed raises there).
Result<ExecResult> execute(const plan::BuiltPlan& built, const configs::DsConfig& config,
                           const ExecOptions& options);

}  // namespace zs::exec
