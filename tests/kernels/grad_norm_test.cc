#include "kernels/cpu/grad_norm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace zs::kernels::cpu {
namespace {

using testing::normal_vector;

TEST(GradNorm, SumSquaresHandComputed) {
  const std::vector<float> x = {3.0f, -4.0f, 12.0f};
  EXPECT_EQ(sum_squares(x.data(), 3), 169.0);  // 9 + 16 + 144; exact in double
  EXPECT_EQ(std::sqrt(sum_squares(x.data(), 3)), 13.0);
  EXPECT_EQ(sum_squares(nullptr, 0), 0.0);
}

TEST(GradNorm, SumSquaresAccumulatesInDouble) {
  // 4096^2 = 2^24; an fp32 accumulator would drop each +1 (2^24 + 1 is not an fp32).
  const std::vector<float> x = {4096.0f, 1.0f, 1.0f, 1.0f, -1.0f};
  EXPECT_EQ(sum_squares(x.data(), 5), 16777220.0);
}

TEST(GradNorm, PartialSumsAddUp) {
  // Callers sum per-tensor (and per-rank) partials; the total must not depend on the split
  // beyond double rounding (each square is exact in double; relative tolerance 1e-14).
  std::mt19937 rng(7);
  const std::vector<float> g = normal_vector(rng, 1000, 0.3f);
  const double whole = sum_squares(g.data(), 1000);
  const double parts = sum_squares(g.data(), 371) + sum_squares(g.data() + 371, 629);
  EXPECT_NEAR(parts, whole, 1e-14 * whole);
  EXPECT_GT(whole, 50.0);  // ~ 1000 * 0.09: a non-trivial sum
}

TEST(GradNorm, CombinedScaleClipInactive) {
  // Scaled norm 8 at loss scale 4 is an unscaled norm of 2 < clip 5: only unscale.
  EXPECT_EQ(combined_scale(8.0, 4.0, 5.0), 4.0);
  EXPECT_EQ(combined_scale(8.0, 4.0, 0.0), 4.0);  // clipping off
  EXPECT_EQ(combined_scale(1e9, 1.0, 0.0), 1.0);  // clipping off, no loss scale
  EXPECT_EQ(combined_scale(0.0, 65536.0, 1.0), 65536.0);
}

TEST(GradNorm, CombinedScaleClipActive) {
  // Unscaled norm 40 / 4 = 10 > clip 2: divisor = 4 * (10 + 1e-6) / 2 = 20.000002.
  EXPECT_NEAR(combined_scale(40.0, 4.0, 2.0), 20.000002, 1e-12);
  // The 1e-6 sits on the UNSCALED norm: at loss scale 1024 and unscaled norm 10, clip 2:
  // 1024 * (10 + 1e-6) / 2 = 5120.000512 (eps on the scaled norm would give 5120.0000005).
  EXPECT_NEAR(combined_scale(10240.0, 1024.0, 2.0), 5120.000512, 1e-9);
  // Unscaled norm exactly equal to clip: the eps tips it just over 1.
  EXPECT_NEAR(combined_scale(3.0, 1.0, 3.0), 1.0 + 1e-6 / 3.0, 1e-15);
}

TEST(GradNorm, CombinedScaleMatchesBf16ClipCoefficient) {
  // bf16_optimizer.py / utils.clip_tensors_by_global_norm multiply by clip / (norm + 1e-6)
  // when it is < 1; with loss scale 1 that is 1 / combined_scale (to double rounding).
  for (double norm : {0.5, 1.0, 2.5, 100.0}) {
    const double clip = 1.0;
    const double coef = std::min(1.0, clip / (norm + 1e-6));
    EXPECT_NEAR(1.0 / combined_scale(norm, 1.0, clip), coef, 1e-15) << norm;
  }
}

TEST(GradNorm, ScaleByInverseHandComputed) {
  std::vector<float> x = {1.0f, -2.0f, 3.0f, 0.0f};
  scale_by_inverse(x.data(), 4, 4.0);
  EXPECT_EQ(x, (std::vector<float>{0.25f, -0.5f, 0.75f, 0.0f}));
}

TEST(GradNorm, UnscaleAndClipGivesClipNorm) {
  // Two "tensors" of scaled gradients; after dividing by the combined scale the global norm is
  // clip * n / (n + 1e-6) for unscaled norm n (relative tolerance 1e-6: fp32 products).
  const float loss_scale = 1024.0f;
  std::mt19937 rng_a(1), rng_b(2);
  std::vector<float> a = normal_vector(rng_a, 300, 0.5f * loss_scale);
  std::vector<float> b = normal_vector(rng_b, 200, 0.5f * loss_scale);
  const double norm = std::sqrt(sum_squares(a.data(), 300) + sum_squares(b.data(), 200));
  const double clip = 1.0;
  const double unscaled = norm / loss_scale;
  ASSERT_GT(unscaled, 5.0);  // ~ sqrt(500) * 0.5: clipping is active
  const double divisor = combined_scale(norm, loss_scale, clip);
  scale_by_inverse(a.data(), 300, divisor);
  scale_by_inverse(b.data(), 200, divisor);
  const double after = std::sqrt(sum_squares(a.data(), 300) + sum_squares(b.data(), 200));
  EXPECT_NEAR(after, clip * unscaled / (unscaled + 1e-6), 1e-6);
}

TEST(GradNorm, OverflowCheck) {
  std::mt19937 rng(3);
  std::vector<float> x = normal_vector(rng, 64, 1.0f);
  x[10] = std::numeric_limits<float>::max();  // large but finite
  x[11] = std::numeric_limits<float>::denorm_min();
  x[12] = -0.0f;
  EXPECT_FALSE(has_inf_or_nan(x.data(), 64));
  EXPECT_FALSE(has_inf_or_nan(x.data(), 0));
  for (float bad : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    std::vector<float> y = x;
    y.back() = bad;
    EXPECT_TRUE(has_inf_or_nan(y.data(), 64)) << bad;
    EXPECT_FALSE(has_inf_or_nan(y.data(), 63)) << bad;  // the last element is really the one
    y.back() = 0.0f;
    y.front() = bad;
    EXPECT_TRUE(has_inf_or_nan(y.data(), 64)) << bad;
  }
}

}  // namespace
}  // namespace zs::kernels::cpu
