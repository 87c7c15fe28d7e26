// StepBackend: what the plan interpreter (exec/plan_interpreter.h) asks of a backend. The
// interpreter owns the training semantics (which op runs when, the micro-batches, the loss
// scaler, clipping, the LR schedule, the optimizer's walk over the flat parameters); a backend
// owns the tensors and runs the work where they live: the CPU backend in exec/executor.cc, the
// CUDA backend in exec/cuda/cuda_executor.cc.
//
// Gradients are one flat fp32 buffer of num_params() elements in the runner's parameter order
// (ModelRunner::flat_grads). The fp32 master weights and the Adam states are this rank's ZeRO
// partition only (exec/owned_runs.h; the whole model on one rank), addressed by the flat
// offsets of the elements they hold.
// Calls come in this order per step: begin_step; then for each op of the plan in issue order
// begin_op, at most one of {set_batch + compute, compute (+ drop_activations), the gradient
// calls and adam}, end_op;
// then end_step.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "exec/exec_types.h"
#include "exec/rank_tensors.h"
#include "kernels/cpu/adamw.h"
#include "plan/plan.h"

namespace zs::exec {

// What a step leaves behind.
struct StepEnd {
  // The mean loss of every forward (not recompute) of the model's loss op this step, in order.
  std::vector<double> losses;
  // Every op begin_op/end_op bracketed, when begin_step was asked to record; else empty.
  std::vector<OpTiming> timeline;
};

class StepBackend {
 public:
  virtual ~StepBackend() = default;

  // Ops of models::forward_ops for the plan's model, and the flat parameter count.
  virtual int num_model_ops() const = 0;
  virtual std::int64_t num_params() const = 0;

  // Starts a step whose loss's backward starts from `loss_scale` (ModelRunner::set_loss_scale).
  // `record`: keep every op's start and end for StepEnd::timeline.
  virtual void begin_step(double loss_scale, bool record) = 0;
  // Bracket plan op `op` (its `repetition` of a repeated segment) as the host issues it, also
  // when an overflow skips it: where a backend waits for the op's dependencies and times it.
  virtual void begin_op(int op, int repetition) = 0;
  virtual void end_op(int op, int repetition) = 0;

  // The micro-batch of the next forward from model op 0 (ModelRunner::set_batch's contract).
  virtual Status set_batch(std::span<const std::int32_t> tokens,
                           std::span<const std::int32_t> targets) = 0;
  // Runs a ComputeWork's model-op range (ModelRunner forward / recompute / backward). A non-OK
  // Status is the device running out of memory.
  virtual Status compute(const plan::ComputeWork& work) = 0;
  // ModelRunner::drop_activations: what activation checkpointing frees after the forward of a
  // checkpoint's model ops [first, last].
  virtual void drop_activations(int first, int last) = 0;

  // The optimizer step's gradient work, on the accumulated fp32 gradients.
  // Sets gradient element 0 to +inf (ExecOptions::inject_overflow_step). REQUIRES: num_params() >
  // 0.
  virtual void inject_overflow() = 0;
  // kernels/cpu/grad_norm.h has_inf_or_nan, sum_squares and scale_by_inverse over every gradient.
  virtual bool grads_have_inf_or_nan() = 0;
  virtual double grads_sum_squares() = 0;
  virtual void scale_grads(double divisor) = 0;
  // AdamW (kernels/cpu/adamw.h adam_step) over master weights, gradients and Adam states of
  // flat elements [offset, offset + n); `step` is the 1-based count of applied steps. `on_cpu`:
  // DeepSpeed's CPU Adam (offload), which may use several threads (same values).
  // REQUIRES: n >= 1 and [offset, offset + n) lies in one run of the partition.
  virtual void adam(std::int64_t offset, std::int64_t n, const kernels::cpu::AdamConfig& config,
                    std::int64_t step, bool on_cpu) = 0;
  // The working weights of flat elements [offset, offset + n) become their master weights
  // rounded to the training dtype (DeepSpeed's fp32 -> 16-bit partition copy, or offload's
  // copy of the updated parameters to the device), before they are gathered.
  // REQUIRES: as adam().
  virtual void publish(std::int64_t offset, std::int64_t n) = 0;

  // Ends the step: every gradient is zeroed (the interpreter has published what the step
  // updated). Returns when the step's work is done.
  virtual StepEnd end_step() = 0;

  // What the Plan's collectives and offload copies move (exec/rank_tensors.h), in the memory
  // the run's Communicator reads. Valid until the backend is destroyed.
  virtual RankTensors& rank_tensors() = 0;
};

}  // namespace zs::exec
