// simulate: what a DeepSpeed config does to a model on a cluster. Reads and checks the config
// (configs/check.h), builds the Plan of one optimizer step (plan/build_plan.h) and replays it
// twice: for memory (plan/memory.h) and for time (sim/step_time.h).
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
#include "sim/cost_profile.h"
#include "sim/step_time.h"

namespace zs::sim {

struct SimulationRequest {
  std::string config_path;
  // The config already parsed (a sweep edits one in memory per variant); when set it is used
  // instead of reading config_path, and messages name its Document::source.
  std::shared_ptr<const json::Document> config_document;
  configs::CheckOptions check;  // world size, batch flags, precision, version; model/cluster facts
                                // are filled in by simulate()
  models::ModelSpec model;
  configs::Cluster cluster;
  std::int64_t seq_len = 0;  // 0: the model's max_position_embeddings
  bool activation_checkpointing = false;
  bool flash_attention = true;
  double fragmentation = 0.0;
  // The model's graph from an earlier simulation of the same model (SimulationResult::
  // built.layout.graph): a sweep shares it across variants. Rebuilt when null or when it was
  // built for another micro-batch, sequence length, dtype or attention kernel.
  std::shared_ptr<const plan::ModelGraph> graph;
  // The effective rates; unset: default_cost_profile(cluster).
  std::optional<CostProfile> profile;
  double collective_slowdown = 1.0;  // a straggler's factor on every collective
  // Op and buffer names in the plan (plan::PlanRequest::names) and per-op simulated times
  // (StepTimeRequest::record_ops). A sweep turns them off: its results hold the same numbers,
  // but no plan listing, trace or peak op name can be printed.
  bool op_names = true;
  // The model's kernels as priced by an earlier simulation (SimulationResult::time.
  // priced_model); reused when priced for the same graph, GPU and profile.
  std::shared_ptr<const PricedModel> priced_model;
  // False: memory only (plan and replay_memory); SimulationResult::time is left zero. A tuner
  // prunes by memory this way before it times anything.
  bool simulate_time = true;
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

// What check needs to know of a model and a cluster (configs/check.h).
configs::ModelFacts model_facts(const models::ModelSpec& spec);
configs::ClusterFacts cluster_facts(const configs::Cluster& cluster);

}  // namespace zs::sim
