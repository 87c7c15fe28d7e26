#include "sim/simulate.h"

#include "plan/step_memory.h"

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
  plan::StepMemory memory = plan::step_memory(
      r.built, request.model, request.cluster,
      {request.fragmentation, request.allocator_near_capacity_only, request.load_dtype});
  r.memory = std::move(memory.memory);
  r.load = std::move(memory.load);
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
