// Helpers shared by the CPU kernel tests (tests/kernels/) and the model-runner test
// (tests/exec/): seeded random fp32 inputs, central finite differences, the comparisons the
// gradient checks make, and attention buffer sizes.
//
// The gradient checks follow one recipe: the loss is a double computed from fp32 buffers, each
// element is nudged by ±step in fp32, and the difference quotient divides by the step actually
// taken (x ± step rounds), so the quotient carries no error from that rounding.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "models/ops.h"

namespace zs::kernels::testing {

// n draws of U(lo, hi) in fp32 from rng, in order (one distribution per call).
inline std::vector<float> uniform_vector(std::mt19937& rng, std::size_t n, float lo = -1.0f,
                                         float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// n draws of N(0, stddev²) in fp32 from rng, in order. The distribution is made per call, so a
// draw it holds back (libstdc++ makes normals in pairs) does not carry over to the next call.
inline std::vector<float> normal_vector(std::mt19937& rng, std::size_t n, float stddev = 1.0f) {
  std::normal_distribution<float> dist(0.0f, stddev);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// (f() at x + step - f() at x - step) / (the difference of the two fp32 points), where f reads
// x (typically an element of a buffer the loss is computed from); x is restored afterwards.
template <class F>
double central_difference(float& x, F&& f, float step) {
  const float orig = x;
  x = orig + step;
  const double up = f();
  const double up_x = x;
  x = orig - step;
  const double down = f();
  const double g = (up - down) / (up_x - static_cast<double>(x));
  x = orig;
  return g;
}

// central_difference of f() with respect to every element of x, in order (x is restored).
template <class F>
std::vector<double> numeric_grad(std::vector<float>& x, F&& f, float step) {
  std::vector<double> g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) g[i] = central_difference(x[i], f, step);
  return g;
}

// v with every element's sign flipped.
inline std::vector<float> negated(std::vector<float> v) {
  for (float& x : v) x = -x;
  return v;
}

// Largest |analytic - numeric| / (atol + rtol·|numeric|): <= 1 means within tolerance.
inline double grad_error(const std::vector<float>& analytic, const std::vector<double>& numeric,
                         double atol, double rtol) {
  double worst = 0;
  for (std::size_t i = 0; i < numeric.size(); ++i) {
    worst =
        std::max(worst, std::abs(analytic[i] - numeric[i]) / (atol + rtol * std::abs(numeric[i])));
  }
  return worst;
}

// Success when analytic is within tolerance of numeric (grad_error <= 1) and its negation is far
// outside it (grad_error > 10), so that the check could catch a sign error.
inline ::testing::AssertionResult matches_numeric_grad(const std::vector<float>& analytic,
                                                       const std::vector<double>& numeric,
                                                       double atol, double rtol) {
  const double error = grad_error(analytic, numeric, atol, rtol);
  const double flipped_error = grad_error(negated(analytic), numeric, atol, rtol);
  if (error <= 1.0 && flipped_error > 10.0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "grad_error " << error << " (want <= 1), of the negated gradient " << flipped_error
         << " (want > 10); atol " << atol << ", rtol " << rtol;
}

// How many i have -analytic[i] farther than atol + rtol·|numeric[i]| from numeric[i]: the
// elements whose check would catch a sign error in the analytic gradient.
inline int sign_flips_caught(const std::vector<float>& analytic, const std::vector<double>& numeric,
                             double atol, double rtol) {
  int caught = 0;
  for (std::size_t i = 0; i < numeric.size(); ++i) {
    const double tol = atol + rtol * std::abs(numeric[i]);
    if (std::abs(-analytic[i] - numeric[i]) > tol) ++caught;
  }
  return caught;
}

// True when a and b have the same size and the same bit patterns (-0 differs from 0).
inline bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Elements of an attention's q (and out, dq): batch·seq·heads·head_dim.
inline std::int64_t q_numel(const models::AttentionShape& s) {
  return s.batch * s.seq * s.heads * s.head_dim;
}

// Elements of an attention's k or v (and dk, dv): batch·seq·kv_heads·head_dim.
inline std::int64_t kv_numel(const models::AttentionShape& s) {
  return s.batch * s.seq * s.kv_heads * s.head_dim;
}

}  // namespace zs::kernels::testing
