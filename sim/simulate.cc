#include "sim/simulate.h"

#include <algorithm>

#include "models/parameters.h"

namespace zs::sim {

configs::ModelFacts model_facts(const models::ModelSpec& spec) {
  configs::ModelFacts facts;
  facts.name = spec.name;
  facts.params = models::parameter_count(spec);
  facts.hidden_size = spec.hidden_size;
  facts.num_layers = spec.num_layers;
  for (const models::ParamTensor& t : models::parameter_tensors(spec)) {
    if (!t.tied) facts.largest_param_numel = std::max(facts.largest_param_numel, t.numel);
  }
  return facts;
}

namespace {

// model_facts from a graph already built for the model.
configs::ModelFacts model_facts(const models::ModelSpec& spec, const plan::ModelGraph& g) {
  configs::ModelFacts facts;
  facts.name = spec.name;
  facts.params = g.psi;
  facts.hidden_size = spec.hidden_size;
  facts.num_layers = spec.num_layers;
  facts.largest_param_numel = g.largest_param;
  return facts;
}

}  // namespace

configs::ClusterFacts cluster_facts(const configs::Cluster& cluster) {
  configs::ClusterFacts facts;
  facts.nodes = cluster.nodes;
  facts.gpus_per_node = cluster.gpus_per_node;
  facts.gpu_name = cluster.gpu.name;
  facts.gpu_memory_bytes = cluster.gpu_memory_bytes();
  facts.gpu_supports_bf16 = cluster.gpu.bf16_flops_per_s.has_value();
  facts.description = std::to_string(cluster.nodes) + " x " +
                      std::to_string(cluster.gpus_per_node) + " " + cluster.preset + " (" +
                      std::to_string(cluster.world_size()) + " GPUs)";
  return facts;
}

Result<configs::LoadedConfig> check_for_simulation(const SimulationRequest& request) {
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

Result<SimulationResult> simulate(const SimulationRequest& request) {
  ZS_ASSIGN_OR_RETURN(configs::LoadedConfig lc, check_for_simulation(request));
  if (lc.diagnostics.has_errors()) return errors_to_status(lc.diagnostics, lc.document.source);
  return simulate_checked(request, std::move(lc));
}

Result<SimulationResult> simulate_checked(const SimulationRequest& request,
                                          configs::LoadedConfig lc) {
  ZS_CHECK(!lc.diagnostics.has_errors());
  SimulationResult r;
  r.seq_len = request.seq_len > 0 ? request.seq_len : request.model.max_position_embeddings;
  plan::PlanRequest pr;
  pr.config = &lc.config;
  pr.model = &request.model;
  pr.cluster = &request.cluster;
  pr.seq_len = r.seq_len;
  pr.activation_checkpointing = request.activation_checkpointing;
  pr.flash_attention = request.flash_attention;
  pr.graph = request.graph;
  pr.names = request.op_names;
  ZS_ASSIGN_OR_RETURN(r.built, plan::build_plan(pr));
  r.params = r.built.layout.psi;  // = model_facts().params: the graph's trainable parameters
  plan::MemoryOptions mo;
  mo.gpu_capacity_bytes = request.cluster.gpu_memory_bytes();
  mo.host_capacity_bytes = request.cluster.node.host_memory_bytes;
  mo.ranks_per_node = request.cluster.gpus_per_node;
  mo.fragmentation = request.fragmentation;
  // A sweep (no op names) runs the caching allocator only near capacity (plan/memory.h).
  mo.allocator_only_near_capacity = !request.op_names;
  r.memory = plan::replay_memory(r.built.plan, mo);
  r.train_batch_size = lc.config.batch.train_batch_size.value;
  r.profile = request.profile ? *request.profile : default_cost_profile(request.cluster);
  if (!request.simulate_time) {
    r.config = std::move(lc);
    return r;
  }
  StepTimeRequest tr;
  tr.built = &r.built;
  tr.cluster = &request.cluster;
  tr.profile = &r.profile;
  tr.train_batch_size = r.train_batch_size;
  tr.collective_slowdown = request.collective_slowdown;
  tr.priced_model = request.priced_model;
  tr.record_ops = request.op_names;  // a trace needs both
  ZS_ASSIGN_OR_RETURN(r.time, simulate_step_time(tr));
  r.config = std::move(lc);
  return r;
}

}  // namespace zs::sim
