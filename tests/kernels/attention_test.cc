#include "kernels/cpu/attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace zs::kernels::cpu {
namespace {

using models::AttentionShape;
using Vec = std::vector<float>;
using VecD = std::vector<double>;
using testing::bitwise_equal;
using testing::kv_numel;
using testing::normal_vector;
using testing::numeric_grad;
using testing::q_numel;

std::int64_t lse_numel(const AttentionShape& a) { return a.batch * a.heads * a.seq; }

struct Inputs {
  Vec q, k, v, dout;
};
Inputs random_inputs(const AttentionShape& a, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Inputs in;
  in.q = normal_vector(rng, q_numel(a));
  in.k = normal_vector(rng, kv_numel(a));
  in.v = normal_vector(rng, kv_numel(a));
  in.dout = normal_vector(rng, q_numel(a));
  return in;
}

struct Outputs {
  Vec out, lse, dq, dk, dv;
};
Outputs run_kernels(const AttentionShape& a, const Inputs& in) {
  Outputs o{Vec(q_numel(a)), Vec(lse_numel(a)), Vec(q_numel(a)), Vec(kv_numel(a)),
            Vec(kv_numel(a))};
  attention_forward(a, in.q.data(), in.k.data(), in.v.data(), o.out.data(), o.lse.data());
  attention_backward(a, in.q.data(), in.k.data(), in.v.data(), o.out.data(), o.lse.data(),
                     in.dout.data(), o.dq.data(), o.dk.data(), o.dv.data());
  return o;
}

// Naive oracle in double: the full masked s x s score matrix per (batch, head), softmax with
// its own row max, and the textbook softmax backward dS = P (dP - rowsum(P dP)) (not the
// FlashAttention-2 D = rowsum(dout out) identity the kernel uses).
struct Reference {
  VecD out, lse, dq, dk, dv;
};
Reference naive_reference(const AttentionShape& a, const Inputs& in) {
  const std::int64_t s = a.seq, d = a.head_dim, nh = a.heads, g = a.kv_heads;
  Reference r{VecD(q_numel(a)), VecD(lse_numel(a)), VecD(q_numel(a)), VecD(kv_numel(a), 0.0),
              VecD(kv_numel(a), 0.0)};
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  auto qi = [&](std::int64_t b, std::int64_t t, std::int64_t h) {
    return ((b * s + t) * nh + h) * d;
  };
  auto ki = [&](std::int64_t b, std::int64_t t, std::int64_t h) {
    return ((b * s + t) * g + h) * d;
  };
  for (std::int64_t b = 0; b < a.batch; ++b) {
    for (std::int64_t h = 0; h < nh; ++h) {
      const std::int64_t kh = h / (nh / g);
      VecD p(s * s, 0.0), dp(s * s, 0.0);
      for (std::int64_t i = 0; i < s; ++i) {
        VecD row(s, -std::numeric_limits<double>::infinity());
        double mx = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < s; ++j) {
          if (a.causal && j > i) continue;
          double dot = 0;
          for (std::int64_t c = 0; c < d; ++c)
            dot += double{in.q[qi(b, i, h) + c]} * in.k[ki(b, j, kh) + c];
          row[j] = scale * dot;
          mx = std::max(mx, row[j]);
        }
        double sum = 0;
        for (std::int64_t j = 0; j < s; ++j) sum += std::exp(row[j] - mx);
        r.lse[(b * nh + h) * s + i] = mx + std::log(sum);
        for (std::int64_t j = 0; j < s; ++j) p[i * s + j] = std::exp(row[j] - mx) / sum;
        for (std::int64_t c = 0; c < d; ++c) {
          double o = 0;
          for (std::int64_t j = 0; j < s; ++j) o += p[i * s + j] * in.v[ki(b, j, kh) + c];
          r.out[qi(b, i, h) + c] = o;
        }
        double pdp = 0;  // rowsum(P * dP)
        for (std::int64_t j = 0; j < s; ++j) {
          double dot = 0;
          for (std::int64_t c = 0; c < d; ++c)
            dot += double{in.dout[qi(b, i, h) + c]} * in.v[ki(b, j, kh) + c];
          dp[i * s + j] = dot;
          pdp += p[i * s + j] * dot;
        }
        for (std::int64_t j = 0; j < s; ++j) {
          const double dsij = p[i * s + j] * (dp[i * s + j] - pdp) * scale;
          for (std::int64_t c = 0; c < d; ++c) {
            r.dq[qi(b, i, h) + c] += dsij * in.k[ki(b, j, kh) + c];
            r.dk[ki(b, j, kh) + c] += dsij * in.q[qi(b, i, h) + c];
            r.dv[ki(b, j, kh) + c] += p[i * s + j] * in.dout[qi(b, i, h) + c];
          }
        }
      }
    }
  }
  return r;
}

double max_abs_diff(const Vec& got, const VecD& want) {
  double m = 0;
  for (std::size_t i = 0; i < got.size(); ++i) m = std::max(m, std::fabs(got[i] - want[i]));
  return m;
}
double max_abs(const VecD& x) {
  double m = 0;
  for (double v : x) m = std::max(m, std::fabs(v));
  return m;
}

