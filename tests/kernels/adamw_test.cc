#include "kernels/cpu/adamw.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace zs::kernels::cpu {
namespace {

// Hand-computed example: lr 0.1, beta1 0.5, beta2 0.75, eps 0.5 (large, so that where it is
// added shows), weight decay 0.1; two elements, two steps; exp_avg and exp_avg_sq start at 0.
//   element 0: p = 1,    g1 = 2,  g2 = 1
//   element 1: p = -0.5, g1 = -1, g2 = 3
AdamConfig example_config(AdamMode mode, bool bias_correction) {
  AdamConfig c;
  c.lr = 0.1f;
  c.beta1 = 0.5f;
  c.beta2 = 0.75f;
  c.eps = 0.5f;
  c.weight_decay = 0.1f;
  c.mode = mode;
  c.bias_correction = bias_correction;
  return c;
}

struct Expected {
  float p, m, v;  // after the step
};

// Runs the example and compares p, m, v after each step. Relative tolerance 1e-6: about ten
// fp32 roundings on O(1) values (each <= 6e-8 relative) against literals from exact arithmetic.
void run_example(AdamMode mode, bool bias_correction, const Expected (&want)[2][2]) {
  std::vector<float> p = {1.0f, -0.5f};
  std::vector<float> m(2, 0.0f), v(2, 0.0f);
  const float grads[2][2] = {{2.0f, -1.0f}, {1.0f, 3.0f}};  // [step][element]
  const AdamConfig c = example_config(mode, bias_correction);
  for (int step = 1; step <= 2; ++step) {
    adam_step(p.data(), grads[step - 1], m.data(), v.data(), 2, c, step);
    for (int e = 0; e < 2; ++e) {
      const Expected& w = want[step - 1][e];
      SCOPED_TRACE(testing::Message() << "step " << step << " element " << e);
      EXPECT_NEAR(p[e], w.p, 1e-6 * std::fabs(w.p));
      EXPECT_NEAR(m[e], w.m, 1e-6 * std::fabs(w.m));
      EXPECT_NEAR(v[e], w.v, 1e-6 * std::fabs(w.v));
    }
  }
}

TEST(AdamW, TwoStepsDecoupledDecayWithBiasCorrection) {
  // Element 0, step 1: m = 0.5*0 + 0.5*2 = 1; v = 0.75*0 + 0.25*4 = 1; bc1 = 0.5, bc2 = 0.25;
  //   denom = sqrt(1/0.25) + 0.5 = 2.5; update = (1/0.5)/2.5 + 0.1*1 = 0.9; p = 1 - 0.09 = 0.91.
  // Step 2 (g = 1): m = 0.5 + 0.5 = 1; v = 0.75 + 0.25 = 1; bc1 = 0.75, bc2 = 0.4375;
  //   denom = sqrt(16/7) + 0.5 = 2.0118579; update = (4/3)/2.0118579 + 0.091 = 0.7537373;
  //   p = 0.91 - 0.07537373 = 0.8346263.
  run_example(AdamMode::kAdamW, true,
              {{{0.91f, 1.0f, 1.0f}, {-0.428333333f, -0.5f, 0.25f}},
               {{0.834626267f, 1.0f, 1.0f}, {-0.482317166f, 1.25f, 2.4375f}}});
}

TEST(AdamW, TwoStepsDecoupledDecayWithoutBiasCorrection) {
  // Element 0, step 1: m = 1, v = 1; denom = 1 + 0.5; update = 1/1.5 + 0.1 = 0.7666667;
  //   p = 1 - 0.07666667 = 0.9233333.
  run_example(AdamMode::kAdamW, false,
              {{{0.923333333f, 1.0f, 1.0f}, {-0.445f, -0.5f, 0.25f}},
               {{0.847433333f, 1.0f, 1.0f}, {-0.501192829f, 1.25f, 2.4375f}}});
}

TEST(AdamW, TwoStepsL2WithBiasCorrection) {
  // Element 0, step 1: g = 2 + 0.1*1 = 2.1; m = 1.05; v = 0.25*4.41 = 1.1025;
  //   denom = sqrt(1.1025/0.25) + 0.5 = 2.1 + 0.5 = 2.6; update = (1.05/0.5)/2.6 = 0.8076923;
  //   p = 1 - 0.08076923 = 0.9192308 (no separate decay term).
  run_example(AdamMode::kL2, true,
              {{{0.919230769f, 1.05f, 1.1025f}, {-0.432258065f, -0.525f, 0.275625f}},
               {{0.851347356f, 1.07096154f, 1.124949f}, {-0.489373681f, 1.2158871f, 2.39234716f}}});
}

TEST(AdamW, TwoStepsL2WithoutBiasCorrection) {
  // Element 0, step 1: g = 2.1; m = 1.05; v = 1.1025; denom = 1.05 + 0.5 = 1.55;
  //   update = 1.05/1.55 = 0.6774194; p = 1 - 0.06774194 = 0.9322581.
  run_example(
      AdamMode::kL2, false,
      {{{0.932258065f, 1.05f, 1.1025f}, {-0.448780488f, -0.525f, 0.275625f}},
       {{0.863607685f, 1.0716129f, 1.12566067f}, {-0.508169611f, 1.21506098f, 2.38990519f}}});
}

TEST(AdamW, BiasCorrectionAsFusedAdamHost) {
  AdamConfig c;  // beta1 = 0.9f, beta2 = 0.999f
  const AdamBiasCorrection bc = adam_bias_correction(c, 3);
  EXPECT_EQ(bc.bc1, static_cast<float>(1.0 - std::pow(static_cast<double>(0.9f), 3.0)));
  EXPECT_EQ(bc.bc2, static_cast<float>(1.0 - std::pow(static_cast<double>(0.999f), 3.0)));
  c.bias_correction = false;
  EXPECT_EQ(adam_bias_correction(c, 3).bc1, 1.0f);
  EXPECT_EQ(adam_bias_correction(c, 3).bc2, 1.0f);
}

// Ten steps on random data with FusedAdam's defaults (lr 1e-3, betas 0.9/0.999, eps 1e-8) and
// weight decay 0.01 against a double-precision evaluation in DeepSpeedCPUAdam's operation order
// (cpu_adam_impl.cpp Step_1: decay p first, folded step size and 1/sqrt(bc2)). Same math,
// different rounding: absolute tolerance 1e-6 on parameters of size ~1 (fp32 ulp ~ 1e-7).
TEST(AdamW, AgreesWithCpuAdamFormulation) {
  const std::int64_t n = 257;
  for (AdamMode mode : {AdamMode::kAdamW, AdamMode::kL2}) {
    std::mt19937 rng(11);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> p(n), m(n, 0.0f), v(n, 0.0f);
    for (float& x : p) x = dist(rng);
    const std::vector<float> p_start = p;
    std::vector<double> pd(p.begin(), p.end()), md(n, 0.0), vd(n, 0.0);
    AdamConfig c;
    c.weight_decay = 0.01f;
    c.mode = mode;
    const double b1 = c.beta1, b2 = c.beta2, lr = c.lr, wd = c.weight_decay, eps = c.eps;
    for (int step = 1; step <= 10; ++step) {
      std::vector<float> g(n);
      for (float& x : g) x = dist(rng);
      adam_step(p.data(), g.data(), m.data(), v.data(), n, c, step);
      const double step_size = -lr / (1.0 - std::pow(b1, step));
      const double inv_sqrt_bc2 = 1.0 / std::sqrt(1.0 - std::pow(b2, step));
      for (std::int64_t i = 0; i < n; ++i) {
        double gi = g[i];
        if (mode == AdamMode::kL2) gi += wd * pd[i];
        md[i] = b1 * md[i] + (1.0 - b1) * gi;
        vd[i] = b2 * vd[i] + (1.0 - b2) * gi * gi;
        if (mode == AdamMode::kAdamW) pd[i] += -lr * wd * pd[i];
        pd[i] += step_size * md[i] / (std::sqrt(vd[i]) * inv_sqrt_bc2 + eps);
      }
    }
    double max_err = 0.0, max_move = 0.0;
    for (std::int64_t i = 0; i < n; ++i) max_err = std::max(max_err, std::fabs(p[i] - pd[i]));
    EXPECT_LT(max_err, 1e-6) << static_cast<int>(mode);
    // The comparison is meaningful: ten steps move parameters by up to ~lr each.
    for (std::int64_t i = 0; i < n; ++i)
      max_move = std::max(max_move, std::fabs(pd[i] - p_start[i]));
    EXPECT_GT(max_move, 5e-3);
  }
}

TEST(AdamW, ModesAgreeWithoutDecayAndRunAreDeterministic) {
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  const std::int64_t n = 64;
  std::vector<float> p0(n), g(n), m0(n), v0(n);
  for (std::int64_t i = 0; i < n; ++i) {
    p0[i] = dist(rng);
    g[i] = dist(rng);
    m0[i] = 0.1f * dist(rng);
    v0[i] = 0.01f * std::fabs(dist(rng));
  }
  auto run = [&](AdamMode mode) {
    std::vector<float> p = p0, m = m0, v = v0;
    AdamConfig c;
    c.mode = mode;
    adam_step(p.data(), g.data(), m.data(), v.data(), n, c, 7);
    p.insert(p.end(), m.begin(), m.end());
    p.insert(p.end(), v.begin(), v.end());
    return p;
  };
  const std::vector<float> a = run(AdamMode::kAdamW);
  const std::vector<float> b = run(AdamMode::kL2);
  const std::vector<float> a2 = run(AdamMode::kAdamW);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(a[i]), std::bit_cast<std::uint32_t>(b[i])) << i;
    EXPECT_EQ(std::bit_cast<std::uint32_t>(a[i]), std::bit_cast<std::uint32_t>(a2[i])) << i;
  }
}

}  // namespace
}  // namespace zs::kernels::cpu
