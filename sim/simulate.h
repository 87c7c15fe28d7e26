// simulate: what a DeepSpeed config does to a model on a cluster. Gets the checked config and
// the Plan of one optimizer step from plan/plan_step.h (as run does) and replays the Plan twice:
// for memory (plan/memory.h) and for time (sim/step_time.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "configs/check.h"
#include "configs/hardware/cluster.h"
#include "models/model_spec.h"
#include "plan/build_plan.h"
#include "plan/memory.h"
#include "plan/model_load.h"
#include "plan/plan_step.h"
#include "sim/cost_profile.h"
#include "sim/step_time.h"

namespace zs::sim {

// What plan/ needs for the Plan (plan::StepRequest: the config, model, cluster, sequence length,
// checkpointing, attention kernel, a shared graph; op_names also records per-op simulated
// times, StepTimeRequest::record_ops), and how to price it.
struct SimulationRequest : plan::StepRequest {
  double fragmentation = 0.0;
  // The effective rates; unset: default_cost_profile(cluster).
  std::optional<CostProfile> profile;
  double collective_slowdown = 1.0;  // a straggler's factor on every collective
  // The model's kernels as priced by an earlier simulation (SimulationResult::time.
  // priced_model); reused when priced for the same graph, GPU and profile.
  std::shared_ptr<const PricedModel> priced_model;
  // False: memory only (plan and replay_memory); SimulationResult::time is left zero. A tuner
  // prunes by memory this way before it times anything.
  bool simulate_time = true;
  // A sweep's row: the caching allocator replays the Plan only when the allocated peak nears
  // capacity, where its verdict can differ (plan/memory.h MemoryOptions); the reserved figure is
  // then the allocated one below that.
  bool allocator_near_capacity_only = false;
  // How the script loads the model before initialize (plan/model_load.h); unset: not counted
  // (run and validate build the model on their own backend).
  std::optional<plan::LoadDtype> load_dtype;
};

struct SimulationResult {
  configs::LoadedConfig config;  // as checked: effective values, diagnostics
  plan::BuiltPlan built;
  plan::MemoryReport memory;
  CostProfile profile;
  StepTime time;
  std::int64_t params = 0;
  std::int64_t seq_len = 0;
  std::int64_t train_batch_size = 0;
  std::optional<plan::ModelLoad> load;  // set when request.load_dtype is
};

// Fails (kInvalidArgument / kNotFound / kParseError) when the config cannot be read, has errors
// (the message lists them), or leaves the batch unresolved.
Result<SimulationResult> simulate(const SimulationRequest& request);

// simulate() in two halves, for callers that look at the checked config before planning (a
// sweep keys its shared model graphs on the checked micro-batch and precision).
// check_for_simulation: the config read and checked with request.check plus the model and
// cluster facts; a Status only when it cannot be read (errors are in the diagnostics).
Result<configs::LoadedConfig> check_for_simulation(const SimulationRequest& request);
// REQUIRES: !lc.diagnostics.has_errors()
Result<SimulationResult> simulate_checked(const SimulationRequest& request,
                                          configs::LoadedConfig lc);
// The replays of a step plan/plan_step.h already planned for `request` (run executes the same
// Plan, SimulationResult::built, that this prices).
Result<SimulationResult> simulate_planned(const SimulationRequest& request, plan::PlannedStep step);

}  // namespace zs::sim
