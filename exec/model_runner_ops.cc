// ModelRunner's per-op forward and backward: one kernels/cpu call (or two) per OpKind, wired by
// Op::inputs. Buffer shapes are in models/op_graph.h ("Dataflow") and in saved_layout() below.
#include <algorithm>

#include "exec/model_runner.h"
#include "kernels/cpu/activation.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/cross_entropy.h"
#include "kernels/cpu/embedding.h"
#include "kernels/cpu/linear.h"
#include "kernels/cpu/norm.h"
#include "kernels/cpu/rotary.h"

namespace zs::exec {
namespace {

namespace cpu = kernels::cpu;
using models::Op;
using models::OpKind;

std::size_t idx(std::int64_t i) { return static_cast<std::size_t>(i); }

bool is_attention(OpKind k) { return k == OpKind::kAttention || k == OpKind::kFlashAttention; }

// What an op's kernel keeps beyond its inputs, back to back in OpState::saved:
//   norms      LayerNorm: mean (t), rstd (t); RMSNorm: rstd (t)
//   attention  lse (b, a, s); reading GPT-2's fused qkv also q (t, a·d), k (t, g·d), v (t, g·d)
//              copied out of it (the kernel reads separate contiguous tensors)
struct SavedLayout {
  std::int64_t stats = 0;  // the norm statistics, or the attention lse
  std::int64_t q = 0;
  std::int64_t kv = 0;  // each of k and v
  std::int64_t numel() const { return stats + q + 2 * kv; }
};

SavedLayout saved_layout(const Op& op) {
  if (op.kind == OpKind::kNorm) {
    const auto& s = std::get<models::NormShape>(op.shape);
    return {.stats = (s.kind == models::NormKind::kLayerNorm ? 2 : 1) * s.rows};
  }
  if (!is_attention(op.kind)) return {};
  const auto& s = std::get<models::AttentionShape>(op.shape);
  SavedLayout l{.stats = s.batch * s.heads * s.seq};
  if (op.inputs.size() == 1) {  // the fused qkv projection
    const std::int64_t t = s.batch * s.seq;
    l.q = t * s.heads * s.head_dim;
    l.kv = t * s.kv_heads * s.head_dim;
  }
  return l;
}

// GPT-2's c_attn output (t, q + 2·kv), [q | k | v] per token, to separate (t, q), (t, kv),
// (t, kv) tensors (q, kv: element counts per token), and the gradients back.
void split_qkv(std::int64_t t, std::int64_t q, std::int64_t kv, const float* qkv, float* q_out,
               float* k_out, float* v_out) {
  for (std::int64_t i = 0; i < t; ++i) {
    const float* row = qkv + i * (q + 2 * kv);
    std::copy_n(row, q, q_out + i * q);
    std::copy_n(row + q, kv, k_out + i * kv);
    std::copy_n(row + q + kv, kv, v_out + i * kv);
  }
}

void merge_qkv(std::int64_t t, std::int64_t q, std::int64_t kv, const float* dq, const float* dk,
               const float* dv, float* dqkv) {
  for (std::int64_t i = 0; i < t; ++i) {
    float* row = dqkv + i * (q + 2 * kv);
    std::copy_n(dq + i * q, q, row);
    std::copy_n(dk + i * kv, kv, row + q);
    std::copy_n(dv + i * kv, kv, row + q + kv);
  }
}

}  // namespace

std::int64_t ModelRunner::output_numel(const Op& op) {
  switch (op.kind) {
    case OpKind::kEmbedding: {
      const auto& s = std::get<models::EmbeddingShape>(op.shape);
      return s.tokens * s.hidden;
    }
    case OpKind::kNorm: {
      const auto& s = std::get<models::NormShape>(op.shape);
      return s.rows * s.cols;
    }
    case OpKind::kLinear: {
      const auto& s = std::get<models::GemmShape>(op.shape);
      return s.m * s.n;
    }
    case OpKind::kAttention:
    case OpKind::kFlashAttention: {
      const auto& s = std::get<models::AttentionShape>(op.shape);
      return s.batch * s.seq * s.heads * s.head_dim;
    }
    case OpKind::kMoeRoute:  // check_runnable refuses a mixture of experts
    case OpKind::kMoeExperts:
    case OpKind::kMoeCombine:
      ZS_UNREACHABLE();
    case OpKind::kRotary:
    case OpKind::kActivation:
    case OpKind::kSwiGlu:
    case OpKind::kResidualAdd:
      return std::get<models::ElementwiseShape>(op.shape).numel;
    case OpKind::kCrossEntropy:
      return 0;  // a scalar, kept in loss_
  }
  ZS_UNREACHABLE();
}

std::int64_t ModelRunner::saved_numel(const Op& op) { return saved_layout(op).numel(); }

void ModelRunner::finish(const InputGrad& g) {
  if (g.data == g.target) return;
  for (std::int64_t j = 0; j < g.numel; ++j) g.target[j] += g.data[j];
}

void ModelRunner::forward_op(int i) {
  const Op& op = ops_[idx(i)];
  float* y = state_[idx(i)].out.data();
  float* saved = state_[idx(i)].saved.data();
  const auto in = [&](std::size_t k) { return out(op.inputs[k]); };
  switch (op.kind) {
    case OpKind::kEmbedding:
      cpu::embedding_forward(std::get<models::EmbeddingShape>(op.shape), workload_.seq_len,
                             tokens_.data(), weight(op, 0), weight(op, 1), y);
      return;
    case OpKind::kNorm: {
      const auto& shape = std::get<models::NormShape>(op.shape);
      const bool layer_norm = shape.kind == models::NormKind::kLayerNorm;
      float* rstd = saved + (layer_norm ? shape.rows : 0);
      cpu::norm_forward(shape, spec_.norm_eps, in(0), weight(op, 0), weight(op, 1), y,
                        layer_norm ? saved : nullptr, rstd);
      return;
    }
    case OpKind::kLinear:
      cpu::linear_forward(std::get<models::GemmShape>(op.shape), in(0), weight(op, 0),
                          weight(op, 1), y);
      return;
    case OpKind::kRotary: {
      const std::int64_t t = workload_.tokens(), nq = t * spec_.q_dim();
      std::copy_n(in(0), nq, y);
      std::copy_n(in(1), t * spec_.kv_dim(), y + nq);
      cpu::rotary_forward(attention_shape(), spec_.rope_theta, y, y + nq);
      return;
    }
    case OpKind::kAttention:
    case OpKind::kFlashAttention:
      forward_attention(i);
      return;
    case OpKind::kActivation:
      cpu::gelu_forward(std::get<models::ElementwiseShape>(op.shape), in(0), y);
      return;
    case OpKind::kMoeRoute:  // check_runnable refuses a mixture of experts
    case OpKind::kMoeExperts:
    case OpKind::kMoeCombine:
      ZS_UNREACHABLE();
    case OpKind::kSwiGlu:
      cpu::swiglu_forward(std::get<models::ElementwiseShape>(op.shape), in(0), in(1), y);
      return;
    case OpKind::kResidualAdd:
      cpu::residual_forward(std::get<models::ElementwiseShape>(op.shape), in(0), in(1), y);
      return;
    case OpKind::kCrossEntropy:
      loss_ = cpu::cross_entropy_forward(std::get<models::CrossEntropyShape>(op.shape), in(0),
                                         targets_.data(), nullptr);
      return;
  }
  ZS_UNREACHABLE();
}

void ModelRunner::forward_attention(int i) {
  const Op& op = ops_[idx(i)];
  OpState& s = state_[idx(i)];
  const SavedLayout l = saved_layout(op);
  const std::int64_t t = workload_.tokens();
  float* lse = s.saved.data();
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  if (op.inputs.size() == 1) {  // GPT-2: split the fused qkv output
    float* sq = lse + l.stats;
    split_qkv(t, spec_.q_dim(), spec_.kv_dim(), out(op.inputs[0]), sq, sq + l.q, sq + l.q + l.kv);
    q = sq;
    k = sq + l.q;
    v = sq + l.q + l.kv;
  } else {  // llama family: {rotary (q then k), v_proj}
    q = out(op.inputs[0]);
    k = q + t * spec_.q_dim();
    v = out(op.inputs[1]);
  }
  cpu::attention_forward(std::get<models::AttentionShape>(op.shape), q, k, v, s.out.data(), lse);
}

void ModelRunner::backward_op(int i) {
  const Op& op = ops_[idx(i)];
  const float* dy = state_[idx(i)].dout.data();
  const float* saved = state_[idx(i)].saved.data();
  const auto in = [&](std::size_t k) { return out(op.inputs[k]); };
  switch (op.kind) {
    case OpKind::kEmbedding:
      cpu::embedding_backward(std::get<models::EmbeddingShape>(op.shape), workload_.seq_len,
                              tokens_.data(), dy, weight_grad(op, 0), weight_grad(op, 1));
      return;
    case OpKind::kNorm: {
      const auto& shape = std::get<models::NormShape>(op.shape);
      const bool layer_norm = shape.kind == models::NormKind::kLayerNorm;
      const InputGrad dx = input_grad(op.inputs[0], 0);
      cpu::norm_backward(shape, dy, in(0), weight(op, 0), layer_norm ? saved : nullptr,
                         saved + (layer_norm ? shape.rows : 0), dx.data, weight_grad(op, 0),
                         weight_grad(op, 1));
      finish(dx);
      return;
    }
    case OpKind::kLinear: {
      const InputGrad dx = input_grad(op.inputs[0], 0);
      cpu::linear_backward(std::get<models::GemmShape>(op.shape), dy, in(0), weight(op, 0), dx.data,
                           weight_grad(op, 0), weight_grad(op, 1));
      finish(dx);
      return;
    }
    case OpKind::kRotary:
      backward_rotary(i);
      return;
    case OpKind::kAttention:
    case OpKind::kFlashAttention:
      backward_attention(i);
      return;
    case OpKind::kActivation: {
      const InputGrad dx = input_grad(op.inputs[0], 0);
      cpu::gelu_backward(std::get<models::ElementwiseShape>(op.shape), in(0), dy, dx.data);
      finish(dx);
      return;
    }
    case OpKind::kMoeRoute:  // check_runnable refuses a mixture of experts
    case OpKind::kMoeExperts:
    case OpKind::kMoeCombine:
      ZS_UNREACHABLE();
    case OpKind::kSwiGlu: {
      const InputGrad dgate = input_grad(op.inputs[0], 0);
      const InputGrad dup = input_grad(op.inputs[1], 1);
      cpu::swiglu_backward(std::get<models::ElementwiseShape>(op.shape), in(0), in(1), dy,
                           dgate.data, dup.data);
      finish(dgate);
      finish(dup);
      return;
    }
    case OpKind::kResidualAdd:
      // The identity to both branches (kernels/cpu/activation.h has no residual_backward).
      for (std::size_t k = 0; k < 2; ++k) {
        const InputGrad dx = input_grad(op.inputs[k], static_cast<int>(k));
        std::copy_n(dy, dx.numel, dx.data);
        finish(dx);
      }
      return;
    case OpKind::kCrossEntropy: {
      const InputGrad dlogits = input_grad(op.inputs[0], 0);
      cpu::cross_entropy_backward(std::get<models::CrossEntropyShape>(op.shape), in(0),
                                  targets_.data(), loss_scale_, dlogits.data);
      finish(dlogits);
      return;
    }
  }
  ZS_UNREACHABLE();
}

void ModelRunner::backward_rotary(int i) {
  const Op& op = ops_[idx(i)];
  const float* dy = state_[idx(i)].dout.data();
  const std::int64_t t = workload_.tokens(), nq = t * spec_.q_dim();
  const InputGrad dq = input_grad(op.inputs[0], 0);
  const InputGrad dk = input_grad(op.inputs[1], 1);
  std::copy_n(dy, nq, dq.data);
  std::copy_n(dy + nq, dk.numel, dk.data);
  cpu::rotary_backward(attention_shape(), spec_.rope_theta, dq.data, dk.data);
  finish(dq);
  finish(dk);
}

void ModelRunner::backward_attention(int i) {
  const Op& op = ops_[idx(i)];
  const OpState& s = state_[idx(i)];
  const auto& shape = std::get<models::AttentionShape>(op.shape);
  const SavedLayout l = saved_layout(op);
  const float* lse = s.saved.data();
  if (op.inputs.size() == 1) {  // GPT-2: gradients of the split q, k, v merged into d(qkv)
    const float* q = lse + l.stats;
    float* dq = scratch(0, l.q + 2 * l.kv);
    cpu::attention_backward(shape, q, q + l.q, q + l.q + l.kv, s.out.data(), lse, s.dout.data(), dq,
                            dq + l.q, dq + l.q + l.kv);
    const InputGrad dqkv = input_grad(op.inputs[0], 1);
    merge_qkv(workload_.tokens(), spec_.q_dim(), spec_.kv_dim(), dq, dq + l.q, dq + l.q + l.kv,
              dqkv.data);
    finish(dqkv);
    return;
  }
  // llama family: d(rotary output) is dq then dk; dv goes to v_proj.
  const std::int64_t nq = workload_.tokens() * spec_.q_dim();
  const float* q = out(op.inputs[0]);
  const InputGrad dqk = input_grad(op.inputs[0], 0);
  const InputGrad dv = input_grad(op.inputs[1], 1);
  cpu::attention_backward(shape, q, q + nq, out(op.inputs[1]), s.out.data(), lse, s.dout.data(),
                          dqk.data, dqk.data + nq, dv.data);
  finish(dqk);
  finish(dv);
}

}  // namespace zs::exec
