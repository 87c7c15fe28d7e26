#include "plan/plan_step.h"

#include <algorithm>

#include "models/parameters.h"

namespace zs::plan {
namespace {

// model_facts from a graph already built for the model.
configs::ModelFacts model_facts(const models::ModelSpec& spec, const ModelGraph& g) {
  configs::ModelFacts facts;
  facts.name = spec.name;
  facts.params = g.psi;
  facts.hidden_size = spec.hidden_size;
  facts.num_layers = models::total_layers(spec);
  facts.largest_param_numel = g.largest_param;
  return facts;
}

}  // namespace

configs::ModelFacts model_facts(const models::ModelSpec& spec) {
  configs::ModelFacts facts;
  facts.name = spec.name;
  facts.params = models::parameter_count(spec);
  facts.hidden_size = spec.hidden_size;
  facts.num_layers = models::total_layers(spec);
  for (const models::ParamTensor& t : models::parameter_tensors(spec)) {
    if (!t.tied) facts.largest_param_numel = std::max(facts.largest_param_numel, t.numel);
  }
  return facts;
}

configs::ClusterFacts cluster_facts(const configs::Cluster& cluster) {
  configs::ClusterFacts facts;
  facts.nodes = cluster.nodes;
  facts.gpus_per_node = cluster.gpus_per_node;
  facts.gpu_name = cluster.gpu.name;
  facts.gpu_memory_bytes = cluster.gpu_memory_bytes();
  // The CPU backend computes in fp32 and rounds to bf16 (configs::GpuSpec::backend).
  facts.gpu_supports_bf16 =
      cluster.gpu.bf16_flops_per_s.has_value() || cluster.gpu.backend == "cpu";
  facts.description = std::to_string(cluster.nodes) + " x " +
                      std::to_string(cluster.gpus_per_node) + " " + cluster.preset + " (" +
                      std::to_string(cluster.world_size()) + " GPUs)";
  return facts;
}

Result<configs::LoadedConfig> check_step_config(const StepRequest& request) {
  configs::CheckOptions options = request.check;
  const bool reuse = request.graph != nullptr && request.graph->spec == request.model;
  options.model = reuse ? model_facts(request.model, *request.graph) : model_facts(request.model);
  options.cluster = cluster_facts(request.cluster);
  options.world_size = request.cluster.world_size();
  options.batch_flags_override = true;
  if (request.config_document != nullptr) {
    return configs::run_check_document(*request.config_document, options);
  }
  return configs::run_check(request.config_path, options);
}

Result<PlannedStep> build_step(const StepRequest& request, configs::LoadedConfig config) {
  ZS_CHECK(!config.diagnostics.has_errors());
  PlannedStep s;
  s.seq_len = request.seq_len > 0 ? request.seq_len : request.model.max_position_embeddings;
  PlanRequest pr;
  pr.config = &config.config;
  pr.model = &request.model;
  pr.cluster = &request.cluster;
  pr.seq_len = s.seq_len;
  pr.target_len = request.target_len;
  pr.activation_checkpointing = request.activation_checkpointing;
  pr.flash_attention = request.flash_attention;
  pr.graph = request.graph;
  pr.names = request.op_names;
  ZS_ASSIGN_OR_RETURN(s.built, build_plan(pr));
  s.config = std::move(config);
  return s;
}

Result<PlannedStep> plan_step(const StepRequest& request) {
  ZS_ASSIGN_OR_RETURN(configs::LoadedConfig lc, check_step_config(request));
  if (lc.diagnostics.has_errors()) return errors_to_status(lc.diagnostics, lc.document.source);
  return build_step(request, std::move(lc));
}

}  // namespace zs::plan
