#include "kernels/cpu/rotary.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/check.h"

namespace zs::kernels::cpu {
namespace {

// cos and sin of every (position, pair) angle: (seq, d/2) each.
struct AngleTable {
  std::vector<float> cos, sin;
};

AngleTable make_angles(std::int64_t seq, std::int64_t d, double theta) {
  const std::int64_t half = d / 2;
  // inv_freq = 1 / theta^(2j/d) in fp32, as LlamaRotaryEmbedding's
  // 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim)).
  std::vector<float> inv_freq(static_cast<std::size_t>(half));
  const float base = static_cast<float>(theta);
  for (std::int64_t j = 0; j < half; ++j) {
    const float exponent = static_cast<float>(2 * j) / static_cast<float>(d);
    inv_freq[j] = 1.0f / std::pow(base, exponent);
  }
  AngleTable table;
  table.cos.resize(static_cast<std::size_t>(seq * half));
  table.sin.resize(static_cast<std::size_t>(seq * half));
  for (std::int64_t p = 0; p < seq; ++p) {
    for (std::int64_t j = 0; j < half; ++j) {
      const float angle = static_cast<float>(p) * inv_freq[j];
      table.cos[p * half + j] = std::cos(angle);
      table.sin[p * half + j] = std::sin(angle);
    }
  }
  return table;
}

// Rotates every head of x (t, heads, d) by sign·angle, in place.
void rotate(const AngleTable& table, std::int64_t t, std::int64_t seq, std::int64_t heads,
            std::int64_t d, float sign, float* x) {
  const std::int64_t half = d / 2;
  for (std::int64_t i = 0; i < t; ++i) {
    const float* c = table.cos.data() + (i % seq) * half;
    const float* s = table.sin.data() + (i % seq) * half;
    for (std::int64_t hd = 0; hd < heads; ++hd) {
      float* v = x + (i * heads + hd) * d;
      for (std::int64_t j = 0; j < half; ++j) {
        const float x1 = v[j];
        const float x2 = v[j + half];
        const float sn = sign * s[j];
        v[j] = x1 * c[j] - x2 * sn;
        v[j + half] = x2 * c[j] + x1 * sn;
      }
    }
  }
}

void apply(const models::AttentionShape& shape, double theta, float sign, float* q, float* k) {
  ZS_CHECK(shape.batch >= 1 && shape.seq >= 1 && shape.heads >= 1 && shape.kv_heads >= 1);
  ZS_CHECK_MSG(shape.head_dim >= 2 && shape.head_dim % 2 == 0, "RoPE needs an even head_dim");
  ZS_CHECK(theta > 0);
  ZS_CHECK(q != nullptr && k != nullptr && q != k);
  const AngleTable table = make_angles(shape.seq, shape.head_dim, theta);
  const std::int64_t t = shape.batch * shape.seq;
  rotate(table, t, shape.seq, shape.heads, shape.head_dim, sign, q);
  rotate(table, t, shape.seq, shape.kv_heads, shape.head_dim, sign, k);
}

}  // namespace

void rotary_forward(const models::AttentionShape& shape, double theta, float* q, float* k) {
  apply(shape, theta, 1.0f, q, k);
}

void rotary_backward(const models::AttentionShape& shape, double theta, float* dq, float* dk) {
  apply(shape, theta, -1.0f, dq, dk);
}

}  // namespace zs::kernels::cpu
