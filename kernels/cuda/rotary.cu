#include <cmath>
#include <cstdint>

#include "common/check.h"
#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/rotary.h"

namespace zs::kernels::cuda {
namespace {

using internal::from_float;
using internal::to_float;

// Largest head_dim / 2 the frequency table holds (head_dim <= 256).
constexpr int kMaxPairs = 128;

// inv_freq per pair, passed by value as a kernel argument (512 bytes of parameter space).
struct Frequencies {
  float inv_freq[kMaxPairs];
};

// LlamaRotaryEmbedding's 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim)), in fp32, as
// kernels/cpu/rotary.cc computes it.
Frequencies make_frequencies(std::int64_t d, double theta) {
  Frequencies f{};
  const float base = static_cast<float>(theta);
  for (std::int64_t j = 0; j < d / 2; ++j) {
    const float exponent = static_cast<float>(2 * j) / static_cast<float>(d);
    f.inv_freq[j] = 1.0f / std::pow(base, exponent);
  }
  return f;
}

// Rotates every (token, head, pair) of x (t, heads, d) by sign·angle, in place.
template <class T>
__global__ void rotate_kernel(Frequencies freqs, T* x, std::int64_t t, std::int64_t seq,
                              std::int64_t heads, std::int64_t d, float sign) {
  const std::int64_t half = d / 2;
  const std::int64_t pairs = t * heads * half;
  for (std::int64_t e = internal::grid_index(); e < pairs; e += internal::grid_stride()) {
    const std::int64_t j = e % half;
    const std::int64_t row = e / half;  // token * heads + head
    const std::int64_t token = row / heads;
    const float angle = static_cast<float>(token % seq) * freqs.inv_freq[j];
    float s;
    float c;
    sincosf(angle, &s, &c);
    const float sn = sign * s;
    T* v = x + row * d;
    const float x1 = to_float(v[j]);
    const float x2 = to_float(v[j + half]);
    v[j] = from_float<T>(x1 * c - x2 * sn);
    v[j + half] = from_float<T>(x2 * c + x1 * sn);
  }
}

template <class T>
void apply(const models::AttentionShape& shape, double theta, float sign, T* q, T* k,
           cudaStream_t stream) {
  ZS_CHECK(shape.batch >= 1 && shape.seq >= 1 && shape.heads >= 1 && shape.kv_heads >= 1);
  ZS_CHECK_MSG(shape.head_dim >= 2 && shape.head_dim % 2 == 0, "RoPE needs an even head_dim");
  ZS_CHECK_MSG(shape.head_dim / 2 <= kMaxPairs, "RoPE kernel supports head_dim <= 256");
  ZS_CHECK(theta > 0);
  ZS_CHECK(q != nullptr && k != nullptr && q != k);
  const Frequencies freqs = make_frequencies(shape.head_dim, theta);
  const std::int64_t t = shape.batch * shape.seq;
  const std::int64_t half = shape.head_dim / 2;
  rotate_kernel<<<internal::elementwise_blocks(t * shape.heads * half),
                  internal::kElementwiseThreads, 0, stream>>>(freqs, q, t, shape.seq, shape.heads,
                                                              shape.head_dim, sign);
  ZS_CUDA_CHECK_LAUNCH();
  rotate_kernel<<<internal::elementwise_blocks(t * shape.kv_heads * half),
                  internal::kElementwiseThreads, 0, stream>>>(freqs, k, t, shape.seq,
                                                              shape.kv_heads, shape.head_dim, sign);
  ZS_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
void rotary_forward(const models::AttentionShape& shape, double theta, T* q, T* k,
                    cudaStream_t stream) {
  apply(shape, theta, 1.0f, q, k, stream);
}

template <class T>
void rotary_backward(const models::AttentionShape& shape, double theta, T* dq, T* dk,
                     cudaStream_t stream) {
  apply(shape, theta, -1.0f, dq, dk, stream);
}

#define ZS_INSTANTIATE(T)                                                                       \
  template void rotary_forward<T>(const models::AttentionShape&, double, T*, T*, cudaStream_t); \
  template void rotary_backward<T>(const models::AttentionShape&, double, T*, T*, cudaStream_t);
ZS_FOR_EACH_STORAGE_TYPE(ZS_INSTANTIATE)
#undef ZS_INSTANTIATE

}  // namespace zs::kernels::cuda
