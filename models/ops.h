// Op descriptors: one training step's forward pass as an ordered list of kernels-to-be.
//
// An Op says what runs (kind and shape), which parameters it touches, what it costs (FLOPs and
// HBM bytes, forward and backward; models/op_costs.h) and which activations it saves for
// backward (models/op_graph.h builds the list; models/activations.h sums the saved bytes).
// Backward runs the same ops in reverse order. Shapes are payloads of a std::variant chosen by the
// kind; costs are plain numbers so that sim/ and plan/ never need to look inside a payload.
//
// Notation used in comments throughout models/: b micro-batch, s sequence length, t = b·s tokens,
// h hidden, a query heads, d head_dim, I intermediate (FFN) size, V vocabulary, e activation bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/status.h"
#include "common/units.h"
#include "models/model_spec.h"

namespace zs::models {

// What one micro-step runs on one GPU.
struct Workload {
  std::int64_t micro_batch = 1;  // b: sequences per micro-step
  std::int64_t seq_len = 0;      // s: tokens per sequence
  std::int64_t act_bytes = 2;    // e: bytes per activation element; 2 (bf16/fp16) or 4 (fp32)
  bool flash_attention = false;  // fused attention (FlashAttention-2, SDPA's flash backend)
  // An encoder-decoder's decoder tokens per sequence (HF's labels / max_target_length); 0: as
  // many as the encoder's, seq_len. Read only for an encoder-decoder.
  std::int64_t target_len = 0;

  std::int64_t tokens() const { return micro_batch * seq_len; }
  std::int64_t decoder_len() const { return target_len > 0 ? target_len : seq_len; }
};

// OK, or kInvalidArgument naming the field and value: micro_batch >= 1, seq_len >= 1,
// act_bytes 2 or 4, target_len >= 0, and seq_len <= max_position_embeddings for learned position
// embeddings (the wpe table has no row past it; rotary and relative-bias models may run longer
// than they were trained for).
// Also kInvalidArgument when the workload is too large to count: check_workload_size.
Status validate_workload(const ModelSpec& spec, const Workload& w);

// kInvalidArgument naming the model, the micro-batch and the sequence when a layer's FLOPs or a
// micro-step's activation bytes could pass 2^62, so that no count of the model graph or the
// plan's memory overflows int64. REQUIRES: validate(spec) is OK.
Status check_workload_size(const ModelSpec& spec, const Workload& w);

enum class OpKind {
  kEmbedding,  // token lookup (+ learned positions, + token types) (+ embedding dropout)
  kNorm,       // LayerNorm or RMSNorm over h (+ dropout on its output: BERT's embedding)
  kLinear,     // a GEMM against a weight (+ bias): projections, MLP matrices, LM head
  kRotary,     // RoPE on q and k
  kAttention,  // unfused core: Q·K^T, scale, causal mask (or T5's bias), softmax, dropout, P·V
  kFlashAttention,  // fused core (FlashAttention-2): the s×s scores never reach HBM
  kActivation,      // GELU on the MLP's up projection
  kSwiGlu,          // silu(gate) * up
  kResidualAdd,     // sublayer dropout (when resid_pdrop > 0) + residual add
  kCrossEntropy,    // (Gemma 2's logit soft-capping +) fp32 log-softmax over V + NLL loss
  // A mixture of experts (models/model_spec.h MoeSpec), after the router's linear:
  kMoeRoute,    // fp32 softmax of the router logits over E, top-k, the k weights renormalized
  kMoeExperts,  // sort the t·k (token, expert) pairs by expert, gather, grouped gate_up GEMM,
                // silu(gate)·up, grouped down GEMM, scale by the weights, unsort, sum the k
  kMoeCombine,  // Qwen2-MoE: sigmoid of the shared expert's gate [t] times its output, plus the
                // routed experts' output (MoeShape's tokens and hidden)
};
inline constexpr int kOpKindCount = static_cast<int>(OpKind::kMoeCombine) + 1;
std::string_view op_kind_name(OpKind k);

// Y[m, n] = X[m, k] · W[k, n] (+ bias[n]); m = t tokens.
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  bool bias = false;
};
// Multi-head attention over b sequences of s tokens; kv_heads < heads is grouped-query.
struct AttentionShape {
  std::int64_t batch = 0, seq = 0, heads = 0, kv_heads = 0, head_dim = 0;
  double dropout = 0;  // on the probabilities
  bool causal = true;
  double softcap = 0;  // cap * tanh(scores / cap) before the softmax (Gemma 2); 0 = none
  // Keys per sequence when they are not the queries' own (cross-attention over an encoder's
  // output); 0: seq.
  std::int64_t kv_seq = 0;
  // Each head's value width when it is not head_dim (DeepSeek's MLA: 128 against a query and
  // key of 192); 0: head_dim.
  std::int64_t v_head_dim = 0;

