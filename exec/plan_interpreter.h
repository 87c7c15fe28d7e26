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
// - A collective over a group of one leaves the data as it is. Over N ranks (the
//   communicator's group) each runs what its CollectiveRole says (plan/plan.h), moving the data
//   through the backend's RankTensors (exec/rank_tensors.h: host memory on the CPU backend, the
//   device on CUDA's):
//   - gradients: the named elements are packed from the model's gradients in the collective's
//     dtype (divided by N first or multiplied by 1/N after, per `average`), zeroed there (as
//     DeepSpeed frees a reduced param.grad), reduced, and added into the reduced gradients;
//     once the step's reductions are done (at its overflow check, norm or optimizer), the
//     model's gradients are the reduced ones of this rank's partition (plan/partition.h) and
//     zero elsewhere, so norms, checks and AdamW read the partition only;
//   - params: each rank's block of its working weights (its master weights rounded to the
//     model dtype) is all-gathered into every rank's working weights;
//   - overflow flag: MAX of each rank's inf/NaN check; norm: the sum of the ranks' squares
//     (or of their norms / N).
//   Casts, syncs and NVMe work move no values: they are bracketed (and so timed) but do nothing
//   here. CPU offload's copies (plan.h CopyRole): gradients
//   down add this rank's partition's elements of their slices into the host's gradients and
//   take them out of the device's (the reduced gradients; on one rank the model's), gradients
//   up do the reverse, and the optimizer's gradients are then the host's; parameters up
//   publish what their optimizer op updated into the working weights, which the step's end
//   then leaves alone. Other copies are timed brackets.
// - Micro-batches are split across ranks as DeepSpeed's DistributedSampler splits them
//   (exec/batches.h), so N ranks of G micro-steps train on what one rank of G*N does.
// - The optimizer step as DeepSpeed's ZeRO optimizers do it, each decision at the op the Plan
//   names for it (plan.h StepRole; a step without such an op makes it at its end): at the
//   overflow decision (after the op) fp16 checks the gradients for inf/NaN and updates the
//   dynamic loss scaler (exec/loss_scaler.h); an overflow skips every op marked
//   skipped_on_overflow and leaves weights, Adam state and the LR schedule as they were. The
//   global gradient norm is taken at the norm op (after it); at the unscale-and-clip op (before
//   its work) it gives DeepSpeed's combined unscale-and-clip divisor (kernels/cpu/grad_norm.h
//   combined_scale; stage_1_and_2.py unscale_and_clip_grads), and each OptimizerWork runs AdamW
//   over its slice [first_elem, first_elem + numel) of this rank's partition of the fp32
//   master weights (ZeRO's sub-groups; plan/partition.h places it: a stage 1/2 partition's
//   padding has no weights). Gradients are zeroed after every step, skipped or not (engine.py
//   zero_grad after _take_model_step).
// - ExecOptions::inject_overflow_step puts an inf into gradient element 0 of one rank at the
//   start of that step's last micro-step, before its reductions.
// - Every micro-step's backward starts from loss_scale / G (engine.py backward divides the loss
//   by gradient_accumulation_steps), so the step's gradients are the micro-steps' mean.
// - The learning rate of applied step k is LrSchedule::at(k) (exec/lr_schedule.h).
#pragma once

#include "common/status.h"
#include "configs/ds_config.h"
#include "exec/exec_types.h"
#include "exec/step_backend.h"
#include "plan/build_plan.h"

namespace zs::exec {

// Trains `built.plan` on `backend` for options.steps steps (options.backend is not read) as
// rank options.communicator->rank() (none: the only rank).
// REQUIRES: `backend` holds a model of built.layout's graph.
// kInvalidArgument when the optimizer or scheduler is not one this executor implements
// (exec/adam_config.h, exec/lr_schedule.h), the communicator's size is not the plan's world
// size, the text is shorter than one
// micro-batch plus one token or holds bytes beyond the vocabulary, the fp16 loss scale reaches its
// minimum (DeepSpeed raises there), or the backend reports a failure (a device out of memory).
Result<ExecResult> interpret_plan(const plan::BuiltPlan& built, const configs::DsConfig& config,
                                  const ExecOptions& options, StepBackend& backend);

}  // namespace zs::exec
