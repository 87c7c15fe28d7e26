#include "plan/model_graph.h"

#include <algorithm>

#include "models/op_graph.h"

namespace zs::plan {
namespace {

GradFlow make_grad_flow(const ModelGraph& g) {
  const int n = static_cast<int>(g.blocks.size());
  GradFlow f;
  f.created.resize(n);
  f.completed.resize(n);
  f.largest.assign(n, 0);
  std::vector<int> first_block(g.params.size(), n), last_block(g.params.size(), -1);
  for (int b = 0; b < n; ++b) {
    for (int p : g.blocks[b].params) {
      first_block[p] = std::min(first_block[p], b);
      last_block[p] = std::max(last_block[p], b);
      f.largest[b] = std::max(f.largest[b], g.params[p].numel);
    }
  }
  for (int p : g.real_params) {
    if (last_block[p] >= 0) f.created[last_block[p]].push_back(p);
  }
  for (int p : g.grad_order) {
    if (first_block[p] < n) f.completed[first_block[p]].push_back(p);
  }
  return f;
}

}  // namespace

bool ModelGraph::matches(const models::ModelSpec& other, const models::Workload& w) const {
  return spec == other && workload.micro_batch == w.micro_batch && workload.seq_len == w.seq_len &&
         workload.act_bytes == w.act_bytes && workload.flash_attention == w.flash_attention;
}

Result<std::shared_ptr<const ModelGraph>> make_model_graph(const models::ModelSpec& spec,
                                                           const models::Workload& w) {
  ZS_RETURN_IF_ERROR(models::validate_workload(spec, w));
  auto g = std::make_shared<ModelGraph>();
  g->spec = spec;
  g->workload = w;
  g->hidden = spec.hidden_size;
  g->params = models::parameter_tensors(spec);
  g->ops = models::forward_ops(spec, w);
  g->blocks = make_blocks(g->ops, g->params);
  g->grad_order = models::gradient_ready_order(spec);
  for (const models::ParamTensor& p : g->params) {
    if (p.tied) continue;
    g->real_params.push_back(p.id);
    g->psi += p.numel;
    g->largest_param = std::max(g->largest_param, p.numel);
  }
  g->flow = make_grad_flow(*g);
  g->modules = make_module_order(spec, g->params, g->blocks, w.flash_attention);
  for (const bool checkpointing : {false, true}) {
    g->traces[checkpointing ? 1 : 0] =
        make_micro_step_trace(g->blocks, g->modules, g->params.size(), checkpointing);
  }
  return std::shared_ptr<const ModelGraph>(std::move(g));
}

}  // namespace zs::plan
