#include "models/ops.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace zs::models {

std::string_view op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::kEmbedding:
      return "embedding";
    case OpKind::kNorm:
      return "norm";
    case OpKind::kLinear:
      return "linear";
    case OpKind::kRotary:
      return "rotary";
    case OpKind::kAttention:
      return "attention";
    case OpKind::kFlashAttention:
      return "flash_attention";
    case OpKind::kActivation:
      return "activation";
    case OpKind::kSwiGlu:
      return "swiglu";
    case OpKind::kResidualAdd:
      return "residual_add";
    case OpKind::kCrossEntropy:
      return "cross_entropy";
    case OpKind::kMoeRoute:
      return "moe_route";
    case OpKind::kMoeExperts:
      return "moe_experts";
    case OpKind::kMoeCombine:
      return "moe_combine";
  }
  ZS_UNREACHABLE();
}

Status validate_workload(const ModelSpec& spec, const Workload& w) {
  auto bad = [&](std::string_view field, std::int64_t value, const std::string& allowed) {
    return Status::invalid_argument("workload for model \"" + spec.name +
                                    "\": " + std::string(field) + " = " + std::to_string(value) +
                                    " is not allowed; expected " + allowed);
  };
  if (w.micro_batch < 1) return bad("micro_batch", w.micro_batch, "an integer >= 1");
  if (w.seq_len < 1) return bad("seq_len", w.seq_len, "an integer >= 1");
  if (w.target_len < 0) return bad("target_len", w.target_len, "0 (as seq_len) or an integer >= 1");
  if (w.act_bytes != 2 && w.act_bytes != 4) {
    return bad("act_bytes", w.act_bytes, "2 (bf16/fp16) or 4 (fp32)");
  }
  if (spec.position == PositionKind::kLearned && w.seq_len > spec.max_position_embeddings) {
    return bad("seq_len", w.seq_len,
               "at most max_position_embeddings = " + std::to_string(spec.max_position_embeddings) +
                   " (learned position embeddings have no row past it)");
  }
  if (spec.position == PositionKind::kLearned && is_encoder_decoder(spec) &&
      w.decoder_len() > spec.max_position_embeddings) {
    return bad("target_len", w.decoder_len(),
               "at most max_position_embeddings = " + std::to_string(spec.max_position_embeddings) +
                   " (the decoder's learned positions have no row past it)");
  }
  return check_workload_size(spec, w);
}

Status check_workload_size(const ModelSpec& spec, const Workload& w) {
  // Upper bounds, in long double, of what the graph and the plan count in int64. FLOPs are
  // summed in int64 per op and per block (a layer's ops, or the LM head), so the bound is the
  // largest block's forward + backward: at most 8 x tokens x its GEMM weights (6 is exact) plus
  // 16 x b x s^2 x q for attention's products (forward 4, backward with recomputation up to 10).
  // Bytes are summed over the whole micro-step (the memory replay): at most 16 bytes per token
  // per unit of each layer's widths, 16 per token per vocabulary entry (fp32 logits and their
  // gradient) and 8 per eager attention score.
  using F = long double;
  // An encoder-decoder's decoder may run over more tokens than its encoder: the longer bounds.
  const F b = static_cast<F>(w.micro_batch);
  const F s =
      static_cast<F>(is_encoder_decoder(spec) ? std::max(w.seq_len, w.decoder_len()) : w.seq_len);
  const F t = b * s;
  const F h = static_cast<F>(spec.hidden_size), q = static_cast<F>(spec.q_dim());
  const F kv = static_cast<F>(spec.kv_dim()), inner = static_cast<F>(spec.intermediate_size);
  const F vocab = static_cast<F>(spec.vocab_size), layers = static_cast<F>(total_layers(spec));
  const F layer_weights = h * (q + 2 * kv) + q * h + 3 * h * inner;
  const F flops = 8 * t * std::max(layer_weights, vocab * h) + 16 * b * s * s * q;
  const F bytes = 16 * t * (layers * (h + inner + q + kv) + vocab) +
                  8 * layers * b * static_cast<F>(spec.num_heads) * s * s;
  constexpr F kLimit = static_cast<F>(std::int64_t{1} << 62);
  if (flops < kLimit && bytes < kLimit) return Status::ok();
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "workload for model \"%s\": micro-batch %lld x seq_len %lld is too large to "
                "count: up to %.2Le FLOPs in one layer or %.2Le bytes of activations per "
                "micro-step, past the 2^62 (4.6e18) zerosim counts in 64-bit integers; expected a "
                "smaller micro-batch or sequence",
                spec.name.c_str(), static_cast<long long>(w.micro_batch),
                static_cast<long long>(w.seq_len), flops, bytes);
  return Status::invalid_argument(buf);
}

Bytes Op::saved_bytes() const {
  Bytes total = 0;
  for (const SavedTensor& t : saved) total += t.bytes;
  return total;
}

}  // namespace zs::models
