#include "models/ops.h"

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
  if (w.act_bytes != 2 && w.act_bytes != 4) {
    return bad("act_bytes", w.act_bytes, "2 (bf16/fp16) or 4 (fp32)");
  }
  if (spec.position == PositionKind::kLearned && w.seq_len > spec.max_position_embeddings) {
    return bad("seq_len", w.seq_len,
               "at most max_position_embeddings = " + std::to_string(spec.max_position_embeddings) +
                   " (learned position embeddings have no row past it)");
  }
  return Status::ok();
}

Bytes Op::saved_bytes() const {
  Bytes total = 0;
  for (const SavedTensor& t : saved) total += t.bytes;
  return total;
}

}  // namespace zs::models
