#include "kernels/cpu/norm.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/check.h"

namespace zs::kernels::cpu {
namespace {

using models::NormKind;

void check_shape(const models::NormShape& shape, const float* mean, const float* bias) {
  ZS_CHECK(shape.rows >= 1 && shape.cols >= 1);
  if (shape.kind == NormKind::kLayerNorm) {
    ZS_CHECK_MSG(mean != nullptr, "LayerNorm needs the per-row mean buffer");
  } else {
    ZS_CHECK_MSG(mean == nullptr, "RMSNorm has no mean: pass nullptr");
    ZS_CHECK_MSG(bias == nullptr, "RMSNorm has no bias: pass nullptr");
  }
}

// Forward of one row; returns nothing, writes y (c) and the row's statistics.
void norm_row(NormKind kind, std::int64_t c, double eps, const float* x, const float* weight,
              const float* bias, float* y, float* mean_out, float* rstd_out) {
  double mean = 0;
  if (kind == NormKind::kLayerNorm) {
    for (std::int64_t j = 0; j < c; ++j) mean += x[j];
    mean /= static_cast<double>(c);
  }
  double sq = 0;  // Σ(x - mean)² for LayerNorm, Σx² for RMSNorm (mean = 0)
  for (std::int64_t j = 0; j < c; ++j) {
    const double d = x[j] - mean;
    sq += d * d;
  }
  const float rstd = static_cast<float>(1.0 / std::sqrt(sq / static_cast<double>(c) + eps));
  const float m = static_cast<float>(mean);
  for (std::int64_t j = 0; j < c; ++j) {
    const float xhat = (x[j] - m) * rstd;
    y[j] = xhat * weight[j] + (bias != nullptr ? bias[j] : 0.0f);
  }
  if (mean_out != nullptr) *mean_out = m;
  *rstd_out = rstd;
}

}  // namespace

void norm_forward(const models::NormShape& shape, double eps, const float* x, const float* weight,
                  const float* bias, float* out, float* mean, float* rstd) {
  check_shape(shape, mean, bias);
  ZS_CHECK(eps > 0);
  ZS_CHECK(x != nullptr && weight != nullptr && out != nullptr && rstd != nullptr);
  const std::int64_t c = shape.cols;
  for (std::int64_t r = 0; r < shape.rows; ++r) {
    norm_row(shape.kind, c, eps, x + r * c, weight, bias, out + r * c,
             mean != nullptr ? mean + r : nullptr, rstd + r);
  }
}

void norm_backward(const models::NormShape& shape, const float* dout, const float* x,
                   const float* weight, const float* mean, const float* rstd, float* dx,
                   float* dweight, float* dbias) {
  check_shape(shape, mean, dbias);
  ZS_CHECK(dout != nullptr && x != nullptr && weight != nullptr && rstd != nullptr);
  ZS_CHECK(dx != nullptr && dweight != nullptr);
  const std::int64_t c = shape.cols;
  const bool layer_norm = shape.kind == NormKind::kLayerNorm;
  // Parameter gradients are summed over rows in double, then added once.
  std::vector<double> dw_sum(static_cast<std::size_t>(c), 0.0);
  std::vector<double> db_sum(dbias != nullptr ? static_cast<std::size_t>(c) : 0, 0.0);
  for (std::int64_t r = 0; r < shape.rows; ++r) {
    const float* xr = x + r * c;
    const float* dyr = dout + r * c;
    const float m = layer_norm ? mean[r] : 0.0f;
    const float rs = rstd[r];
    double g_mean = 0;       // mean(g)
    double g_xhat_mean = 0;  // mean(g·xhat)
    for (std::int64_t j = 0; j < c; ++j) {
      const double xhat = static_cast<double>((xr[j] - m) * rs);
      const double g = static_cast<double>(dyr[j]) * weight[j];
      g_mean += g;
      g_xhat_mean += g * xhat;
      dw_sum[j] += static_cast<double>(dyr[j]) * xhat;
      if (dbias != nullptr) db_sum[j] += dyr[j];
    }
    g_mean = layer_norm ? g_mean / static_cast<double>(c) : 0.0;
    g_xhat_mean /= static_cast<double>(c);
    float* dxr = dx + r * c;
    for (std::int64_t j = 0; j < c; ++j) {
      const double xhat = static_cast<double>((xr[j] - m) * rs);
      const double g = static_cast<double>(dyr[j]) * weight[j];
      dxr[j] = static_cast<float>(rs * (g - g_mean - xhat * g_xhat_mean));
    }
  }
  for (std::int64_t j = 0; j < c; ++j) {
    dweight[j] += static_cast<float>(dw_sum[j]);
    if (dbias != nullptr) dbias[j] += static_cast<float>(db_sum[j]);
  }
}

}  // namespace zs::kernels::cpu
