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

// Stage 3's order of reduction. stage3.py create_reduce_and_remove_grad_hooks: a leaf's
// parameters get no gradient hook; a full backward hook on the leaf reduces them all, in
// fp16_groups (registration) order, once the gradient of the leaf's input exists, i.e. after its
// first block's backward.
GradFlow make_stage3_flow(const ModelGraph& g) {
  GradFlow f = g.flow;
  // zero.Init replaces torch.nn.functional.linear with zero3_linear_wrap
  // (partition_parameters.py _enable_mem_efficient_linear, memory_efficient_linear true by
  // default), whose backward returns grad_input, grad_weight, grad_bias (zero/linear.py
  // LinearFunctionForZeroStage3): an nn.Linear's weight gradient is reduced before its bias's,
  // as the oracle's Qwen2-MoE runs show. GPT-2's Conv1D calls torch.addmm itself and keeps
  // autograd's order, bias first.
  if (g.spec.model_type != models::ModelType::kGpt2) {
    for (std::vector<int>& done : f.completed) {
      for (std::size_t i = 0; i + 1 < done.size(); ++i) {
        const models::ParamTensor& a = g.params[done[i]];
        const models::ParamTensor& b = g.params[done[i + 1]];
        if (a.module == b.module && a.name.ends_with(".bias") && b.name.ends_with(".weight")) {
          std::swap(done[i], done[i + 1]);
        }
      }
    }
  }
  for (int m : g.modules.leaves) {
    const FetchedModule& leaf = g.modules.modules[m];
    for (std::vector<int>& done : f.completed) {
      std::erase_if(done, [&](int p) {
        return std::binary_search(leaf.params.begin(), leaf.params.end(), p);
      });
    }
    std::vector<int>& at = f.completed[leaf.block];
    at.insert(at.end(), leaf.params.begin(), leaf.params.end());
  }
  return f;
}

}  // namespace

bool ModelGraph::matches(const models::ModelSpec& other, const models::Workload& w,
                         const configs::LeafModules& leaves) const {
  return spec == other && workload.micro_batch == w.micro_batch && workload.seq_len == w.seq_len &&
         workload.act_bytes == w.act_bytes && workload.flash_attention == w.flash_attention &&
         workload.target_len == w.target_len && leaf_rules == leaves;
}

Result<std::shared_ptr<const ModelGraph>> make_model_graph(const models::ModelSpec& spec,
                                                           const models::Workload& w,
                                                           const configs::LeafModules& leaves) {
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
  g->leaf_rules = leaves;
  g->modules = make_module_order(spec, g->params, g->blocks, w.flash_attention, leaves);
  g->stage3_flow = make_stage3_flow(*g);
  g->leaf_param.assign(g->params.size(), false);
  for (int m : g->modules.leaves) {
    for (int p : g->modules.modules[m].params) g->leaf_param[p] = true;
  }
  g->stage3_done_block.assign(g->params.size(), -1);
  for (std::size_t blk = 0; blk < g->stage3_flow.completed.size(); ++blk) {
    for (int p : g->stage3_flow.completed[blk]) g->stage3_done_block[p] = static_cast<int>(blk);
  }
  for (const bool checkpointing : {false, true}) {
    g->traces[checkpointing ? 1 : 0] =
        make_micro_step_trace(g->blocks, g->modules, g->params.size(), checkpointing);
  }
  return std::shared_ptr<const ModelGraph>(std::move(g));
}

}  // namespace zs::plan
