// The backend-independent half of the executor: walks a Plan step by step and decides what
// runs, leaving the running to a StepBackend (exec/step_backend.h). Both backends train with
// it, so they differ only in where tensors live and how the work is launched.
//
// - Ops are issued in the Plan's issue order (which respects every dependency: an op depends
//   only on earlier ones); a repeated segment runs `repeat` times. Every op is bracketed by
//   begin_op / end_op, which give the timeline its Plan op ids.
// - ComputeWork runs its model-op range forward, backward or as recomputation, reading the
//   micro-step structure the Plan states (plan/plan.h ComputeWork): a forward that
//   begins_micro_step gets the next micro-batch first (exec/batches.h); one that
//   ends_micro_step (the loss) counts its loss toward the step's mean; one with
//   drop_first_model_op is followed by drop_activations(drop_first_model_op, last_model_op),
//   activation checkpointing's free (torch.utils.checkpoint keeps only the layer's input), so
//   the recompute before the layer's backward restores them. The CPU runner poisons what it
//   drops, the CUDA runner frees it.
// - On one rank every collective leaves the data as it is (an all-reduce, reduce-scatter or
//   all-gather over a group of one). Copies, casts, syncs and NVMe work move no values: they
//   are bracketed (and so timed) but do nothing here.
// - The optimizer step as DeepSpeed's ZeRO optimizers do it: at the first op of the step that
//   an overflow would skip (or the first OptimizerWork when nothing is marked, or the end of a
//   step without either), fp16 checks the gradients for inf/NaN and updates the dynamic loss
//   scaler (exec/loss_scaler.h); an overflow skips every op marked skipped_on_overflow and
//   leaves weights, Adam state and the LR schedule as they were. Otherwise the global gradient
//   norm gives DeepSpeed's combined unscale-and-clip divisor (kernels/cpu/grad_norm.h
//   combined_scale; stage_1_and_2.py unscale_and_clip_grads), and each OptimizerWork runs AdamW
//   over its slice [first_elem, first_elem + numel) of the flat fp32 master weights (ZeRO's
//   sub-groups; clamped to the model: stage 1/2 partitions are padded). Gradients are zeroed
//   after every step, skipped or not (engine.py zero_grad after _take_model_step).
// - The learning rate of applied step k is LrSchedule::at(k) (exec/lr_schedule.h).
#pragma once

#include "common/status.h"
#include "configs/ds_config.h"
#include "exec/exec_types.h"
#include "exec/step_backend.h"
#include "plan/build_plan.h"

namespace zs::exec {

// Trains `built.plan` on `backend` for options.steps steps (options.backend is not read).
// REQUIRES: built.plan.world_size == 1; `backend` holds a model of built.layout's graph.
// kInvalidArgument when the optimizer or scheduler is not one this executor implements
// (exec/adam_config.h, exec/lr_schedule.h), the text is shorter than one micro-batch plus one
// token or holds bytes beyond the vocabulary, the fp16 loss scale reaches its minimum
// (DeepSpeed raises there), or the backend reports a failure (a device out of memory).
Result<ExecResult> interpret_plan(const plan::BuiltPlan& built, const configs::DsConfig& config,
                                  const ExecOptions& options, StepBackend& backend);

}  // namespace zs::exec
