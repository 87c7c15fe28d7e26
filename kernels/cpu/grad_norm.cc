#include "kernels/cpu/grad_norm.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "common/check.h"

namespace zs::kernels::cpu {
namespace {

// DeepSpeed's epsilon on the unscaled norm (stage_1_and_2.py, fused_optimizer.py: `+ 1e-6`;
// utils.py clip_tensors_by_global_norm: eps=1e-6; clip_grad_norm_: `+ 1e-6`).
constexpr double kClipEps = 1e-6;

}  // namespace

double sum_squares(const float* x, std::int64_t n) {
  ZS_CHECK(n >= 0);
  ZS_CHECK(n == 0 || x != nullptr);
  double sum = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    sum += v * v;
  }
  return sum;
}

double combined_scale(double total_norm, double loss_scale, double clip) {
  ZS_CHECK(std::isfinite(total_norm) && total_norm >= 0.0);
  ZS_CHECK(std::isfinite(loss_scale) && loss_scale > 0.0);
  ZS_CHECK(std::isfinite(clip) && clip >= 0.0);
  if (clip <= 0.0) return loss_scale;
  // The norm is of the scaled gradients: unscale it, add eps, compare with clip.
  const double clip_factor = (total_norm / loss_scale + kClipEps) / clip;
  return std::max(clip_factor, 1.0) * loss_scale;
}

double torch_clip_divisor(double norm, double clip) {
  ZS_CHECK(std::isfinite(clip) && clip > 0.0);
  if (std::isnan(norm)) return norm;
  if (std::isinf(norm)) return std::numeric_limits<double>::infinity();
  return combined_scale(norm, 1.0, clip);
}

void scale_by_inverse(float* x, std::int64_t n, double divisor) {
  ZS_CHECK(n >= 0);
  ZS_CHECK(n == 0 || x != nullptr);
  ZS_CHECK(!(divisor <= 0.0));  // > 0, +inf (factor 0) or NaN (factor NaN)
  const auto factor = static_cast<float>(1.0 / divisor);
  for (std::int64_t i = 0; i < n; ++i) x[i] *= factor;
}

bool has_inf_or_nan(const float* x, std::int64_t n) {
  ZS_CHECK(n >= 0);
  ZS_CHECK(n == 0 || x != nullptr);
  // All-ones exponent field = inf or NaN. A bit test rather than std::isfinite, so that the
  // check survives -ffinite-math-only; OR-reduced without a branch per element.
  constexpr std::uint32_t kExpMask = 0x7F800000u;
  bool found = false;
  for (std::int64_t i = 0; i < n; ++i) {
    found |= (std::bit_cast<std::uint32_t>(x[i]) & kExpMask) == kExpMask;
  }
  return found;
}

}  // namespace zs::kernels::cpu
