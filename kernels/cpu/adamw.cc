#include "kernels/cpu/adamw.h"

#include <cmath>
#include <cstdint>

#include "common/check.h"

namespace zs::kernels::cpu {
namespace {

void check_config(const AdamConfig& c, std::int64_t step) {
  ZS_CHECK(step >= 1);
  ZS_CHECK(c.beta1 >= 0.0f && c.beta1 < 1.0f);
  ZS_CHECK(c.beta2 >= 0.0f && c.beta2 < 1.0f);
  ZS_CHECK(std::isfinite(c.lr) && std::isfinite(c.eps) && std::isfinite(c.weight_decay));
  ZS_CHECK(c.mode == AdamMode::kL2 || c.mode == AdamMode::kAdamW);
}

}  // namespace

AdamBiasCorrection adam_bias_correction(const AdamConfig& config, std::int64_t step) {
  check_config(config, step);
  AdamBiasCorrection bc;
  if (config.bias_correction) {
    // multi_tensor_adam_cuda: `bias_correction1 = 1 - std::pow(beta1, step)` with float beta1
    // and int step, i.e. pow in double, then stored to float.
    const auto t = static_cast<double>(step);
    bc.bc1 = static_cast<float>(1.0 - std::pow(static_cast<double>(config.beta1), t));
    bc.bc2 = static_cast<float>(1.0 - std::pow(static_cast<double>(config.beta2), t));
  }
  return bc;
}

void adam_step(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, std::int64_t n,
               const AdamConfig& config, std::int64_t step) {
  ZS_CHECK(n >= 0);
  ZS_CHECK(n == 0 ||
           (params != nullptr && grads != nullptr && exp_avg != nullptr && exp_avg_sq != nullptr));
  const AdamBiasCorrection bc = adam_bias_correction(config, step);
  const float beta1 = config.beta1;
  const float beta2 = config.beta2;
  const float one_minus_beta1 = 1.0f - beta1;
  const float one_minus_beta2 = 1.0f - beta2;
  const float lr = config.lr;
  const float eps = config.eps;
  const float decay = config.weight_decay;
  const bool l2 = config.mode == AdamMode::kL2;
  // AdamFunctor's loop body, operation for operation (csrc/adam/multi_tensor_adam.cu).
  for (std::int64_t i = 0; i < n; ++i) {
    float g = grads[i];
    const float p = params[i];
    if (l2) g = g + decay * p;
    const float m = beta1 * exp_avg[i] + one_minus_beta1 * g;
    const float v = beta2 * exp_avg_sq[i] + one_minus_beta2 * g * g;
    const float m_hat = m / bc.bc1;
    const float v_hat = v / bc.bc2;
    const float denom = std::sqrt(v_hat) + eps;
    float update = m_hat / denom;
    if (!l2) update = update + decay * p;
    params[i] = p - lr * update;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
  }
}

}  // namespace zs::kernels::cpu