  std::int64_t keys() const { return kv_seq > 0 ? kv_seq : seq; }
  std::int64_t value_dim() const { return v_head_dim > 0 ? v_head_dim : head_dim; }
};
struct NormShape {
  std::int64_t rows = 0, cols = 0;  // t, h
  NormKind kind = NormKind::kLayerNorm;
  double dropout = 0;  // on the output (BERT's embedding LayerNorm, then its dropout); 0 = none
};
// Elementwise ops; numel is the element count of the output (for kRotary: the rotated elements
// of q and k together, rotary_dim of each head).
struct ElementwiseShape {
  std::int64_t numel = 0;
  double dropout = 0;  // kResidualAdd's on its branch; kActivation's on its output (T5's MLP)
};
struct EmbeddingShape {
  std::int64_t tokens = 0, hidden = 0, vocab = 0;
  bool learned_positions = false;
  double dropout = 0;
  bool scaled = false;       // times sqrt(hidden) (Gemma)
  bool token_types = false;  // a third table's rows added (BERT's token_type_embeddings)
};
struct CrossEntropyShape {
  std::int64_t tokens = 0, vocab = 0;
  double softcap = 0;  // the logits soft-capped, cap * tanh(x / cap), first (Gemma 2); 0 = none
};
// t tokens each routed to top_k of `experts` SwiGLU experts of width `inner` (kMoeRoute and
// kMoeExperts). The routing is data-dependent; costs assume it balanced: t·k/E tokens per expert.
struct MoeShape {
  std::int64_t tokens = 0, hidden = 0, inner = 0, experts = 0, top_k = 0;
  std::int64_t pairs() const { return tokens * top_k; }  // S: (token, expert) pairs
};
using OpShape = std::variant<GemmShape, AttentionShape, NormShape, ElementwiseShape, EmbeddingShape,
                             CrossEntropyShape, MoeShape>;

// Costs of one op (models/op_costs.h says what is counted).
struct OpCosts {
  std::int64_t fwd_flops = 0;
  std::int64_t bwd_flops = 0;  // as executed, including any recomputation inside the kernel
  Bytes fwd_hbm_bytes = 0;     // HBM reads + writes
  Bytes bwd_hbm_bytes = 0;
  // Activation gradients live while the op's backward runs: the incoming gradient of its output
  // plus the gradients it produces for its inputs (weight gradients are plan/'s business).
  Bytes bwd_grad_bytes = 0;
};

// A tensor an op keeps for its backward. Dropout masks are 1 byte per element (torch.bool);
// other tensors are e bytes per element unless `what` says fp32.
struct SavedTensor {
  std::string what;  // "input", "q", "softmax_out", "dropout_mask", ...
  Bytes bytes = 0;
};

// Op::inputs entries that are not op indices: the micro-batch's data.
inline constexpr int kTokenIdsInput = -1;  // the int32 token ids (t), read by the embedding
inline constexpr int kTargetsInput = -2;   // the int32 next-token targets (t), read by the loss

struct Op {
  std::string name;  // stable: "embed", "layers.3.attn.qkv", "lm_head", "loss" (op_graph.h)
  OpKind kind = OpKind::kLinear;
  int layer = 0;               // kEmbeddingLayer (-1), 0..L-1, or L for the final norm, head, loss
  std::vector<int> param_ids;  // ids in parameter_tensors(spec), in the order the op reads them
  // Dataflow: the indices (in the forward op list) of the ops whose outputs this op reads, in
  // argument order, each smaller than the op's own index; kTokenIdsInput / kTargetsInput for the
  // batch's data. An executor runs the list generically from these (op_graph.h lists them per
  // op); backward sends the gradient of each input back to the op that produced it.
  std::vector<int> inputs;
  OpShape shape;
  OpCosts cost;
  std::vector<SavedTensor> saved;

  Bytes saved_bytes() const;
};

}  // namespace zs::models
