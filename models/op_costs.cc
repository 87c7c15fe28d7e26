#include "models/op_costs.h"

namespace zs::models {
namespace {

// Nominal FLOPs per element for memory-bound ops (forward, backward); see op_costs.h.
struct ElementFlops {
  std::int64_t fwd = 0;
  std::int64_t bwd = 0;
};
constexpr ElementFlops kLayerNormFlops{8, 12};  // mean, centre, square, sum, rstd scale, affine
constexpr ElementFlops kRmsNormFlops{4, 8};     // square, sum, rstd scale, weight
constexpr ElementFlops kGeluFlops{8, 12};       // tanh approximation (gelu_new)
constexpr ElementFlops kSwiGluFlops{6, 10};     // x·sigmoid(x) then ·up
constexpr ElementFlops kSoftmaxFlops{5, 4};   // max, subtract, exp, sum, divide; y·(dy - Σy·dy)
constexpr ElementFlops kScaleFlops{1, 1};     // 1/sqrt(d) on the scores
constexpr ElementFlops kDropoutFlops{1, 1};   // mask multiply (with 1/(1-p) folded in)
constexpr ElementFlops kResidualFlops{1, 1};  // add; backward sums the two gradient streams
constexpr ElementFlops kRotaryFlops{3, 3};    // x·cos + rotate_half(x)·sin
constexpr ElementFlops kCrossEntropyFlops{5, 2};  // log-softmax + pick; softmax - one-hot, scale
constexpr ElementFlops kEmbeddingFlops{0, 1};     // gather; scatter-add into the table's gradient
constexpr ElementFlops kPositionAddFlops{1, 1};
constexpr ElementFlops kSoftcapFlops{4, 4};  // x / cap, tanh, · cap; dy · cap · (1 - y²) / cap
constexpr ElementFlops kEmbedScaleFlops{1, 1};  // Gemma's · sqrt(h)

constexpr Bytes kFp32Bytes = 4;
constexpr Bytes kTokenIdBytes = 8;  // int64 input_ids
constexpr Bytes kMaskBytes = 1;     // torch.bool dropout mask

// The payload of `shape`, which must hold a T (a mismatch is a bug in the op builder).
template <class T>
const T& payload(const OpShape& shape) {
  const T* p = std::get_if<T>(&shape);
  ZS_CHECK_MSG(p != nullptr, "op payload does not match its kind");
  return *p;
}

OpCosts gemm_costs(const GemmShape& g, Bytes e) {
  ZS_CHECK(g.m > 0 && g.n > 0 && g.k > 0);
  const std::int64_t mnk = g.m * g.n * g.k;
  const std::int64_t bias_flops = g.bias ? g.m * g.n : 0;
  const Bytes operands = e * (g.m * g.k + g.k * g.n + g.m * g.n);
  const Bytes bias_bytes = g.bias ? e * g.n : 0;
  return OpCosts{.fwd_flops = 2 * mnk + bias_flops,
                 .bwd_flops = 4 * mnk + bias_flops,
                 .fwd_hbm_bytes = operands + bias_bytes,
                 .bwd_hbm_bytes = 2 * operands + bias_bytes,
                 .bwd_grad_bytes = e * (g.m * g.n + g.m * g.k)};
}

OpCosts attention_costs(const AttentionShape& a, Bytes e) {
  ZS_CHECK(a.batch > 0 && a.seq > 0 && a.heads > 0 && a.kv_heads > 0 && a.head_dim > 0);
  // Query and key tokens: the same for self-attention; a cross-attention's keys and values are
  // the encoder's.
  const std::int64_t t = a.batch * a.seq, tk = a.batch * a.keys();
  const std::int64_t q = a.heads * a.head_dim;                       // K is expanded to this width
  const std::int64_t qv = a.heads * a.value_dim();                   // V and O
  const std::int64_t scores = a.batch * a.heads * a.seq * a.keys();  // S = b·a·s·s_k
  // Q·K^T and P·V, the s×s×d GEMMs of forward (backward has each twice)
  const std::int64_t gemms = 2 * scores * (a.head_dim + a.value_dim());
  const bool dropout = a.dropout > 0;
  std::int64_t fwd_per_score = kScaleFlops.fwd + kSoftmaxFlops.fwd;
  std::int64_t bwd_per_score = kScaleFlops.bwd + kSoftmaxFlops.bwd;
  if (dropout) {
    fwd_per_score += kDropoutFlops.fwd;
    bwd_per_score += kDropoutFlops.bwd;
  }
  const bool softcap = a.softcap > 0;
  if (softcap) {
    fwd_per_score += kSoftcapFlops.fwd;
    bwd_per_score += kSoftcapFlops.bwd;
  }
  // Forward: read Q, K; write scores; soft-capping's three passes read and write them; softmax
  // reads and writes them; dropout reads them and writes its output and mask; P·V reads P and V
  // and writes O.
  const Bytes dropout_fwd = dropout ? 2 * e * scores + kMaskBytes * scores : 0;
  const Bytes softcap_fwd = softcap ? 6 * e * scores : 0;
  const Bytes fwd = e * (t + tk) * q + e * scores + softcap_fwd + 2 * e * scores + dropout_fwd +
                    e * scores + e * (tk + t) * qv;
  // Backward: dP = dO·V^T and dV = P^T·dO (dO twice, V, P, writes dP, dV); dropout backward;
  // softmax backward (reads P, dP, writes dS); dQ = dS·K and dK = dS^T·Q (dS twice, K, Q,
  // writes dQ, dK).
  const Bytes dropout_bwd = dropout ? 2 * e * scores + kMaskBytes * scores : 0;
  // Soft-capping backward: the scale, tanh's (reads y and dy, writes dx), the division.
  const Bytes softcap_bwd = softcap ? 7 * e * scores : 0;
  const Bytes bwd =
      2 * e * (t + tk) * q + 2 * e * (t + tk) * qv + 7 * e * scores + dropout_bwd + softcap_bwd;
  return OpCosts{.fwd_flops = gemms + fwd_per_score * scores,
                 .bwd_flops = 2 * gemms + bwd_per_score * scores,
                 .fwd_hbm_bytes = fwd,
                 .bwd_hbm_bytes = bwd,
                 .bwd_grad_bytes = e * ((t + tk) * (q + qv) + 2 * scores)};
}

OpCosts flash_attention_costs(const AttentionShape& a, Bytes e) {
  ZS_CHECK(a.batch > 0 && a.seq > 0 && a.heads > 0 && a.kv_heads > 0 && a.head_dim > 0);
  const std::int64_t t = a.batch * a.seq, tk = a.batch * a.keys();
  const std::int64_t q = a.heads * a.head_dim, qv = a.heads * a.value_dim();  // Q; O
  // the kernel reads grouped K/V natively
  const std::int64_t kv = a.kv_heads * a.head_dim, kvv = a.kv_heads * a.value_dim();
  const std::int64_t dims = a.head_dim + a.value_dim();  // Q·K^T's and P·V's inner widths
  const std::int64_t pairs = a.batch * a.heads * attention_pairs(a);
  const std::int64_t rows = a.batch * a.heads * a.seq;  // fp32 softmax statistics
  std::int64_t fwd_per_pair = kSoftmaxFlops.fwd;
  std::int64_t bwd_per_pair = kSoftmaxFlops.fwd + kSoftmaxFlops.bwd;  // recompute + backward
  if (a.dropout > 0) {
    fwd_per_pair += kDropoutFlops.fwd;
    bwd_per_pair += kDropoutFlops.fwd + kDropoutFlops.bwd;  // mask regenerated from the seed
  }
  if (a.softcap > 0) {  // FlashAttention-2's softcap: in registers, recomputed in backward
    fwd_per_pair += kSoftcapFlops.fwd;
    bwd_per_pair += kSoftcapFlops.fwd + kSoftcapFlops.bwd;
  }
  return OpCosts{
      .fwd_flops = 2 * pairs * dims + fwd_per_pair * pairs,
      .bwd_flops = 5 * pairs * dims + bwd_per_pair * pairs,
      // Read Q, K, V; write O and the log-sum-exp.
      .fwd_hbm_bytes = e * (t * (q + qv) + tk * (kv + kvv)) + kFp32Bytes * rows,
      // Read Q, K, V, O, dO, LSE, write D = rowsum(dO∘O) and read it; write dQ, dK, dV.
      .bwd_hbm_bytes = e * (2 * t * (q + qv) + 2 * tk * (kv + kvv)) + 3 * kFp32Bytes * rows,
      .bwd_grad_bytes = e * (t * (q + qv) + tk * (kv + kvv)) + kFp32Bytes * rows};
}

// A dropout kernel of its own on an op's output of n elements (T5's MLP between its matrices):
// y -> y' writing the mask; backward dy', mask -> dy.
void add_output_dropout(double p, std::int64_t n, Bytes e, OpCosts* c) {
  if (p <= 0) return;
  c->fwd_flops += kDropoutFlops.fwd * n;
  c->bwd_flops += kDropoutFlops.bwd * n;
  c->fwd_hbm_bytes += 2 * e * n + kMaskBytes * n;
  c->bwd_hbm_bytes += 2 * e * n + kMaskBytes * n;
}

OpCosts norm_costs(const NormShape& n, Bytes e) {
  const ElementFlops f = n.kind == NormKind::kLayerNorm ? kLayerNormFlops : kRmsNormFlops;
  const std::int64_t numel = n.rows * n.cols;
  const std::int64_t weights = n.kind == NormKind::kLayerNorm ? 2 * n.cols : n.cols;
  OpCosts c{.fwd_flops = f.fwd * numel,
            .bwd_flops = f.bwd * numel,
            .fwd_hbm_bytes = e * (2 * numel + weights),      // x, weights -> y
            .bwd_hbm_bytes = e * (3 * numel + 2 * weights),  // x, dy, weights -> dx, dw
            .bwd_grad_bytes = 2 * e * numel};
  add_output_dropout(n.dropout, numel, e, &c);  // BERT's embedding, T5's final norms
  return c;
}

OpCosts elementwise_costs(OpKind kind, const ElementwiseShape& s, Bytes e) {
  const std::int64_t n = s.numel;
  OpCosts c;
  switch (kind) {
    case OpKind::kRotary:  // x -> y for q and k; backward dy -> dx
      return OpCosts{kRotaryFlops.fwd * n, kRotaryFlops.bwd * n, 2 * e * n, 2 * e * n, 2 * e * n};
    case OpKind::kActivation:  // x -> y; backward x, dy -> dx
      c = OpCosts{kGeluFlops.fwd * n, kGeluFlops.bwd * n, 2 * e * n, 3 * e * n, 2 * e * n};
      add_output_dropout(s.dropout, n, e, &c);
      return c;
    case OpKind::kSwiGlu:  // gate, up -> y; backward gate, up, dy -> dgate, dup
      c = OpCosts{kSwiGluFlops.fwd * n, kSwiGluFlops.bwd * n, 3 * e * n, 5 * e * n, 3 * e * n};
      add_output_dropout(s.dropout, n, e, &c);
      return c;
    case OpKind::kResidualAdd: {
      // x, branch -> y (the branch through dropout, writing its mask); backward sums the two
      // gradient streams of x (reads 2, writes 1) and, with dropout, masks the branch's.
      const bool dropout = s.dropout > 0;
      const std::int64_t flops_fwd = (kResidualFlops.fwd + (dropout ? kDropoutFlops.fwd : 0)) * n;
      const std::int64_t flops_bwd = (kResidualFlops.bwd + (dropout ? kDropoutFlops.bwd : 0)) * n;
      const Bytes mask = dropout ? kMaskBytes * n : 0;
      const Bytes dropout_bwd = dropout ? 2 * e * n + mask : 0;
      return OpCosts{flops_fwd, flops_bwd, 3 * e * n + mask, 3 * e * n + dropout_bwd, 2 * e * n};
    }
    default:
      ZS_UNREACHABLE();
  }
}

OpCosts embedding_costs(const EmbeddingShape& s, Bytes e) {
  const std::int64_t n = s.tokens * s.hidden;
  const int added = (s.learned_positions ? 1 : 0) + (s.token_types ? 1 : 0);
  const int tables = 1 + added;
  std::int64_t fwd = (kEmbeddingFlops.fwd + added * kPositionAddFlops.fwd) * n;
  std::int64_t bwd = (kEmbeddingFlops.bwd + added * kPositionAddFlops.bwd) * n;
  Bytes mask = 0;
  if (s.dropout > 0) {
    fwd += kDropoutFlops.fwd * n;
    bwd += kDropoutFlops.bwd * n;
    mask = kMaskBytes * n;
  }
  Bytes scale = 0;  // Gemma's multiply by sqrt(h), and its gradient's: read and write t x h
  if (s.scaled) {
    fwd += kEmbedScaleFlops.fwd * n;
    bwd += kEmbedScaleFlops.bwd * n;
    scale = 2 * e * n;
  }
  return OpCosts{
      .fwd_flops = fwd,
      .bwd_flops = bwd,
      // Read the ids and one row per token from each table; write the sum (and the mask).
      .fwd_hbm_bytes = kTokenIdBytes * s.tokens + e * n * (tables + 1) + mask + scale,
      // Read dy (and the mask); scatter-add into each table's gradient (read + write a row).
      .bwd_hbm_bytes = kTokenIdBytes * s.tokens + e * n * (1 + 2 * tables) + mask + scale,
      .bwd_grad_bytes = e * n};
}

OpCosts cross_entropy_costs(const CrossEntropyShape& s, Bytes e) {
  const std::int64_t n = s.tokens * s.vocab;
  // Gemma2ForCausalLM's soft-capping of the logits: three passes forward (each reads and
  // writes t x V), three backward (tanh's reads its output and dy).
  const bool softcap = s.softcap > 0;
  return OpCosts{
      .fwd_flops = (kCrossEntropyFlops.fwd + (softcap ? kSoftcapFlops.fwd : 0)) * n,
      .bwd_flops = (kCrossEntropyFlops.bwd + (softcap ? kSoftcapFlops.bwd : 0)) * n,
      // Read the logits and the labels; write the fp32 log-probabilities.
      .fwd_hbm_bytes =
          e * n + kFp32Bytes * n + kTokenIdBytes * s.tokens + (softcap ? 6 * e * n : 0),
      // nll_loss backward writes a dense fp32 [t, V] gradient, log_softmax backward reads it
      // with the log-probabilities and writes another, which is cast to the logits' dtype.
      .bwd_hbm_bytes = kFp32Bytes * n * 4 + e * n + (softcap ? 7 * e * n : 0),
      // Two fp32 [t, V] gradients meet inside log_softmax's backward.
      .bwd_grad_bytes = 2 * kFp32Bytes * n};
}

// The router after its linear (MixtralTopKRouter.forward): logits -> fp32 softmax over E ->
// top-k -> the k values divided by their sum. Backward: the division, top-k's scatter, softmax.
OpCosts moe_route_costs(const MoeShape& m, Bytes e) {
  ZS_CHECK(m.tokens > 0 && m.experts > 0 && m.top_k > 0);
  const std::int64_t n = m.tokens * m.experts, s = m.pairs();
  return OpCosts{
      // Softmax, the top-k scan, the renormalisation (charged without norm_topk_prob too: 3·t·k
      // of a router's 2·t·E·h).
      .fwd_flops = (kSoftmaxFlops.fwd + 1) * n + 3 * s,
      .bwd_flops = kSoftmaxFlops.bwd * n + 4 * s,
      // Read the logits, write and read the fp32 probabilities, write k values and int64 ids.
      .fwd_hbm_bytes = e * n + 2 * kFp32Bytes * n + (kFp32Bytes + kTokenIdBytes) * s,
      // The k gradients scattered into a zeroed fp32 [t, E], softmax backward, cast to e.
      .bwd_hbm_bytes = 2 * kFp32Bytes * s + 4 * kFp32Bytes * n + e * n,
      .bwd_grad_bytes = 2 * kFp32Bytes * n};
}

// transformers 5 grouped_mm_experts_forward (integrations/moe.py), over S = t·k pairs: sort by
// expert, gather the S rows, gate_up = grouped_mm(x, W1) [S, 2I], silu(gate)·up [S, I], down =
// grouped_mm(., W2) [S, h], scale by the weights, unsort, sum the k rows of each token. Every
// expert's weights are read once (balanced routing hits them all when S >= E).
OpCosts moe_experts_costs(const MoeShape& m, Bytes e) {
  ZS_CHECK(m.tokens > 0 && m.hidden > 0 && m.inner > 0 && m.experts > 0 && m.top_k > 0);
  const std::int64_t s = m.pairs(), h = m.hidden, I = m.inner;
  const std::int64_t gemm = 2 * s * h * (2 * I) + 2 * s * I * h;
  const std::int64_t weights = m.experts * 3 * h * I;
  const std::int64_t elementwise_fwd = kSwiGluFlops.fwd * s * I + 2 * s * h;  // scale, k-sum
  const std::int64_t elementwise_bwd = kSwiGluFlops.bwd * s * I + 2 * s * h;
  // Forward: gather (read, write S·h), gate_up (read S·h, write 2S·I), gate (read 2S·I, write
  // S·I), down (read S·I, write S·h), scale (read, write S·h), unsort (read, write S·h), k-sum
  // (read S·h, write t·h); the weights once each.
  const Bytes fwd = e * (8 * s * h + 5 * s * I + m.tokens * h + weights) + 2 * kTokenIdBytes * s;
  // Backward: each grouped GEMM's dgrad and wgrad read its operands twice and write the two
  // gradients (the weight gradients in full); the elementwise passes as forward plus dy.
  const Bytes bwd =
      e * (12 * s * h + 12 * s * I + m.tokens * h + 3 * weights) + 2 * kTokenIdBytes * s;
  return OpCosts{.fwd_flops = gemm + elementwise_fwd,
                 .bwd_flops = 2 * gemm + elementwise_bwd,
                 .fwd_hbm_bytes = fwd,
                 .bwd_hbm_bytes = bwd,
                 .bwd_grad_bytes = e * (2 * s * h + 2 * 2 * s * I)};
}

// Qwen2MoeSparseMoeBlock's last line: sigmoid(g) [t], times the shared expert's output [t, h],
// plus the experts' [t, h]; eager, three kernels forward; backward the product's two gradients
// (one a row sum into [t]) and the sigmoid's.
OpCosts moe_combine_costs(const MoeShape& m, Bytes e) {
  ZS_CHECK(m.tokens > 0 && m.hidden > 0);
  const std::int64_t t = m.tokens, n = t * m.hidden;
  return OpCosts{.fwd_flops = 2 * n + 4 * t,
                 .bwd_flops = 3 * n + 3 * t,
                 .fwd_hbm_bytes = e * (5 * n + 3 * t),
                 .bwd_hbm_bytes = e * (5 * n + 5 * t),
                 .bwd_grad_bytes = e * (2 * n + t)};
}

}  // namespace

std::int64_t attention_pairs(const AttentionShape& a) {
  return a.causal ? a.seq * (a.seq + 1) / 2 : a.seq * a.keys();
}

OpCosts op_costs(OpKind kind, const OpShape& shape, std::int64_t act_bytes) {
  ZS_CHECK(act_bytes == 2 || act_bytes == 4);
  switch (kind) {
    case OpKind::kLinear:
      return gemm_costs(payload<GemmShape>(shape), act_bytes);
    case OpKind::kAttention:
      return attention_costs(payload<AttentionShape>(shape), act_bytes);
    case OpKind::kFlashAttention:
      return flash_attention_costs(payload<AttentionShape>(shape), act_bytes);
    case OpKind::kNorm:
      return norm_costs(payload<NormShape>(shape), act_bytes);
    case OpKind::kEmbedding:
      return embedding_costs(payload<EmbeddingShape>(shape), act_bytes);
    case OpKind::kCrossEntropy:
      return cross_entropy_costs(payload<CrossEntropyShape>(shape), act_bytes);
    case OpKind::kRotary:
    case OpKind::kActivation:
    case OpKind::kSwiGlu:
    case OpKind::kResidualAdd:
      return elementwise_costs(kind, payload<ElementwiseShape>(shape), act_bytes);
    case OpKind::kMoeRoute:
      return moe_route_costs(payload<MoeShape>(shape), act_bytes);
    case OpKind::kMoeExperts:
      return moe_experts_costs(payload<MoeShape>(shape), act_bytes);
    case OpKind::kMoeCombine:
      return moe_combine_costs(payload<MoeShape>(shape), act_bytes);
  }
  ZS_UNREACHABLE();
}

}  // namespace zs::models
