#include "kernels/cpu/activation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace zs::kernels::cpu {
namespace {

using models::ElementwiseShape;
using testing::central_difference;
using testing::sign_flips_caught;
using testing::uniform_vector;

float gelu(float x) {
  float y = 0;
  gelu_forward({.numel = 1}, &x, &y);
  return y;
}

float swiglu(float gate, float up) {
  float y = 0;
  swiglu_forward({.numel = 1}, &gate, &up, &y);
  return y;
}

// Central difference of a scalar fp32 function at x, dividing by the step actually taken.
template <class F>
double derivative(F&& f, float x, float step) {
  return central_difference(
      x, [&] { return static_cast<double>(f(x)); }, step);
}

// Reference values from the double-precision formula 0.5·x·(1 + tanh(sqrt(2/π)(x + 0.044715x³))).
// Tolerance 1e-6: fp32 rounding of tanh and the products.
TEST(Gelu, ForwardClosedForm) {
  EXPECT_EQ(gelu(0.0f), 0.0f);
  EXPECT_NEAR(gelu(1.0f), 0.8411919906082768, 1e-6);
  EXPECT_NEAR(gelu(-1.0f), -0.15880800939172324, 1e-6);
  EXPECT_NEAR(gelu(2.0f), 1.954597694087775, 1e-6);
  EXPECT_NEAR(gelu(10.0f), 10.0f, 1e-6);  // tanh saturates: GELU(x) -> x
  EXPECT_NEAR(gelu(-10.0f), 0.0f, 1e-6);  // and -> 0 on the left
  EXPECT_EQ(gelu(1e20f), 1e20f);          // x³ overflows to inf; tanh(inf) = 1, no NaN
}

TEST(Gelu, ForwardInPlace) {
  std::mt19937 rng(31);
  std::vector<float> x = uniform_vector(rng, 50, -4, 4);
  std::vector<float> y(50);
  gelu_forward({.numel = 50}, x.data(), y.data());
  gelu_forward({.numel = 50}, x.data(), x.data());
  EXPECT_EQ(x, y);
}

// Each element is checked against the central difference of the scalar forward. Step 1e-2:
// GELU's third derivative is below 1 in magnitude, so truncation is < 2e-5; fp32 rounding
// (~5e-7) over the 2e-2 step adds ~3e-5. Tolerance: 2e-4 absolute + 1e-3 relative.
TEST(Gelu, BackwardMatchesFiniteDifference) {
  const std::int64_t n = 64;
  std::mt19937 rng(32);
  const std::vector<float> x = uniform_vector(rng, n, -4, 4);
  const std::vector<float> dout = uniform_vector(rng, n, -1, 1);
  std::vector<float> dx(n, 123.0f);
  gelu_backward({.numel = n}, x.data(), dout.data(), dx.data());
  std::vector<double> want(n);
  for (std::int64_t i = 0; i < n; ++i) {
    want[i] = dout[i] * derivative(gelu, x[i], 1e-2f);
    EXPECT_NEAR(dx[i], want[i], 2e-4 + 1e-3 * std::abs(want[i])) << "x = " << x[i];
  }
  EXPECT_GT(sign_flips_caught(dx, want, 2e-4, 1e-3), n / 2);  // the check can fail
}

TEST(Swiglu, ForwardClosedForm) {
  EXPECT_EQ(swiglu(0.0f, 5.0f), 0.0f);
  EXPECT_NEAR(swiglu(1.0f, 2.0f), 2 * 0.7310585786300049, 1e-6);  // silu(1) = sigmoid(1)
  EXPECT_NEAR(swiglu(20.0f, 1.5f), 30.0f, 1e-5);                  // silu(g) -> g
  EXPECT_EQ(swiglu(-100.0f, 1.0f), -0.0f);                        // e^100 overflows: no NaN
  EXPECT_EQ(swiglu(-1000.0f, 1.0f), -0.0f);
}

// Both gradients against central differences of the scalar forward, per element. silu's third
// derivative is below 0.5: same step and tolerance as GELU (2e-4 absolute + 1e-3 relative).
TEST(Swiglu, BackwardMatchesFiniteDifference) {
  const std::int64_t n = 48;
  std::mt19937 rng(33);
  const std::vector<float> gate = uniform_vector(rng, n, -6, 6);
  const std::vector<float> up = uniform_vector(rng, n, -2, 2);
  const std::vector<float> dout = uniform_vector(rng, n, -1, 1);
  std::vector<float> dgate(n, 123.0f), dup(n, 123.0f);
  swiglu_backward({.numel = n}, gate.data(), up.data(), dout.data(), dgate.data(), dup.data());
  std::vector<double> want_g(n), want_u(n);
  for (std::int64_t i = 0; i < n; ++i) {
    const float g = gate[i], u = up[i];
    want_g[i] = dout[i] * derivative([u](float v) { return swiglu(v, u); }, g, 1e-2f);
    want_u[i] = dout[i] * derivative([g](float v) { return swiglu(g, v); }, u, 1e-2f);
    EXPECT_NEAR(dgate[i], want_g[i], 2e-4 + 1e-3 * std::abs(want_g[i])) << "gate = " << g;
    EXPECT_NEAR(dup[i], want_u[i], 2e-4 + 1e-3 * std::abs(want_u[i])) << "gate = " << g;
  }
  EXPECT_GT(sign_flips_caught(dgate, want_g, 2e-4, 1e-3), n / 2);
}

TEST(Swiglu, BackwardGradientsMayAliasDout) {
  const std::int64_t n = 20;
  std::mt19937 rng(34);
  const std::vector<float> gate = uniform_vector(rng, n, -3, 3);
  const std::vector<float> up = uniform_vector(rng, n, -2, 2);
  const std::vector<float> dout = uniform_vector(rng, n, -1, 1);
  std::vector<float> dgate(n), dup(n);
  swiglu_backward({.numel = n}, gate.data(), up.data(), dout.data(), dgate.data(), dup.data());
  std::vector<float> shared = dout, other(n);
  swiglu_backward({.numel = n}, gate.data(), up.data(), shared.data(), shared.data(), other.data());
  EXPECT_EQ(shared, dgate);
  EXPECT_EQ(other, dup);
}

TEST(ResidualAdd, ForwardAddsAndMayAlias) {
  std::vector<float> a = {1, -2, 3.5f};
  const std::vector<float> b = {0.5f, 2, -1};
  std::vector<float> out(3);
  residual_forward({.numel = 3}, a.data(), b.data(), out.data());
  EXPECT_EQ(out, (std::vector<float>{1.5f, 0, 2.5f}));
  residual_forward({.numel = 3}, a.data(), b.data(), a.data());
  EXPECT_EQ(a, out);
}

}  // namespace
}  // namespace zs::kernels::cpu
