#include "kernels/cpu/cross_entropy.h"

#include <cmath>

#include "common/check.h"

namespace zs::kernels::cpu {
namespace {

struct RowStats {
  double max = 0;      // max_v z_v
  double sum_exp = 0;  // Σ_v exp(z_v - max)
};

RowStats row_stats(const float* z, std::int64_t vocab) {
  RowStats s;
  s.max = z[0];
  for (std::int64_t v = 1; v < vocab; ++v) s.max = std::fmax(s.max, static_cast<double>(z[v]));
  for (std::int64_t v = 0; v < vocab; ++v) s.sum_exp += std::exp(static_cast<double>(z[v]) - s.max);
  return s;
}

void check_args(const models::CrossEntropyShape& shape, const float* logits,
                const std::int32_t* targets) {
  ZS_CHECK(shape.tokens >= 1 && shape.vocab >= 1);
  ZS_CHECK(logits != nullptr && targets != nullptr);
}

std::int64_t target_of(const models::CrossEntropyShape& shape, const std::int32_t* targets,
                       std::int64_t i) {
  const std::int64_t y = targets[i];
  ZS_CHECK_MSG(y >= 0 && y < shape.vocab, "target id out of [0, vocab)");
  return y;
}

}  // namespace

double cross_entropy_forward(const models::CrossEntropyShape& shape, const float* logits,
                             const std::int32_t* targets, float* losses) {
  check_args(shape, logits, targets);
  const std::int64_t vocab = shape.vocab;
  double total = 0;
  for (std::int64_t i = 0; i < shape.tokens; ++i) {
    const float* z = logits + i * vocab;
    const std::int64_t y = target_of(shape, targets, i);
    const RowStats s = row_stats(z, vocab);
    const double loss = s.max + std::log(s.sum_exp) - static_cast<double>(z[y]);
    if (losses != nullptr) losses[i] = static_cast<float>(loss);
    total += loss;
  }
  return total / static_cast<double>(shape.tokens);
}

void cross_entropy_backward(const models::CrossEntropyShape& shape, const float* logits,
                            const std::int32_t* targets, float dloss, float* dlogits) {
  check_args(shape, logits, targets);
  ZS_CHECK(dlogits != nullptr);
  const std::int64_t vocab = shape.vocab;
  const double scale = static_cast<double>(dloss) / static_cast<double>(shape.tokens);
  for (std::int64_t i = 0; i < shape.tokens; ++i) {
    const float* z = logits + i * vocab;
    const std::int64_t y = target_of(shape, targets, i);
    const RowStats s = row_stats(z, vocab);
    const double inv_sum = 1.0 / s.sum_exp;
    float* dz = dlogits + i * vocab;
    for (std::int64_t v = 0; v < vocab; ++v) {
      const double p = std::exp(static_cast<double>(z[v]) - s.max) * inv_sum;
      dz[v] = static_cast<float>((p - (v == y ? 1.0 : 0.0)) * scale);
    }
  }
}

}  // namespace zs::kernels::cpu
