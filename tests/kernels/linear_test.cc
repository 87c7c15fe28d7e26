#include "kernels/cpu/linear.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace zs::kernels::cpu {
namespace {

using testing::bitwise_equal;
using testing::matches_numeric_grad;
using testing::numeric_grad;
using testing::uniform_vector;

// op(A)(i, p) for A stored row-major as (rows, cols).
double at(const std::vector<float>& a, bool transpose, std::int64_t rows_op, std::int64_t cols_op,
          std::int64_t i, std::int64_t p) {
  return transpose ? a[p * rows_op + i] : a[i * cols_op + p];
}

void expect_matmul_matches_naive(std::int64_t m, std::int64_t n, std::int64_t k, double tol) {
  std::mt19937 rng(7);
  for (int variant = 0; variant < 8; ++variant) {
    const MatmulShape s{.m = m,
                        .n = n,
                        .k = k,
                        .transpose_a = (variant & 1) != 0,
                        .transpose_b = (variant & 2) != 0,
                        .accumulate = (variant & 4) != 0};
    const std::vector<float> a = uniform_vector(rng, m * k);
    const std::vector<float> b = uniform_vector(rng, k * n);
    const std::vector<float> c0 = uniform_vector(rng, m * n);
    std::vector<float> c = c0;
    matmul(s, a.data(), b.data(), c.data());
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double want = s.accumulate ? c0[i * n + j] : 0.0;
        for (std::int64_t p = 0; p < k; ++p) {
          want += at(a, s.transpose_a, m, k, i, p) * at(b, s.transpose_b, k, n, p, j);
        }
        ASSERT_NEAR(c[i * n + j], want, tol) << "variant " << variant << " at " << i << "," << j;
      }
    }
  }
}

// Tolerance 1e-5 absolute: products of k = 3 values in [-1, 1] summed in fp32 round to ~1e-7.
TEST(Matmul, MatchesNaiveProductSmall) { expect_matmul_matches_naive(5, 7, 3, 1e-5); }

// Sizes past Eigen's small-matrix path (blocked GEMM); k = 70 terms of |x| <= 1 in fp32: 1e-4.
TEST(Matmul, MatchesNaiveProductBlocked) { expect_matmul_matches_naive(67, 45, 70, 1e-4); }

TEST(Linear, ForwardHandComputed) {
  const models::GemmShape s{.m = 2, .n = 3, .k = 2, .bias = true};
  const std::vector<float> x = {1, 2, 3, 4};            // (2, 2)
  const std::vector<float> w = {1, 0, 0, 1, 1, 1};      // (3, 2): rows e0, e1, e0+e1
  const std::vector<float> bias = {0.5f, -1.0f, 2.0f};  // (3)
  std::vector<float> y(6, 123.0f);
  linear_forward(s, x.data(), w.data(), bias.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{1.5f, 1.0f, 5.0f, 3.5f, 3.0f, 9.0f}));

  const models::GemmShape no_bias{.m = 2, .n = 3, .k = 2, .bias = false};
  linear_forward(no_bias, x.data(), w.data(), nullptr, y.data());
  EXPECT_EQ(y, (std::vector<float>{1.0f, 2.0f, 3.0f, 3.0f, 4.0f, 7.0f}));
}

// The loss L = Σ y·r is linear in each of x, w, bias, so the central difference has no
// truncation error; fp32 rounding of y (~1e-7 relative over 12 terms) over a 2e-2 step leaves
// ~1e-5. Tolerance: 1e-3 absolute + 1e-3 relative.
TEST(Linear, BackwardMatchesFiniteDifference) {
  const models::GemmShape s{.m = 4, .n = 3, .k = 5, .bias = true};
  std::mt19937 rng(1);
  std::vector<float> x = uniform_vector(rng, s.m * s.k);
  std::vector<float> w = uniform_vector(rng, s.n * s.k);
  std::vector<float> bias = uniform_vector(rng, s.n);
  const std::vector<float> r = uniform_vector(rng, s.m * s.n);  // dL/dy
  auto loss = [&] {
    std::vector<float> y(s.m * s.n);
    linear_forward(s, x.data(), w.data(), bias.data(), y.data());
    double l = 0;
    for (std::size_t i = 0; i < y.size(); ++i) l += static_cast<double>(y[i]) * r[i];
    return l;
  };
  std::vector<float> dx(s.m * s.k, 123.0f), dw(s.n * s.k, 0.0f), db(s.n, 0.0f);
  linear_backward(s, r.data(), x.data(), w.data(), dx.data(), dw.data(), db.data());

  // Each check can fail: a sign error in any gradient is far outside the tolerance.
  EXPECT_TRUE(matches_numeric_grad(dx, numeric_grad(x, loss, 1e-2f), 1e-3, 1e-3));
  EXPECT_TRUE(matches_numeric_grad(dw, numeric_grad(w, loss, 1e-2f), 1e-3, 1e-3));
  EXPECT_TRUE(matches_numeric_grad(db, numeric_grad(bias, loss, 1e-2f), 1e-3, 1e-3));
}

TEST(Linear, BackwardAccumulatesParameterGradientsAndOverwritesInputGradient) {
  const models::GemmShape s{.m = 6, .n = 4, .k = 3, .bias = true};
  std::mt19937 rng(2);
  const std::vector<float> x = uniform_vector(rng, s.m * s.k);
  const std::vector<float> w = uniform_vector(rng, s.n * s.k);
  const std::vector<float> dy = uniform_vector(rng, s.m * s.n);
  std::vector<float> dx(s.m * s.k, 77.0f), dw(s.n * s.k, 0.0f), db(s.n, 0.0f);
  linear_backward(s, dy.data(), x.data(), w.data(), dx.data(), dw.data(), db.data());
  const std::vector<float> dx1 = dx, dw1 = dw, db1 = db;
  linear_backward(s, dy.data(), x.data(), w.data(), dx.data(), dw.data(), db.data());
  EXPECT_EQ(dx, dx1);  // overwritten: the same value again
  for (std::size_t i = 0; i < dw.size(); ++i) EXPECT_EQ(dw[i], 2.0f * dw1[i]);  // g + g is exact
  for (std::size_t i = 0; i < db.size(); ++i) EXPECT_EQ(db[i], 2.0f * db1[i]);
}

TEST(Linear, Deterministic) {
  const models::GemmShape s{.m = 33, .n = 40, .k = 24, .bias = true};
  std::mt19937 rng(3);
  const std::vector<float> x = uniform_vector(rng, s.m * s.k);
  const std::vector<float> w = uniform_vector(rng, s.n * s.k);
  const std::vector<float> bias = uniform_vector(rng, s.n);
  std::vector<float> y1(s.m * s.n), y2(s.m * s.n);
  linear_forward(s, x.data(), w.data(), bias.data(), y1.data());
  linear_forward(s, x.data(), w.data(), bias.data(), y2.data());
  EXPECT_TRUE(bitwise_equal(y1, y2));
}

}  // namespace
}  // namespace zs::kernels::cpu
