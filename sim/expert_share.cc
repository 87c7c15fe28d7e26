#include "sim/expert_share.h"

namespace zs::sim {

std::optional<ExpertShare> expert_share(const SimulationResult& r) {
  const plan::Layout& l = r.built.layout;
  // A DeepSeek config may make every layer dense (first_k_dense_replace = num_hidden_layers).
  if (l.graph == nullptr || !models::has_experts(l.graph->spec, l.graph->spec.num_layers - 1)) {
    return std::nullopt;
  }
  const plan::ModelGraph& g = *l.graph;
  ExpertShare s;
  std::vector<bool> expert(g.params.size(), false);
  for (int p : g.real_params) {
    const models::ParamTensor& t = g.params[p];
    // models/parameters.cc: the experts' fused tensors under mlp.experts, the router mlp.gate.
    if (t.module.ends_with(".mlp.experts")) {
      expert[p] = true;
      s.expert_params += t.numel;
    } else if (t.module.ends_with(".mlp.gate")) {
      s.router_params += t.numel;
    }
  }
  s.params = g.psi;
  const models::MoeSpec& moe = g.spec.moe;
  s.active_params =
      s.params - s.expert_params + s.expert_params / moe.num_experts * moe.experts_per_token;
  s.param_fraction =
      s.params > 0 ? static_cast<double>(s.expert_params) / static_cast<double>(s.params) : 0;
  s.model_states_bytes =
      static_cast<Bytes>(s.param_fraction * static_cast<double>(r.memory.model_states_bytes) + 0.5);
  if (const auto& priced = r.time.priced_model) {
    const ModelOpTimes& t = priced->times;
    for (std::size_t i = 0; i < g.ops.size() && i < t.fwd_s.size(); ++i) {
      const models::Op& op = g.ops[i];
      const double both = t.fwd_s[i] + t.bwd_s[i];
      s.model_kernel_s += both;
      if (op.kind == models::OpKind::kMoeRoute || op.kind == models::OpKind::kMoeExperts ||
          op.name.ends_with(".mlp.router")) {
        s.kernel_s += both;
      }
    }
  }
  s.moe_blocks = g.spec.num_layers - g.spec.moe.dense_layers;  // DeepSeek's dense first layers
  if (l.stage == 3) {
    for (int m : g.modules.leaves) {
      for (int p : g.modules.modules[m].params) {
        if (expert[p]) {
          ++s.leaf_blocks;
          break;
        }
      }
    }
  }
  return s;
}

}  // namespace zs::sim