std::vector<AttentionShape> configs() {
  std::vector<AttentionShape> out;
  for (bool causal : {true, false}) {
    for (std::int64_t kv : {4, 2, 1}) {  // MHA, GQA, MQA
      out.push_back({.batch = 2,
                     .seq = 9,
                     .heads = 4,
                     .kv_heads = kv,
                     .head_dim = 8,
                     .dropout = 0,
                     .causal = causal});
    }
  }
  return out;
}

// Tolerances against the double oracle: outputs and lse are O(1) sums of <= 9 products of
// fp32 values (observed error <= 4e-7): 2e-6 absolute. Gradients are O(1) sums over <= 9 keys
// and 4 query heads (observed <= 3e-7 of the largest): 3e-6 relative to the largest reference
// gradient.
TEST(Attention, ForwardAndBackwardMatchNaiveReference) {
  std::uint32_t seed = 1;
  for (const AttentionShape& a : configs()) {
    SCOPED_TRACE(::testing::Message() << "kv_heads " << a.kv_heads << " causal " << a.causal);
    const Inputs in = random_inputs(a, seed++);
    const Outputs o = run_kernels(a, in);
    const Reference r = naive_reference(a, in);
    EXPECT_LT(max_abs_diff(o.out, r.out), 2e-6);
    EXPECT_LT(max_abs_diff(o.lse, r.lse), 2e-6);
    EXPECT_LT(max_abs_diff(o.dq, r.dq), 3e-6 * max_abs(r.dq));
    EXPECT_LT(max_abs_diff(o.dk, r.dk), 3e-6 * max_abs(r.dk));
    EXPECT_LT(max_abs_diff(o.dv, r.dv), 3e-6 * max_abs(r.dv));
    EXPECT_GT(max_abs(r.dq), 0.1);  // non-trivial gradients, so a wrong sign would show
  }
}

// Central differences of L = sum(out * dout) through the fp32 forward kernel, for every
// element of q, k and v. The step h = 1e-2 is applied in fp32 and the actual step is used as
// the denominator. Truncation error O(h^2 L''') and fp32 rounding of L (~1e-7 relative) over 2h
// give observed errors up to ~3e-5; the tolerance is 2e-4 absolute + 2e-4 relative, while the
// largest gradient is checked to exceed 0.1, so a wrong sign or factor cannot pass.
TEST(Attention, BackwardMatchesFiniteDifference) {
  for (bool causal : {true, false}) {
    const AttentionShape a{.batch = 2,
                           .seq = 5,
                           .heads = 4,
                           .kv_heads = 2,
                           .head_dim = 4,
                           .dropout = 0,
                           .causal = causal};
    Inputs in = random_inputs(a, causal ? 21 : 22);
    const Outputs o = run_kernels(a, in);
    auto loss = [&]() {
      Vec out(q_numel(a)), lse(lse_numel(a));
      attention_forward(a, in.q.data(), in.k.data(), in.v.data(), out.data(), lse.data());
      double l = 0;
      for (std::size_t i = 0; i < out.size(); ++i) l += double{out[i]} * in.dout[i];
      return l;
    };
    auto check = [&](Vec& x, const Vec& grad, const char* name) {
      const VecD fd = numeric_grad(x, loss, 1e-2f);
      double max_grad = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_NEAR(grad[i], fd[i], 2e-4 + 2e-4 * std::fabs(fd[i])) << name << "[" << i << "]";
        max_grad = std::max(max_grad, std::fabs(fd[i]));
      }
      EXPECT_GT(max_grad, 0.1) << name;
    };
    check(in.q, o.dq, "dq");
    check(in.k, o.dk, "dk");
    check(in.v, o.dv, "dv");
  }
}

// s = 2, one head, d = 1 (scale 1), causal. Row 0 sees only key 0: out = v0, lse = q0 k0.
// Row 1 with q1 = 1, k = (0, ln 3): scores (0, ln 3), P = (1/4, 3/4), lse = ln 4,
// out = v0/4 + 3 v1/4 = 1 + 6 = 7 for v = (4, 8). Tolerances: a few fp32 ulps of each value.
TEST(Attention, HandComputedTwoTokens) {
  const AttentionShape a{
      .batch = 1, .seq = 2, .heads = 1, .kv_heads = 1, .head_dim = 1, .dropout = 0, .causal = true};
  const Vec q = {0.5f, 1.0f}, k = {0.0f, std::log(3.0f)}, v = {4.0f, 8.0f};
  Vec out(2), lse(2);
  attention_forward(a, q.data(), k.data(), v.data(), out.data(), lse.data());
  EXPECT_NEAR(out[0], 4.0f, 1e-6);
  EXPECT_NEAR(lse[0], 0.0f, 1e-6);
  EXPECT_NEAR(out[1], 7.0f, 1e-5);
  EXPECT_NEAR(lse[1], std::log(4.0f), 1e-6);
}

