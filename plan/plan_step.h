// plan_step: the one way from a DeepSpeed config, a model and a cluster to the checked config
// and the Plan of one optimizer step. simulate (sim/simulate.h) prices that Plan and run
// (exec/executor.h) executes it; both come here for it.
//
// The config is read and checked (configs/check.h) with what check needs of the model and the
// cluster (their facts, below), "auto" resolved and the batch triad filled in; then the Plan is
// built (plan/build_plan.h) for the sequence length, checkpointing and attention kernel asked.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/json_reader.h"
#include "common/status.h"
#include "configs/check.h"
#include "configs/hardware/cluster.h"
#include "models/model_spec.h"
#include "plan/build_plan.h"

namespace zs::plan {

struct StepRequest {
  std::string config_path;
  // The config already parsed (a sweep edits one in memory per variant); when set it is used
  // instead of reading config_path, and messages name its Document::source.
  std::shared_ptr<const json::Document> config_document;
  // World size, batch flags, precision, DeepSpeed version; the model's and the cluster's facts
  // are filled in here.
  configs::CheckOptions check;
  models::ModelSpec model;
  configs::Cluster cluster;
  std::int64_t seq_len = 0;  // 0: the model's max_position_embeddings
  // An encoder-decoder's decoder tokens per sequence; 0: seq_len (models::Workload::target_len).
  std::int64_t target_len = 0;
  bool activation_checkpointing = false;
  bool flash_attention = true;
  // The model's graph from an earlier plan of the same model (Layout::graph); rebuilt when
  // null or built for another workload.
  std::shared_ptr<const ModelGraph> graph;
  bool op_names = true;  // PlanRequest::names
};

struct PlannedStep {
  configs::LoadedConfig config;  // as checked: effective values, diagnostics
  BuiltPlan built;
  std::int64_t seq_len = 0;  // the one planned
};

// The config read and checked with the request's options plus the model's and the cluster's
// facts. A Status only when it cannot be read (kNotFound, kParseError); errors in it are in the
// returned diagnostics.
Result<configs::LoadedConfig> check_step_config(const StepRequest& request);

// The Plan of `config`, checked by check_step_config for this request.
// REQUIRES: !config.diagnostics.has_errors(). kInvalidArgument when it cannot be planned
// (make_layout: a batch left unresolved, a sequence longer than the model's positions).
Result<PlannedStep> build_step(const StepRequest& request, configs::LoadedConfig config);

// Both: kInvalidArgument listing the config's errors when check finds any.
Result<PlannedStep> plan_step(const StepRequest& request);

// What check needs to know of a model and a cluster (configs/check.h).
configs::ModelFacts model_facts(const models::ModelSpec& spec);
configs::ClusterFacts cluster_facts(const configs::Cluster& cluster);

}  // namespace zs::plan
