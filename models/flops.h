// FLOP and HBM-traffic totals over an op list, and the standard per-token FLOP formulas.
//
// The standard model-FLOPs count per token of training (PaLM, Chowdhery et al. 2022, App. B;
// Kaplan et al. 2020 §2.1 without the attention term; Chinchilla uses the same 6·N):
//     6·N + 12·L·a·d·s
// where N is the number of parameters multiplied in GEMMs (matmul_parameter_count: every linear
// weight and the LM head; not the embedding lookups, norms or biases), 6 = 2 (multiply-add)
// × 3 (forward, dgrad, wgrad), and 12·L·a·d·s is the attention score and context GEMMs (forward
// 4·a·d·s per token per layer, backward twice that). The unfused op list matches it exactly in
// its GEMMs; the memory-bound ops add well under 1% for the zoo's models at their context length.
// Flash attention with a causal mask executes about half the attention term forward, and
// recomputes the scores in backward (op_costs.h).
#pragma once

#include <cstdint>
#include <vector>

#include "models/model_spec.h"
#include "models/ops.h"

namespace zs::models {

struct CostTotals {
  std::int64_t fwd_flops = 0;
  std::int64_t bwd_flops = 0;
  // The GEMM part of the above: linear layers (without bias adds) and the attention GEMMs.
  std::int64_t matmul_fwd_flops = 0;
  std::int64_t matmul_bwd_flops = 0;
  Bytes fwd_hbm_bytes = 0;
  Bytes bwd_hbm_bytes = 0;

  std::int64_t total_flops() const { return fwd_flops + bwd_flops; }
};

// Sums the costs of `ops`.
CostTotals sum_costs(const std::vector<Op>& ops);

// The GEMM FLOPs of one op, forward and backward (0 for memory-bound ops).
std::int64_t matmul_fwd_flops(const Op& op);
std::int64_t matmul_bwd_flops(const Op& op);

// Forward + backward FLOPs of one micro-step per token, as executed (forward_ops summed, divided
// by b·s).
// REQUIRES: validate(spec).is_ok() && validate_workload(spec, w).is_ok()
double training_flops_per_token(const ModelSpec& spec, const Workload& w);

// The model FLOPs per token above, 6·N + 12·L·a·d·s (6·L·a·(d + d_v)·s when each head's value
// is d_v wide: DeepSeek's MLA): what MFU divides by.
// REQUIRES: validate(spec).is_ok() && seq_len >= 1
std::int64_t model_flops_per_token(const ModelSpec& spec, std::int64_t seq_len);

}  // namespace zs::models
