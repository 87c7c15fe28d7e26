#include "sim/simulate.h"

namespace zs::sim {

Result<configs::LoadedConfig> check_for_simulation(const SimulationRequest& request) {
  return plan::check_step_config(request);
}

Result<SimulationResult> simulate(const SimulationRequest& request) {
  ZS_ASSIGN_OR_RETURN(configs::LoadedConfig lc, check_for_simulation(request));
  if (lc.diagnostics.has_errors()) return errors_to_status(lc.diagnostics, lc.document.source);
  return simulate_checked(request, std::move(lc));
}

Result<SimulationResult> simulate_checked(const SimulationRequest& request,
                                          configs::LoadedConfig lc) {
  ZS_CHECK(!lc.diagnostics.has_errors());
  ZS_ASSIGN_OR_RETURN(plan::PlannedStep step, plan::build_step(request, std::move(lc)));
  return simulate_planned(request, std::move(step));
}

Result<SimulationResult> simulate_planned(const SimulationRequest& request,
                                          plan::PlannedStep step) {
  SimulationResult r;
  r.seq_len = step.seq_len;
  r.built = std::move(step.built);
  configs::LoadedConfig lc = std::move(step.config);
  r.params = r.built.layout.psi;  // = model_facts().params: the graph's trainable parameters
  plan::MemoryOptions mo;
  mo.gpu_capacity_bytes = request.cluster.gpu_memory_bytes();
  mo.host_capacity_bytes = request.cluster.node.host_memory_bytes;
  mo.ranks_per_node = request.cluster.gpus_per_node;
  mo.fragmentation = request.fragmentation;
  mo.allocator_only_near_capacity = request.allocator_near_capacity_only;
  if (request.cluster.gpu.backend == "cpu") {  // no CUDA context, no NCCL
    mo.cuda_context_bytes = 0;
    mo.nccl_workspace_bytes = 0;
  }
  if (request.load_dtype) {
    const auto dtype = plan::parse_load_dtype(request.model.checkpoint_dtype);
    r.load = plan::model_load(*request.load_dtype, dtype.value_or(plan::LoadDtype::kAuto), r.params,
                              r.built.layout.stage);
    mo.host_load_bytes_per_rank = r.load->per_rank_bytes;
  }
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
