// CudaModelRunner's per-op forward and backward: one kernels/cuda call (or two) per OpKind,
// wired by Op::inputs exactly as exec/model_runner_ops.cc wires the CPU kernels. Buffer shapes
// are in models/op_graph.h ("Dataflow"); the saved tensors are ModelRunner's (SavedLayout
// there), split by dtype: row statistics and lse in OpState::stats (fp32), GPT-2's split q, k,
// v in OpState::qkv (T).
#include <cstddef>

#include "exec/cuda/cuda_model_runner.h"
#include "exec/model_runner.h"
#include "kernels/cuda/activation.h"
#include "kernels/cuda/attention.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/cross_entropy.h"
#include "kernels/cuda/embedding.h"
#include "kernels/cuda/linear.h"
#include "kernels/cuda/norm.h"
#include "kernels/cuda/rotary.h"

namespace zs::exec {
namespace {

namespace cuda = kernels::cuda;
using models::Op;
using models::OpKind;

std::size_t idx(std::int64_t i) { return static_cast<std::size_t>(i); }

bool is_attention(OpKind k) { return k == OpKind::kAttention || k == OpKind::kFlashAttention; }

// fp32 statistics an op saves: LayerNorm mean (t) then rstd (t); RMSNorm rstd (t); attention
// lse (b, a, s).
std::int64_t stats_numel(const Op& op) {
  if (op.kind == OpKind::kNorm) {
    const auto& s = std::get<models::NormShape>(op.shape);
    return (s.kind == models::NormKind::kLayerNorm ? 2 : 1) * s.rows;
  }
  if (!is_attention(op.kind)) return 0;
  const auto& s = std::get<models::AttentionShape>(op.shape);
  return s.batch * s.heads * s.seq;
}

// GPT-2's fused qkv split for the attention kernel: q (t, a·d) then k and v (t, g·d) each.
struct QkvLayout {
  std::int64_t q = 0;
  std::int64_t kv = 0;  // each of k and v
  std::int64_t numel() const { return q + 2 * kv; }
};
QkvLayout qkv_layout(const Op& op) {
  if (!is_attention(op.kind) || op.inputs.size() != 1) return {};
  const auto& s = std::get<models::AttentionShape>(op.shape);
  const std::int64_t t = s.batch * s.seq;
  return {.q = t * s.heads * s.head_dim, .kv = t * s.kv_heads * s.head_dim};
}

// Copies t rows of `cols` elements between row-major arrays whose rows are `src_cols` and
// `dst_cols` elements apart, on the stream (GPT-2's [q | k | v] rows split and merged).
template <class T>
void copy_rows(T* dst, std::int64_t dst_cols, const T* src, std::int64_t src_cols,
               std::int64_t cols, std::int64_t rows, cudaStream_t stream) {
  ZS_CUDA_CHECK(cudaMemcpy2DAsync(dst, idx(dst_cols) * sizeof(T), src, idx(src_cols) * sizeof(T),
                                  idx(cols) * sizeof(T), idx(rows), cudaMemcpyDeviceToDevice,
                                  stream));
}

}  // namespace

template <class T>
Status CudaModelRunner<T>::forward_op(int i, bool recompute) {
  const Op& op = ops_[idx(i)];
  OpState& st = state_[idx(i)];
  // Allocated by the first forward (and again after a drop or a backward freed them).
  if (!st.out.allocated()) {
    ZS_ASSIGN_OR_RETURN(st.out, alloc<T>(ModelRunner::output_numel(op)));
  }
  if (!st.stats.allocated()) {
    ZS_ASSIGN_OR_RETURN(st.stats, alloc<float>(stats_numel(op)));
  }
  if (!st.qkv.allocated()) {
    ZS_ASSIGN_OR_RETURN(st.qkv, alloc<T>(qkv_layout(op).numel()));
  }
  T* y = st.out.get();
  float* stats = st.stats.get();
  const auto in = [&](std::size_t k) { return out(op.inputs[k]); };
  switch (op.kind) {
    case OpKind::kEmbedding:
      cuda::embedding_forward<T>(std::get<models::EmbeddingShape>(op.shape), workload_.seq_len,
                                 tokens_.get(), weight(op, 0), weight(op, 1), y, stream_);
      return Status::ok();
    case OpKind::kNorm: {
      const auto& shape = std::get<models::NormShape>(op.shape);
      const bool layer_norm = shape.kind == models::NormKind::kLayerNorm;
      cuda::norm_forward<T>(shape, spec_.norm_eps, in(0), weight(op, 0), weight(op, 1), y,
                            layer_norm ? stats : nullptr, stats + (layer_norm ? shape.rows : 0),
                            stream_);
      return Status::ok();
    }
    case OpKind::kLinear:
      cuda::linear_forward<T>(*lt_, std::get<models::GemmShape>(op.shape), in(0), weight(op, 0),
                              weight(op, 1), y, stream_);
      return Status::ok();
    case OpKind::kRotary: {
      const std::int64_t t = workload_.tokens(), nq = t * spec_.q_dim();
      copy(y, in(0), nq);
      copy(y + nq, in(1), t * spec_.kv_dim());
      cuda::rotary_forward<T>(attention_shape(), spec_.rope_theta, y, y + nq, stream_);
      return Status::ok();
    }
    case OpKind::kAttention:
    case OpKind::kFlashAttention:
      return forward_attention(i);
    case OpKind::kActivation:
      cuda::gelu_forward<T>(std::get<models::ElementwiseShape>(op.shape), in(0), y, stream_);
      return Status::ok();
    case OpKind::kMoeRoute:  // check_runnable refuses a mixture of experts
    case OpKind::kMoeExperts:
    case OpKind::kMoeCombine:
      ZS_UNREACHABLE();
    case OpKind::kSwiGlu:
      cuda::swiglu_forward<T>(std::get<models::ElementwiseShape>(op.shape), in(0), in(1), y,
                              stream_);
      return Status::ok();
    case OpKind::kResidualAdd:
      cuda::residual_forward<T>(std::get<models::ElementwiseShape>(op.shape), in(0), in(1), y,
                                stream_);
      return Status::ok();
    case OpKind::kCrossEntropy: {
      const auto& shape = std::get<models::CrossEntropyShape>(op.shape);
      ZS_ASSIGN_OR_RETURN(DeviceArray<float> losses, alloc<float>(shape.tokens));  // (t)
      cuda::cross_entropy_forward<T>(shape, in(0), targets_.get(), losses.get(), last_loss_.get(),
                                     stream_);
      has_loss_ = true;
      if (!recompute) ZS_RETURN_IF_ERROR(record_forward_loss());
      return Status::ok();
    }
  }
  ZS_UNREACHABLE();
}

template <class T>
Status CudaModelRunner<T>::forward_attention(int i) {
  const Op& op = ops_[idx(i)];
  OpState& st = state_[idx(i)];
  const std::int64_t t = workload_.tokens();
  const T* q = nullptr;
  const T* k = nullptr;
  const T* v = nullptr;
  if (op.inputs.size() == 1) {  // GPT-2: split the fused qkv output
    const QkvLayout l = qkv_layout(op);
    const std::int64_t qd = spec_.q_dim(), kvd = spec_.kv_dim(), row = qd + 2 * kvd;
    const T* fused = out(op.inputs[0]);
    T* split = st.qkv.get();
    copy_rows(split, qd, fused, row, qd, t, stream_);
    copy_rows(split + l.q, kvd, fused + qd, row, kvd, t, stream_);
    copy_rows(split + l.q + l.kv, kvd, fused + qd + kvd, row, kvd, t, stream_);
    q = split;
    k = split + l.q;
    v = split + l.q + l.kv;
  } else {  // llama family: {rotary (q then k), v_proj}
    q = out(op.inputs[0]);
    k = q + t * spec_.q_dim();
    v = out(op.inputs[1]);
  }
  cuda::attention_forward<T>(std::get<models::AttentionShape>(op.shape), q, k, v, st.out.get(),
                             st.stats.get(), stream_);
  return Status::ok();
}

template <class T>
Status CudaModelRunner<T>::backward_op(int i) {
  const Op& op = ops_[idx(i)];
  OpState& st = state_[idx(i)];
  if (ledger_.readers(i) == 0 && !st.dout.allocated()) {
    // No op reads this output: its gradient is zero (ModelRunner's dout starts at zero).
    ZS_ASSIGN_OR_RETURN(st.dout, alloc<T>(st.out.size()));
    if (st.dout.size() > 0) {
      ZS_CUDA_CHECK(cudaMemsetAsync(st.dout.get(), 0, idx(st.dout.bytes()), stream_));
    }
  }
  const T* dy = st.dout.get();
  const float* stats = st.stats.get();
  const auto in = [&](std::size_t k) { return out(op.inputs[k]); };
  switch (op.kind) {
    case OpKind::kEmbedding: {
      const auto& shape = std::get<models::EmbeddingShape>(op.shape);
      const std::int64_t bytes = cuda::embedding_backward_workspace_bytes(shape);
      ZS_ASSIGN_OR_RETURN(DeviceArray<std::byte> workspace, alloc<std::byte>(bytes));
      cuda::embedding_backward<T>(shape, workload_.seq_len, tokens_.get(), dy, weight_grad(op, 0),
                                  weight_grad(op, 1), workspace.get(), bytes, stream_);
      return Status::ok();
    }
    case OpKind::kNorm: {
      const auto& shape = std::get<models::NormShape>(op.shape);
      const bool layer_norm = shape.kind == models::NormKind::kLayerNorm;
      ZS_ASSIGN_OR_RETURN(const InputGrad dx, input_grad(op.inputs[0]));
      cuda::norm_backward<T>(shape, dy, in(0), weight(op, 0), layer_norm ? stats : nullptr,
                             stats + (layer_norm ? shape.rows : 0), dx.data, weight_grad(op, 0),
                             weight_grad(op, 1), stream_);
      finish(dx);
      return Status::ok();
    }
    case OpKind::kLinear: {
      ZS_ASSIGN_OR_RETURN(const InputGrad dx, input_grad(op.inputs[0]));
      cuda::linear_backward<T>(*lt_, std::get<models::GemmShape>(op.shape), dy, in(0),
                               weight(op, 0), dx.data, weight_grad(op, 0), weight_grad(op, 1),
                               stream_);
      finish(dx);
      return Status::ok();
    }
    case OpKind::kRotary:
      return backward_rotary(i);
    case OpKind::kAttention:
    case OpKind::kFlashAttention:
      return backward_attention(i);
    case OpKind::kActivation: {
      ZS_ASSIGN_OR_RETURN(const InputGrad dx, input_grad(op.inputs[0]));
      cuda::gelu_backward<T>(std::get<models::ElementwiseShape>(op.shape), in(0), dy, dx.data,
                             stream_);
      finish(dx);
      return Status::ok();
    }
    case OpKind::kMoeRoute:  // check_runnable refuses a mixture of experts
    case OpKind::kMoeExperts:
    case OpKind::kMoeCombine:
      ZS_UNREACHABLE();
    case OpKind::kSwiGlu: {
      ZS_ASSIGN_OR_RETURN(const InputGrad dgate, input_grad(op.inputs[0]));
      ZS_ASSIGN_OR_RETURN(const InputGrad dup, input_grad(op.inputs[1]));
      cuda::swiglu_backward<T>(std::get<models::ElementwiseShape>(op.shape), in(0), in(1), dy,
                               dgate.data, dup.data, stream_);
      finish(dgate);
      finish(dup);
      return Status::ok();
    }
    case OpKind::kResidualAdd:
      // The identity to both branches (kernels/cuda/activation.h has no residual_backward).
      for (std::size_t k = 0; k < 2; ++k) {
        ZS_ASSIGN_OR_RETURN(const InputGrad dx, input_grad(op.inputs[k]));
        copy(dx.data, dy, dx.numel);
        finish(dx);
      }
      return Status::ok();
    case OpKind::kCrossEntropy: {
      ZS_ASSIGN_OR_RETURN(const InputGrad dlogits, input_grad(op.inputs[0]));
      cuda::cross_entropy_backward<T>(std::get<models::CrossEntropyShape>(op.shape), in(0),
                                      targets_.get(), loss_scale_, dlogits.data, stream_);
      finish(dlogits);
      return Status::ok();
    }
  }
  ZS_UNREACHABLE();
}

template <class T>
Status CudaModelRunner<T>::backward_rotary(int i) {
  const Op& op = ops_[idx(i)];
  const T* dy = state_[idx(i)].dout.get();
  const std::int64_t t = workload_.tokens(), nq = t * spec_.q_dim();
  ZS_ASSIGN_OR_RETURN(const InputGrad dq, input_grad(op.inputs[0]));
  ZS_ASSIGN_OR_RETURN(const InputGrad dk, input_grad(op.inputs[1]));
  copy(dq.data, dy, nq);
  copy(dk.data, dy + nq, dk.numel);
  cuda::rotary_backward<T>(attention_shape(), spec_.rope_theta, dq.data, dk.data, stream_);
  finish(dq);
  finish(dk);
  return Status::ok();
}

template <class T>
Status CudaModelRunner<T>::backward_attention(int i) {
  const Op& op = ops_[idx(i)];
  const OpState& st = state_[idx(i)];
  const auto& shape = std::get<models::AttentionShape>(op.shape);
  const float* lse = st.stats.get();
  if (op.inputs.size() == 1) {  // GPT-2: gradients of the split q, k, v merged into d(qkv)
    const QkvLayout l = qkv_layout(op);
    const T* q = st.qkv.get();
    ZS_ASSIGN_OR_RETURN(DeviceArray<T> dsplit, alloc<T>(l.numel()));  // dq, dk, dv
    T* dq = dsplit.get();
    cuda::attention_backward<T>(shape, q, q + l.q, q + l.q + l.kv, st.out.get(), lse, st.dout.get(),
                                dq, dq + l.q, dq + l.q + l.kv, stream_);
    ZS_ASSIGN_OR_RETURN(const InputGrad dqkv, input_grad(op.inputs[0]));
    const std::int64_t t = workload_.tokens();
    const std::int64_t qd = spec_.q_dim(), kvd = spec_.kv_dim(), row = qd + 2 * kvd;
    copy_rows(dqkv.data, row, dq, qd, qd, t, stream_);
    copy_rows(dqkv.data + qd, row, dq + l.q, kvd, kvd, t, stream_);
    copy_rows(dqkv.data + qd + kvd, row, dq + l.q + l.kv, kvd, kvd, t, stream_);
    finish(dqkv);
    return Status::ok();
  }
  // llama family: d(rotary output) is dq then dk; dv goes to v_proj.
  const std::int64_t nq = workload_.tokens() * spec_.q_dim();
  const T* q = out(op.inputs[0]);
  ZS_ASSIGN_OR_RETURN(const InputGrad dqk, input_grad(op.inputs[0]));
  ZS_ASSIGN_OR_RETURN(const InputGrad dv, input_grad(op.inputs[1]));
  cuda::attention_backward<T>(shape, q, q + nq, out(op.inputs[1]), st.out.get(), lse, st.dout.get(),
                              dqk.data, dqk.data + nq, dv.data, stream_);
  finish(dqk);
  finish(dv);
  return Status::ok();
}

#define ZS_INSTANTIATE(T)                                     \
  template Status CudaModelRunner<T>::forward_op(int, bool);  \
  template Status CudaModelRunner<T>::forward_attention(int); \
  template Status CudaModelRunner<T>::backward_op(int);       \
  template Status CudaModelRunner<T>::backward_rotary(int);   \
  template Status CudaModelRunner<T>::backward_attention(int);
ZS_INSTANTIATE(float)
ZS_INSTANTIATE(__nv_bfloat16)
ZS_INSTANTIATE(__half)
#undef ZS_INSTANTIATE

}  // namespace zs::exec
