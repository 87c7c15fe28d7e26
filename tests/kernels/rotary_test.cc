#include "kernels/cpu/rotary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace zs::kernels::cpu {
namespace {

using models::AttentionShape;
using testing::kv_numel;
using testing::numeric_grad;
using testing::q_numel;
using testing::sign_flips_caught;
using testing::uniform_vector;

// Grouped-query shape: 2 sequences of 5 tokens, 4 query heads sharing 2 key heads, d = 8.
constexpr AttentionShape kGqa{.batch = 2, .seq = 5, .heads = 4, .kv_heads = 2, .head_dim = 8};

// Random q0, k0 (U(-1, 1) from seed, q first) and q, k: copies of them after rotary_forward.
struct Rotated {
  std::vector<float> q0, k0, q, k;
};
Rotated rotate_random(const AttentionShape& s, double theta, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Rotated r;
  r.q0 = uniform_vector(rng, q_numel(s));
  r.k0 = uniform_vector(rng, kv_numel(s));
  r.q = r.q0;
  r.k = r.k0;
  rotary_forward(s, theta, r.q.data(), r.k.data());
  return r;
}

TEST(Rotary, PositionZeroIsIdentity) {
  const auto [q0, k0, q, k] = rotate_random(kGqa, 10000.0, 41);
  const std::int64_t qrow = kGqa.heads * kGqa.head_dim, krow = kGqa.kv_heads * kGqa.head_dim;
  for (std::int64_t b = 0; b < kGqa.batch; ++b) {  // token b·seq is at position 0: exact
    const std::int64_t i = b * kGqa.seq;
    for (std::int64_t j = 0; j < qrow; ++j) EXPECT_EQ(q[i * qrow + j], q0[i * qrow + j]);
    for (std::int64_t j = 0; j < krow; ++j) EXPECT_EQ(k[i * krow + j], k0[i * krow + j]);
  }
  EXPECT_NE(q, q0);  // later positions do move
}

// Each (j, j + d/2) pair is rotated, so its length is kept. Tolerance 1e-6 relative: fp32.
TEST(Rotary, PreservesPairNorms) {
  const auto [q0, k0, q, k] = rotate_random(kGqa, 10000.0, 42);
  const std::int64_t half = kGqa.head_dim / 2;
  for (std::size_t v = 0; v < q.size(); v += kGqa.head_dim) {
    for (std::int64_t j = 0; j < half; ++j) {
      const double before = std::hypot(q0[v + j], q0[v + j + half]);
      const double after = std::hypot(q[v + j], q[v + j + half]);
      EXPECT_NEAR(after, before, 1e-6 * (1 + before));
    }
  }
}

// d = 4, theta = 100: inv_freq = (1, 0.1). Token 2 of a sequence is at position 2, so pair 0
// turns by 2 rad and pair 1 by 0.2 rad. Tolerance 1e-6: fp32 sin/cos.
TEST(Rotary, KnownAngles) {
  const AttentionShape s{.batch = 1, .seq = 3, .heads = 1, .kv_heads = 1, .head_dim = 4};
  std::vector<float> q(12, 0.0f), k(12, 0.0f);
  // Token 2: q = (1, 0, 0, 0) (x_0 = 1), k = (0, 0.5, 0, 2) (x_1 = 0.5, x_3 = 2).
  q[8] = 1;
  k[9] = 0.5f;
  k[11] = 2;
  rotary_forward(s, 100.0, q.data(), k.data());
  // Pair (0, 2): (1, 0) -> (cos 2, sin 2).
  EXPECT_NEAR(q[8], std::cos(2.0), 1e-6);
  EXPECT_NEAR(q[10], std::sin(2.0), 1e-6);
  EXPECT_EQ(q[9], 0.0f);
  EXPECT_EQ(q[11], 0.0f);
  // Pair (1, 3): (0.5, 2) -> (0.5 cos 0.2 - 2 sin 0.2, 2 cos 0.2 + 0.5 sin 0.2).
  EXPECT_NEAR(k[9], 0.5 * std::cos(0.2) - 2 * std::sin(0.2), 1e-6);
  EXPECT_NEAR(k[11], 2 * std::cos(0.2) + 0.5 * std::sin(0.2), 1e-6);
}

// Against a double-precision rotate_half reference on random data, theta = 500000 (Llama-3).
// Tolerance 2e-6: the fp32 angle p·inv_freq is off by at most ~p·6e-8 rad (p < 16).
TEST(Rotary, MatchesDoubleReference) {
  const AttentionShape s{.batch = 2, .seq = 16, .heads = 3, .kv_heads = 1, .head_dim = 16};
  const double theta = 500000.0;
  const auto [q0, k0, q, k] = rotate_random(s, theta, 43);
  const std::int64_t d = s.head_dim, half = d / 2;
  auto check = [&](const std::vector<float>& in, const std::vector<float>& out,
                   std::int64_t heads) {
    for (std::int64_t i = 0; i < s.batch * s.seq; ++i) {
      for (std::int64_t hd = 0; hd < heads; ++hd) {
        const std::int64_t base = (i * heads + hd) * d;
        for (std::int64_t j = 0; j < half; ++j) {
          const double angle = static_cast<double>(i % s.seq) * std::pow(theta, -2.0 * j / d);
          const double x1 = in[base + j], x2 = in[base + j + half];
          EXPECT_NEAR(out[base + j], x1 * std::cos(angle) - x2 * std::sin(angle), 2e-6);
          EXPECT_NEAR(out[base + j + half], x2 * std::cos(angle) + x1 * std::sin(angle), 2e-6);
        }
      }
    }
  };
  check(q0, q, s.heads);
  check(k0, k, s.kv_heads);
}

// L = Σ rope(q)·rq + Σ rope(k)·rk is linear in q and k: the central difference is exact up to
// fp32 rounding (~1e-7 per output over a 2e-2 step). Tolerance: 1e-4 absolute + 1e-4 relative.
TEST(Rotary, BackwardMatchesFiniteDifference) {
  const AttentionShape s{.batch = 1, .seq = 4, .heads = 2, .kv_heads = 1, .head_dim = 6};
  std::mt19937 rng(44);
  std::vector<float> q = uniform_vector(rng, q_numel(s));
  std::vector<float> k = uniform_vector(rng, kv_numel(s));
  const std::vector<float> rq = uniform_vector(rng, q.size());
  const std::vector<float> rk = uniform_vector(rng, k.size());
  auto loss = [&] {
    std::vector<float> qr = q, kr = k;
    rotary_forward(s, 10000.0, qr.data(), kr.data());
    double l = 0;
    for (std::size_t i = 0; i < qr.size(); ++i) l += static_cast<double>(qr[i]) * rq[i];
    for (std::size_t i = 0; i < kr.size(); ++i) l += static_cast<double>(kr[i]) * rk[i];
    return l;
  };
  std::vector<float> dq = rq, dk = rk;
  rotary_backward(s, 10000.0, dq.data(), dk.data());
  auto check = [&](std::vector<float>& x, const std::vector<float>& analytic) {
    const std::vector<double> want = numeric_grad(x, loss, 1e-2f);
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR(analytic[i], want[i], 1e-4 + 1e-4 * std::abs(want[i])) << "element " << i;
    }
    EXPECT_GT(sign_flips_caught(analytic, want, 1e-4, 1e-4), static_cast<int>(x.size()) / 2);
  };
  check(q, dq);
  check(k, dk);
}

// Backward is the inverse rotation: applied to the forward's output it gives back the input.
// Tolerance 1e-6: two fp32 rotations of values in [-1, 1].
TEST(Rotary, BackwardInvertsForward) {
  auto [q0, k0, q, k] = rotate_random(kGqa, 10000.0, 45);
  rotary_backward(kGqa, 10000.0, q.data(), k.data());
  for (std::size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(q[i], q0[i], 1e-6);
  for (std::size_t i = 0; i < k.size(); ++i) EXPECT_NEAR(k[i], k0[i], 1e-6);
}

}  // namespace
}  // namespace zs::kernels::cpu
