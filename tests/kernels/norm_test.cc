#include "kernels/cpu/norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace zs::kernels::cpu {
namespace {

using models::NormKind;
using models::NormShape;
using testing::matches_numeric_grad;
using testing::numeric_grad;
using testing::uniform_vector;

// Tolerance 1e-6: the expected values are exact decimals up to fp32 rounding of one division.
TEST(LayerNorm, ForwardKnownRow) {
  const NormShape s{.rows = 1, .cols = 4, .kind = NormKind::kLayerNorm};
  const double eps = 1e-5;
  const std::vector<float> x = {1, 2, 3, 4};  // mean 2.5, biased variance 1.25
  const std::vector<float> w = {1, 2, 1, 1};
  const std::vector<float> b = {0, 0, 1, 0};
  std::vector<float> y(4), mean(1), rstd(1);
  norm_forward(s, eps, x.data(), w.data(), b.data(), y.data(), mean.data(), rstd.data());
  const double r = 1.0 / std::sqrt(1.25 + eps);
  EXPECT_FLOAT_EQ(mean[0], 2.5f);
  EXPECT_NEAR(rstd[0], r, 1e-6);
  EXPECT_NEAR(y[0], -1.5 * r, 1e-6);
  EXPECT_NEAR(y[1], -0.5 * r * 2, 1e-6);
  EXPECT_NEAR(y[2], 0.5 * r + 1, 1e-6);
  EXPECT_NEAR(y[3], 1.5 * r, 1e-6);
}

// Tolerance 1e-6 as above. sqrt(mean(x²)) of (3, 4) is sqrt(12.5).
TEST(RmsNorm, ForwardKnownRow) {
  const NormShape s{.rows = 2, .cols = 2, .kind = NormKind::kRmsNorm};
  const double eps = 1e-6;
  const std::vector<float> x = {3, 4, -3, -4};
  const std::vector<float> w = {1, 0.5f};
  std::vector<float> y(4), rstd(2);
  norm_forward(s, eps, x.data(), w.data(), nullptr, y.data(), nullptr, rstd.data());
  const double r = 1.0 / std::sqrt(12.5 + eps);
  EXPECT_NEAR(rstd[0], r, 1e-6);
  EXPECT_NEAR(rstd[1], r, 1e-6);
  EXPECT_NEAR(y[0], 3 * r, 1e-6);
  EXPECT_NEAR(y[1], 4 * r * 0.5, 1e-6);
  EXPECT_NEAR(y[2], -3 * r, 1e-6);
  EXPECT_NEAR(y[3], -4 * r * 0.5, 1e-6);
}

TEST(LayerNorm, ForwardInPlaceMatchesOutOfPlace) {
  const NormShape s{.rows = 3, .cols = 10, .kind = NormKind::kLayerNorm};
  std::mt19937 rng(4);
  std::vector<float> x = uniform_vector(rng, 30, -2, 2);
  const std::vector<float> w = uniform_vector(rng, 10, 0.5f, 1.5f);
  const std::vector<float> b = uniform_vector(rng, 10, -1, 1);
  std::vector<float> y(30), mean(3), rstd(3);
  norm_forward(s, 1e-5, x.data(), w.data(), b.data(), y.data(), mean.data(), rstd.data());
  norm_forward(s, 1e-5, x.data(), w.data(), b.data(), x.data(), mean.data(), rstd.data());
  EXPECT_EQ(x, y);
}

struct NormCase {
  NormShape shape;
  bool bias;
};

// FD of L = Σ y·r with respect to x, weight and bias. Step 1e-2: the normalised output has
// third derivatives of order rstd³ ~ 1 here (|x| <= 2, cols 16), so truncation is ~2e-5; fp32
// rounding of 48 outputs over the 2e-2 step adds ~5e-5. Tolerance: 1e-3 absolute + 1e-2 relative.
void check_backward(const NormCase& c, std::uint32_t seed) {
  const NormShape& s = c.shape;
  const bool ln = s.kind == NormKind::kLayerNorm;
  const double eps = 1e-5;
  std::mt19937 rng(seed);
  std::vector<float> x = uniform_vector(rng, s.rows * s.cols, -2, 2);
  std::vector<float> w = uniform_vector(rng, s.cols, 0.5f, 1.5f);
  std::vector<float> b = uniform_vector(rng, s.cols, -1, 1);
  const std::vector<float> r = uniform_vector(rng, s.rows * s.cols, -1, 1);
  const float* bias = c.bias ? b.data() : nullptr;
  std::vector<float> y(s.rows * s.cols), mean(s.rows), rstd(s.rows);
  float* mean_ptr = ln ? mean.data() : nullptr;
  auto loss = [&] {
    norm_forward(s, eps, x.data(), w.data(), bias, y.data(), mean_ptr, rstd.data());
    double l = 0;
    for (std::size_t i = 0; i < y.size(); ++i) l += static_cast<double>(y[i]) * r[i];
    return l;
  };
  loss();  // fills mean and rstd at the unperturbed x
  std::vector<float> dx(x.size(), 123.0f), dw(s.cols, 0.0f), db(s.cols, 0.0f);
  norm_backward(s, r.data(), x.data(), w.data(), mean_ptr, rstd.data(), dx.data(), dw.data(),
                c.bias ? db.data() : nullptr);

  EXPECT_TRUE(matches_numeric_grad(dx, numeric_grad(x, loss, 1e-2f), 1e-3, 1e-2));
  EXPECT_TRUE(matches_numeric_grad(dw, numeric_grad(w, loss, 1e-2f), 1e-3, 1e-2));
  if (c.bias) {
    EXPECT_TRUE(matches_numeric_grad(db, numeric_grad(b, loss, 1e-2f), 1e-3, 1e-2));
  }
}

TEST(LayerNorm, BackwardMatchesFiniteDifference) {
  check_backward({{.rows = 3, .cols = 16, .kind = NormKind::kLayerNorm}, true}, 11);
}

TEST(LayerNorm, BackwardWithoutBiasMatchesFiniteDifference) {
  check_backward({{.rows = 2, .cols = 9, .kind = NormKind::kLayerNorm}, false}, 12);
}

TEST(RmsNorm, BackwardMatchesFiniteDifference) {
  check_backward({{.rows = 3, .cols = 16, .kind = NormKind::kRmsNorm}, false}, 13);
}

// dweight and dbias accumulate (g + g is exact in fp32); dx is overwritten.
void check_accumulates(NormKind kind) {
  const bool ln = kind == NormKind::kLayerNorm;
  const NormShape s{.rows = 4, .cols = 8, .kind = kind};
  std::mt19937 rng(5);
  const std::vector<float> x = uniform_vector(rng, 32, -2, 2);
  const std::vector<float> w = uniform_vector(rng, 8, 0.5f, 1.5f);
  const std::vector<float> b = uniform_vector(rng, 8, -1, 1);
  const std::vector<float> dy = uniform_vector(rng, 32, -1, 1);
  std::vector<float> y(32), mean(4), rstd(4);
  float* mean_ptr = ln ? mean.data() : nullptr;
  norm_forward(s, 1e-5, x.data(), w.data(), ln ? b.data() : nullptr, y.data(), mean_ptr,
               rstd.data());
  std::vector<float> dx(32, 9.0f), dw(8, 0.0f), db(8, 0.0f);
  float* db_ptr = ln ? db.data() : nullptr;
  norm_backward(s, dy.data(), x.data(), w.data(), mean_ptr, rstd.data(), dx.data(), dw.data(),
                db_ptr);
  const std::vector<float> dx1 = dx, dw1 = dw, db1 = db;
  norm_backward(s, dy.data(), x.data(), w.data(), mean_ptr, rstd.data(), dx.data(), dw.data(),
                db_ptr);
  EXPECT_EQ(dx, dx1);
  for (std::size_t i = 0; i < dw.size(); ++i) EXPECT_EQ(dw[i], 2.0f * dw1[i]);
  for (std::size_t i = 0; i < db.size(); ++i) EXPECT_EQ(db[i], 2.0f * db1[i]);
}

TEST(LayerNorm, BackwardAccumulatesParameterGradients) { check_accumulates(NormKind::kLayerNorm); }

TEST(RmsNorm, BackwardAccumulatesParameterGradients) { check_accumulates(NormKind::kRmsNorm); }

}  // namespace
}  // namespace zs::kernels::cpu
