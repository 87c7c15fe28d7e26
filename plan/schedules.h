// Internal to plan/: the schedule of each ZeRO stage, as DeepSpeed 0.19.6 runs it. Each appends
// one optimizer step (every micro-step, then the optimizer step) to the builder.
//
// Checked against real DeepSpeed: tests/plan/oracle_test.cc requires the collectives and model
// states of 179 recordings of DeepSpeed 0.19.6 and 0.19.8 running ZeRO 0-3 (the oracle in
// ../shared/deepspeed-oracle) to come out of these schedules exactly; tests/plan/oracle/README.md
// says how to re-record after a change here. What the oracle cannot see (streams, overlap,
// offload copies, fp16 loss scaling, transient tensors) follows DeepSpeed's code, cited inline.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "configs/ds_config.h"
#include "plan/builder.h"

namespace zs::plan {

// Bytes of optimizer state per parameter (fp32): Adam-family m and v 8, single-state
// optimizers (Adagrad, Lion, SGD with momentum) 4. No optimizer section means the training
// script's, which for the HF Trainer is AdamW: 8.

// A run of micro-steps that do the same work, planned once as a segment repeated
// last - first + 1 times.
struct MicroStepRun {
  int first = 0;
  int last = 0;
  std::string label;      // micro_step_label(first, last)
  bool boundary = false;  // it ends with the gradient-accumulation boundary (the last micro-step)
};

// The distinct micro-steps of an optimizer step: the first, the middle ones as one run, and the
// last (G = 1: one; G = 2: two); or, when `uniform` (every micro-step does the same work), one
// run of all G.
std::vector<MicroStepRun> micro_step_runs(const Layout& l, bool uniform);
// Opens the run's segment.
void begin_micro_steps(PlanBuilder& b, const MicroStepRun& run);
// Closes it, after the ThroughputTimer's device sync when the layout has one (the boundary
// micro-step's comes from end_of_step_sync, after the optimizer step, unless `uniform`).
void end_micro_steps(PlanBuilder& b, const MicroStepRun& run, bool uniform);

// The ThroughputTimer's sync at the end of the step segment.
void end_of_step_sync(PlanBuilder& b);

// The loss scaler's overflow check of stages 1-3: an all_reduce of one flag over the data-
// parallel group after op `after`, and its .item(). Returns the host sync.
int overflow_check(PlanBuilder& b, int after);

// The global gradient norm of stages 1-3: a pass over `bytes_read` of gradients after op
// `after`, an all_reduce of the partial norm (one scalar of `dtype`), and `rounds` host round
// trips. Returns the sync.
int grad_norm(PlanBuilder& b, Bytes bytes_read, Dtype dtype, int after, int rounds);

// Marks every op from `first_op` on as skipped when the fp16 loss scaler finds an overflow.
void mark_skipped_on_overflow(PlanBuilder& b, int first_op);

// Stage 1/2's all-gather of the updated 16-bit flat group (every rank's partition), naming its
// parameters in flat order (PlanBuilder::flat_group).
CollectiveWork gather_flat_group(PlanBuilder& b, const Layout& l);
// Stage 3's all-gather of `params`' partitions over a group of `group` ranks, naming them
// (partition_parameters.py _all_gather_params: per-rank pieces, coalesced).
CollectiveWork gather_params(PlanBuilder& b, std::span<const int> params, int group);

void schedule_stage0(PlanBuilder& b);
void schedule_stage12(PlanBuilder& b);
void schedule_stage3(PlanBuilder& b);

}  // namespace zs::plan
