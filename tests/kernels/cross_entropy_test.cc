#include "kernels/cpu/cross_entropy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace zs::kernels::cpu {
namespace {

using models::CrossEntropyShape;
using testing::bitwise_equal;
using testing::numeric_grad;
using testing::sign_flips_caught;
using testing::uniform_vector;

std::vector<std::int32_t> random_targets(std::mt19937& rng, std::int64_t t, std::int64_t vocab) {
  std::uniform_int_distribution<std::int32_t> dist(0, static_cast<std::int32_t>(vocab - 1));
  std::vector<std::int32_t> v(t);
  for (std::int32_t& y : v) y = dist(rng);
  return v;
}

// Tolerance 1e-6: the reductions are in double; only the fp32 logits round.
TEST(CrossEntropy, UniformLogitsGiveLogVocab) {
  const CrossEntropyShape s{.tokens = 3, .vocab = 50};
  const std::vector<float> logits(150, 3.7f);
  const std::vector<std::int32_t> targets = {0, 17, 49};
  std::vector<float> losses(3);
  EXPECT_NEAR(cross_entropy_forward(s, logits.data(), targets.data(), losses.data()),
              std::log(50.0), 1e-6);
  for (float l : losses) EXPECT_NEAR(l, std::log(50.0), 1e-6);
}

// logsumexp(1, 2, 3) = 3.40760596444438; losses are that minus the target's logit.
TEST(CrossEntropy, ForwardHandComputed) {
  const CrossEntropyShape s{.tokens = 2, .vocab = 3};
  const std::vector<float> logits = {1, 2, 3, 1, 2, 3};
  const std::vector<std::int32_t> targets = {2, 0};
  std::vector<float> losses(2);
  const double mean = cross_entropy_forward(s, logits.data(), targets.data(), losses.data());
  EXPECT_NEAR(losses[0], 0.40760596444438, 1e-6);
  EXPECT_NEAR(losses[1], 2.40760596444438, 1e-6);
  EXPECT_NEAR(mean, 1.40760596444438, 1e-12);  // from the double per-token losses
  EXPECT_EQ(cross_entropy_forward(s, logits.data(), targets.data(), nullptr), mean);
}

// The row max is subtracted: logits of 1e4 neither overflow nor lose the small loss.
TEST(CrossEntropy, LargeLogitsAreStable) {
  const CrossEntropyShape s{.tokens = 2, .vocab = 2};
  const std::vector<float> logits = {10000, 0, 10000, 9999};
  const std::vector<std::int32_t> targets = {1, 0};
  std::vector<float> losses(2);
  cross_entropy_forward(s, logits.data(), targets.data(), losses.data());
  EXPECT_NEAR(losses[0], 10000.0, 1e-3);
  EXPECT_NEAR(losses[1], std::log1p(std::exp(-1.0)), 1e-6);
  std::vector<float> d(4);
  cross_entropy_backward(s, logits.data(), targets.data(), 1.0f, d.data());
  for (float v : d) EXPECT_TRUE(std::isfinite(v));
}

// The loss is computed in double from fp32 logits, so the central difference is limited by
// truncation: its third derivative is below 1/t, so a 1e-2 step leaves < 2e-5/t. The analytic
// gradient is rounded to fp32 (~1e-8). Tolerance: 1e-5 absolute + 1e-3 relative.
TEST(CrossEntropy, BackwardMatchesFiniteDifference) {
  const CrossEntropyShape s{.tokens = 4, .vocab = 7};
  std::mt19937 rng(51);
  std::vector<float> logits = uniform_vector(rng, s.tokens * s.vocab, -3, 3);
  const std::vector<std::int32_t> targets = random_targets(rng, s.tokens, s.vocab);
  std::vector<float> d(logits.size(), 123.0f);
  cross_entropy_backward(s, logits.data(), targets.data(), 1.0f, d.data());
  const std::vector<double> want = numeric_grad(
      logits, [&] { return cross_entropy_forward(s, logits.data(), targets.data(), nullptr); },
      1e-2f);
  for (std::size_t i = 0; i < logits.size(); ++i) {
    EXPECT_NEAR(d[i], want[i], 1e-5 + 1e-3 * std::abs(want[i])) << "element " << i;
  }
  EXPECT_GT(sign_flips_caught(d, want, 1e-5, 1e-3), static_cast<int>(logits.size()) / 2);
}

// dloss scales every gradient (the fp16 loss scale passes through it); rows sum to 0 because
// softmax sums to 1. Tolerances: 1e-6 relative for the scale (two fp32 roundings), 1e-6 for the
// row sums of 7 values below 1/t in magnitude.
TEST(CrossEntropy, BackwardScalesByDlossAndRowsSumToZero) {
  const CrossEntropyShape s{.tokens = 3, .vocab = 7};
  std::mt19937 rng(52);
  const std::vector<float> logits = uniform_vector(rng, s.tokens * s.vocab, -3, 3);
  const std::vector<std::int32_t> targets = random_targets(rng, s.tokens, s.vocab);
  std::vector<float> d1(logits.size()), d_scaled(logits.size());
  cross_entropy_backward(s, logits.data(), targets.data(), 1.0f, d1.data());
  cross_entropy_backward(s, logits.data(), targets.data(), 1024.0f, d_scaled.data());
  for (std::size_t i = 0; i < d1.size(); ++i) {
    EXPECT_NEAR(d_scaled[i], 1024.0 * d1[i], 1e-6 * std::abs(1024.0 * d1[i]) + 1e-12);
  }
  for (std::int64_t i = 0; i < s.tokens; ++i) {
    double row = 0;
    for (std::int64_t v = 0; v < s.vocab; ++v) row += d1[i * s.vocab + v];
    EXPECT_NEAR(row, 0.0, 1e-6);
    EXPECT_LT(d1[i * s.vocab + targets[i]], 0.0f);  // the target's logit is pushed up
  }
}

TEST(CrossEntropy, BackwardInPlaceMatchesOutOfPlaceAndIsDeterministic) {
  const CrossEntropyShape s{.tokens = 5, .vocab = 33};
  std::mt19937 rng(53);
  std::vector<float> logits = uniform_vector(rng, s.tokens * s.vocab, -5, 5);
  const std::vector<std::int32_t> targets = random_targets(rng, s.tokens, s.vocab);
  std::vector<float> d1(logits.size()), d2(logits.size());
  cross_entropy_backward(s, logits.data(), targets.data(), 1.0f, d1.data());
  cross_entropy_backward(s, logits.data(), targets.data(), 1.0f, d2.data());
  EXPECT_TRUE(bitwise_equal(d1, d2));
  cross_entropy_backward(s, logits.data(), targets.data(), 1.0f, logits.data());
  EXPECT_EQ(logits, d1);
}

}  // namespace
}  // namespace zs::kernels::cpu
