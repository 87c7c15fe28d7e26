#include "models/flops.h"

#include "models/op_costs.h"
#include "models/op_graph.h"
#include "models/parameters.h"

namespace zs::models {

std::int64_t matmul_fwd_flops(const Op& op) {
  if (op.kind == OpKind::kLinear) {
    const GemmShape* g = std::get_if<GemmShape>(&op.shape);
    ZS_CHECK(g != nullptr);
    return 2 * g->m * g->n * g->k;
  }
  if (op.kind == OpKind::kMoeExperts) {  // the two grouped GEMMs over t·k pairs
    const MoeShape* m = std::get_if<MoeShape>(&op.shape);
    ZS_CHECK(m != nullptr);
    return 2 * m->pairs() * m->hidden * 3 * m->inner;
  }
  if (op.kind == OpKind::kAttention || op.kind == OpKind::kFlashAttention) {
    const AttentionShape* a = std::get_if<AttentionShape>(&op.shape);
    ZS_CHECK(a != nullptr);
    const std::int64_t pairs = op.kind == OpKind::kFlashAttention
                                   ? attention_pairs(*a)
                                   : a->seq * a->keys();  // cuBLAS computes the masked half too
    return 2 * a->batch * a->heads * pairs * (a->head_dim + a->value_dim());  // Q·K^T, P·V
  }
  return 0;
}

std::int64_t matmul_bwd_flops(const Op& op) {
  // Linear and unfused attention: twice forward. Flash: 2.5 times (the scores are recomputed).
  const std::int64_t fwd = matmul_fwd_flops(op);
  return op.kind == OpKind::kFlashAttention ? fwd / 2 * 5 : 2 * fwd;
}

CostTotals sum_costs(const std::vector<Op>& ops) {
  CostTotals t;
  for (const Op& op : ops) {
    t.fwd_flops += op.cost.fwd_flops;
    t.bwd_flops += op.cost.bwd_flops;
    t.matmul_fwd_flops += matmul_fwd_flops(op);
    t.matmul_bwd_flops += matmul_bwd_flops(op);
    t.fwd_hbm_bytes += op.cost.fwd_hbm_bytes;
    t.bwd_hbm_bytes += op.cost.bwd_hbm_bytes;
  }
  return t;
}

double training_flops_per_token(const ModelSpec& spec, const Workload& w) {
  const CostTotals t = sum_costs(forward_ops(spec, w));
  return static_cast<double>(t.total_flops()) / static_cast<double>(w.tokens());
}

std::int64_t model_flops_per_token(const ModelSpec& spec, std::int64_t seq_len) {
  ZS_CHECK(seq_len >= 1);
  return 6 * matmul_parameter_count(spec) + 6 * total_layers(spec) * spec.num_heads *
                                                (spec.head_dim + spec.value_head_dim()) * seq_len;
}

}  // namespace zs::models
