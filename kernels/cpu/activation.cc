#include "kernels/cpu/activation.h"

#include <cmath>
#include <cstdint>

#include "common/check.h"

namespace zs::kernels::cpu {
namespace {

constexpr float kSqrt2OverPi = 0.7978845608028654f;  // sqrt(2/π)
constexpr float kGeluCubic = 0.044715f;

void check_numel(const models::ElementwiseShape& shape) { ZS_CHECK(shape.numel >= 1); }

// 1 / (1 + e^-g): for g below about -88, e^-g overflows to +inf and the result is 0, not NaN.
float sigmoid(float g) { return 1.0f / (1.0f + std::exp(-g)); }

}  // namespace

void gelu_forward(const models::ElementwiseShape& shape, const float* x, float* out) {
  check_numel(shape);
  ZS_CHECK(x != nullptr && out != nullptr);
  for (std::int64_t i = 0; i < shape.numel; ++i) {
    const float v = x[i];
    const float u = kSqrt2OverPi * (v + kGeluCubic * v * v * v);
    out[i] = 0.5f * v * (1.0f + std::tanh(u));
  }
}

void gelu_backward(const models::ElementwiseShape& shape, const float* x, const float* dout,
                   float* dx) {
  check_numel(shape);
  ZS_CHECK(x != nullptr && dout != nullptr && dx != nullptr);
  for (std::int64_t i = 0; i < shape.numel; ++i) {
    const float v = x[i];
    const float u = kSqrt2OverPi * (v + kGeluCubic * v * v * v);
    const float th = std::tanh(u);
    const float du_dx = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * v * v);
    const float grad = 0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * du_dx;
    dx[i] = grad * dout[i];
  }
}

void swiglu_forward(const models::ElementwiseShape& shape, const float* gate, const float* up,
                    float* out) {
  check_numel(shape);
  ZS_CHECK(gate != nullptr && up != nullptr && out != nullptr);
  for (std::int64_t i = 0; i < shape.numel; ++i) {
    const float g = gate[i];
    out[i] = g * sigmoid(g) * up[i];
  }
}

void swiglu_backward(const models::ElementwiseShape& shape, const float* gate, const float* up,
                     const float* dout, float* dgate, float* dup) {
  check_numel(shape);
  ZS_CHECK(gate != nullptr && up != nullptr && dout != nullptr);
  ZS_CHECK(dgate != nullptr && dup != nullptr && dgate != dup);
  for (std::int64_t i = 0; i < shape.numel; ++i) {
    const float g = gate[i];
    const float s = sigmoid(g);
    const float d = dout[i];  // read before either write: dgate or dup may alias dout
    dgate[i] = d * up[i] * s * (1.0f + g * (1.0f - s));
    dup[i] = d * g * s;
  }
}

void residual_forward(const models::ElementwiseShape& shape, const float* a, const float* b,
                      float* out) {
  check_numel(shape);
  ZS_CHECK_MSG(shape.dropout == 0, "the CPU kernels do not implement residual dropout");
  ZS_CHECK(a != nullptr && b != nullptr && out != nullptr);
  for (std::int64_t i = 0; i < shape.numel; ++i) out[i] = a[i] + b[i];
}

}  // namespace zs::kernels::cpu