// Zero queries give uniform attention: lse_i = ln(number of visible keys) and out_i the mean
// of the visible values (causal: a running mean). Tolerance 1e-6 (fp32 means of <= 6 terms).
TEST(Attention, ZeroQueriesGiveUniformWeights) {
  for (bool causal : {true, false}) {
    const AttentionShape a{.batch = 1,
                           .seq = 6,
                           .heads = 2,
                           .kv_heads = 1,
                           .head_dim = 3,
                           .dropout = 0,
                           .causal = causal};
    std::mt19937 rng(3);
    const Vec q(q_numel(a), 0.0f), k = normal_vector(rng, kv_numel(a)),
                                   v = normal_vector(rng, kv_numel(a));
    Vec out(q_numel(a)), lse(lse_numel(a));
    attention_forward(a, q.data(), k.data(), v.data(), out.data(), lse.data());
    for (std::int64_t h = 0; h < 2; ++h) {
      for (std::int64_t i = 0; i < 6; ++i) {
        const std::int64_t n = causal ? i + 1 : 6;
        EXPECT_NEAR(lse[h * 6 + i], std::log(static_cast<double>(n)), 1e-6);
        for (std::int64_t c = 0; c < 3; ++c) {
          double mean = 0;
          for (std::int64_t j = 0; j < n; ++j) mean += v[j * 3 + c] / static_cast<double>(n);
          EXPECT_NEAR(out[(i * 2 + h) * 3 + c], mean, 1e-6);
        }
      }
    }
  }
}

// GQA equals MHA with each kv head repeated for its query heads; the GQA dk/dv are the sums of
// the repeated heads' gradients. out and dq take the same path (observed bitwise equal); dk and
// dv sum in a different order: 1e-6 absolute on out, 1e-5 on the O(1) gradients.
TEST(Attention, GroupedQueryEqualsRepeatedKv) {
  const AttentionShape gqa{
      .batch = 2, .seq = 7, .heads = 4, .kv_heads = 2, .head_dim = 4, .dropout = 0, .causal = true};
  AttentionShape mha = gqa;
  mha.kv_heads = 4;
  const Inputs in = random_inputs(gqa, 9);
  Inputs rep = in;
  rep.k.assign(kv_numel(mha), 0.0f);
  rep.v.assign(kv_numel(mha), 0.0f);
  for (std::int64_t t = 0; t < 2 * 7; ++t) {
    for (std::int64_t h = 0; h < 4; ++h) {
      for (std::int64_t c = 0; c < 4; ++c) {
        rep.k[(t * 4 + h) * 4 + c] = in.k[(t * 2 + h / 2) * 4 + c];
        rep.v[(t * 4 + h) * 4 + c] = in.v[(t * 2 + h / 2) * 4 + c];
      }
    }
  }
  const Outputs g = run_kernels(gqa, in);
  const Outputs m = run_kernels(mha, rep);
  for (std::size_t i = 0; i < g.out.size(); ++i) EXPECT_NEAR(g.out[i], m.out[i], 1e-6) << i;
  for (std::size_t i = 0; i < g.dq.size(); ++i) EXPECT_NEAR(g.dq[i], m.dq[i], 1e-5) << i;
  for (std::int64_t t = 0; t < 2 * 7; ++t) {
    for (std::int64_t kh = 0; kh < 2; ++kh) {
      for (std::int64_t c = 0; c < 4; ++c) {
        const std::size_t gi = (t * 2 + kh) * 4 + c;
        const std::size_t m0 = (t * 4 + 2 * kh) * 4 + c, m1 = m0 + 4;
        EXPECT_NEAR(g.dk[gi], m.dk[m0] + m.dk[m1], 1e-5) << gi;
        EXPECT_NEAR(g.dv[gi], m.dv[m0] + m.dv[m1], 1e-5) << gi;
      }
    }
  }
}

// dq, dk, dv are overwritten (prior contents, even NaN, do not leak in) and two runs are
// bitwise identical.
TEST(Attention, GradientsOverwrittenAndDeterministic) {
  const AttentionShape a{
      .batch = 1, .seq = 8, .heads = 4, .kv_heads = 2, .head_dim = 8, .dropout = 0, .causal = true};
  const Inputs in = random_inputs(a, 5);
  const Outputs first = run_kernels(a, in);
  Vec dq(q_numel(a), NAN), dk(kv_numel(a), NAN), dv(kv_numel(a), NAN);
  attention_backward(a, in.q.data(), in.k.data(), in.v.data(), first.out.data(), first.lse.data(),
                     in.dout.data(), dq.data(), dk.data(), dv.data());
  const Outputs second = run_kernels(a, in);
  EXPECT_TRUE(bitwise_equal(dq, first.dq));
  EXPECT_TRUE(bitwise_equal(dk, first.dk));
  EXPECT_TRUE(bitwise_equal(dv, first.dv));
  EXPECT_TRUE(bitwise_equal(second.out, first.out));
  EXPECT_TRUE(bitwise_equal(second.lse, first.lse));
  EXPECT_TRUE(bitwise_equal(second.dq, first.dq));
  EXPECT_TRUE(bitwise_equal(second.dk, first.dk));
}

}  // namespace
}  // namespace zs::kernels::cpu
