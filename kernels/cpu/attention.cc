#include "kernels/cpu/attention.h"

#include <Eigen/Core>
#include <cmath>
#include <cstdint>

#include "common/check.h"

namespace zs::kernels::cpu {
namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
// One head's (s, d) slice of a (b, s, heads, d) tensor: rows are tokens, heads * d apart.
using ConstHead = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Head = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;

// Index arithmetic for one (batch, query head) pair.
struct HeadView {
  std::int64_t s, d, heads, kv_heads;
  std::int64_t batch, head;

  std::int64_t kv_head() const { return head / (heads / kv_heads); }
  // Offset of (batch, token 0, head, 0) in a (b, s, heads, d) tensor.
  std::int64_t q_offset() const { return (batch * s * heads + head) * d; }
  std::int64_t kv_offset() const { return (batch * s * kv_heads + kv_head()) * d; }
  std::int64_t lse_offset() const { return (batch * heads + head) * s; }

  ConstHead q_like(const float* base) const {
    return ConstHead(base + q_offset(), s, d, Eigen::OuterStride<>(heads * d));
  }
  Head q_like(float* base) const {
    return Head(base + q_offset(), s, d, Eigen::OuterStride<>(heads * d));
  }
  ConstHead kv_like(const float* base) const {
    return ConstHead(base + kv_offset(), s, d, Eigen::OuterStride<>(kv_heads * d));
  }
  Head kv_like(float* base) const {
    return Head(base + kv_offset(), s, d, Eigen::OuterStride<>(kv_heads * d));
  }
};

void check_shape(const models::AttentionShape& a) {
  ZS_CHECK(a.batch >= 1 && a.seq >= 1 && a.heads >= 1 && a.kv_heads >= 1 && a.head_dim >= 1);
  ZS_CHECK_MSG(a.heads % a.kv_heads == 0, "query heads must be a multiple of kv heads");
  ZS_CHECK_MSG(a.dropout == 0.0, "attention kernels do not implement dropout");
}

float softmax_scale(const models::AttentionShape& a) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(a.head_dim)));
}

// Keys visible to query row i.
std::int64_t visible_keys(const models::AttentionShape& a, std::int64_t i) {
  return a.causal ? i + 1 : a.seq;
}

// One (batch, head): out rows and lse for every query. scores: scratch of s floats.
void forward_head(const models::AttentionShape& a, const HeadView& hv, const float* q,
                  const float* k, const float* v, float* out, float* lse, Eigen::VectorXf& scores) {
  const ConstHead qh = hv.q_like(q);
  const ConstHead kh = hv.kv_like(k);
  const ConstHead vh = hv.kv_like(v);
  Head oh = hv.q_like(out);
  float* lse_row = lse + hv.lse_offset();
  const float scale = softmax_scale(a);
  for (std::int64_t i = 0; i < a.seq; ++i) {
    const std::int64_t n = visible_keys(a, i);
    auto s_i = scores.head(n);
    s_i.noalias() = kh.topRows(n) * qh.row(i).transpose();
    s_i *= scale;
    const float row_max = s_i.maxCoeff();
    double sum = 0.0;  // the softmax normaliser, in double over up to s terms
    for (std::int64_t j = 0; j < n; ++j) {
      s_i[j] = std::exp(s_i[j] - row_max);
      sum += s_i[j];
    }
    oh.row(i).noalias() = (vh.topRows(n).transpose() * s_i).transpose();
    oh.row(i) *= static_cast<float>(1.0 / sum);
    lse_row[i] = static_cast<float>(static_cast<double>(row_max) + std::log(sum));
  }
}

// One (batch, query head): writes its dq rows, adds into its kv head's dk and dv rows.
// p, ds: scratch of s floats each.
void backward_head(const models::AttentionShape& a, const HeadView& hv, const float* q,
                   const float* k, const float* v, const float* out, const float* lse,
                   const float* dout, float* dq, float* dk, float* dv, Eigen::VectorXf& p,
                   Eigen::VectorXf& ds) {
  const ConstHead qh = hv.q_like(q);
  const ConstHead kh = hv.kv_like(k);
  const ConstHead vh = hv.kv_like(v);
  const ConstHead oh = hv.q_like(out);
  const ConstHead doh = hv.q_like(dout);
  Head dqh = hv.q_like(dq);
  Head dkh = hv.kv_like(dk);
  Head dvh = hv.kv_like(dv);
  const float* lse_row = lse + hv.lse_offset();
  const float scale = softmax_scale(a);
  for (std::int64_t i = 0; i < a.seq; ++i) {
    const std::int64_t n = visible_keys(a, i);
    auto p_i = p.head(n);
    auto ds_i = ds.head(n);
    // P[i][:] from the saved log-sum-exp: no row max or normaliser to recompute.
    p_i.noalias() = kh.topRows(n) * qh.row(i).transpose();
    p_i = (p_i.array() * scale - lse_row[i]).exp().matrix();
    // D_i = dout_i . out_i equals sum_j P[i][j] (dout_i . v_j), the softmax Jacobian's term.
    const float d_i = doh.row(i).dot(oh.row(i));
    ds_i.noalias() = vh.topRows(n) * doh.row(i).transpose();
    ds_i = (p_i.array() * (ds_i.array() - d_i)).matrix();
    dqh.row(i).noalias() = scale * (kh.topRows(n).transpose() * ds_i).transpose();
    ds_i *= scale;
    dkh.topRows(n).noalias() += ds_i * qh.row(i);
    dvh.topRows(n).noalias() += p_i * doh.row(i);
  }
}

}  // namespace

void attention_forward(const models::AttentionShape& shape, const float* q, const float* k,
                       const float* v, float* out, float* lse) {
  check_shape(shape);
  ZS_CHECK(q != nullptr && k != nullptr && v != nullptr && out != nullptr && lse != nullptr);
  Eigen::VectorXf scores(shape.seq);
  for (std::int64_t b = 0; b < shape.batch; ++b) {
    for (std::int64_t h = 0; h < shape.heads; ++h) {
      const HeadView hv{shape.seq, shape.head_dim, shape.heads, shape.kv_heads, b, h};
      forward_head(shape, hv, q, k, v, out, lse, scores);
    }
  }
}

void attention_backward(const models::AttentionShape& shape, const float* q, const float* k,
                        const float* v, const float* out, const float* lse, const float* dout,
                        float* dq, float* dk, float* dv) {
  check_shape(shape);
  ZS_CHECK(q != nullptr && k != nullptr && v != nullptr && out != nullptr && lse != nullptr &&
           dout != nullptr && dq != nullptr && dk != nullptr && dv != nullptr);
  // dk and dv collect contributions from every query head of their group: start from zero.
  const std::int64_t kv_numel = shape.batch * shape.seq * shape.kv_heads * shape.head_dim;
  Eigen::Map<Eigen::VectorXf>(dk, kv_numel).setZero();
  Eigen::Map<Eigen::VectorXf>(dv, kv_numel).setZero();
  Eigen::VectorXf p(shape.seq), ds(shape.seq);
  for (std::int64_t b = 0; b < shape.batch; ++b) {
    for (std::int64_t h = 0; h < shape.heads; ++h) {
      const HeadView hv{shape.seq, shape.head_dim, shape.heads, shape.kv_heads, b, h};
      backward_head(shape, hv, q, k, v, out, lse, dout, dq, dk, dv, p, ds);
    }
  }
}

}  // namespace zs::kernels::cpu
