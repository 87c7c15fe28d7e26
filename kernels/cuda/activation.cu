#include "common/check.h"
#include "kernels/cuda/activation.h"
#include "kernels/cuda/device_util.cuh"

namespace zs::kernels::cuda {
namespace {

using internal::from_float;
using internal::grid_index;
using internal::grid_stride;
using internal::to_float;

constexpr float kSqrt2OverPi = 0.7978845608028654f;  // sqrt(2/π)
constexpr float kGeluCubic = 0.044715f;

// 1 / (1 + e^-g); for g below about -88, e^-g overflows to +inf and the result is 0, not NaN.
__device__ __forceinline__ float sigmoid(float g) { return 1.0f / (1.0f + expf(-g)); }

template <class T>
__global__ void gelu_forward_kernel(const T* x, T* out, std::int64_t n) {
  for (std::int64_t i = grid_index(); i < n; i += grid_stride()) {
    const float v = to_float(x[i]);
    const float u = kSqrt2OverPi * (v + kGeluCubic * v * v * v);
    out[i] = from_float<T>(0.5f * v * (1.0f + tanhf(u)));
  }
}

template <class T>
__global__ void gelu_backward_kernel(const T* x, const T* dout, T* dx, std::int64_t n) {
  for (std::int64_t i = grid_index(); i < n; i += grid_stride()) {
    const float v = to_float(x[i]);
    const float u = kSqrt2OverPi * (v + kGeluCubic * v * v * v);
    const float th = tanhf(u);
    const float du_dx = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * v * v);
    const float grad = 0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * du_dx;
    dx[i] = from_float<T>(grad * to_float(dout[i]));
  }
}

template <class T>
__global__ void swiglu_forward_kernel(const T* gate, const T* up, T* out, std::int64_t n) {
  for (std::int64_t i = grid_index(); i < n; i += grid_stride()) {
    const float g = to_float(gate[i]);
    out[i] = from_float<T>(g * sigmoid(g) * to_float(up[i]));
  }
}

template <class T>
__global__ void swiglu_backward_kernel(const T* gate, const T* up, const T* dout, T* dgate, T* dup,
                                       std::int64_t n) {
  for (std::int64_t i = grid_index(); i < n; i += grid_stride()) {
    const float g = to_float(gate[i]);
    const float s = sigmoid(g);
    const float d = to_float(dout[i]);  // read before either write: dgate or dup may alias dout
    const float u = to_float(up[i]);
    dgate[i] = from_float<T>(d * u * s * (1.0f + g * (1.0f - s)));
    dup[i] = from_float<T>(d * g * s);
  }
}

template <class T>
__global__ void residual_forward_kernel(const T* a, const T* b, T* out, std::int64_t n) {
  for (std::int64_t i = grid_index(); i < n; i += grid_stride()) {
    out[i] = from_float<T>(to_float(a[i]) + to_float(b[i]));
  }
}

// Grid and block of every kernel in this file.
struct Launch {
  unsigned blocks;
  int threads;
};
Launch launch_for(const models::ElementwiseShape& shape) {
  ZS_CHECK(shape.numel >= 1);
  return {internal::elementwise_blocks(shape.numel), internal::kElementwiseThreads};
}

}  // namespace

template <class T>
void gelu_forward(const models::ElementwiseShape& shape, const T* x, T* out, cudaStream_t stream) {
  const Launch l = launch_for(shape);
  ZS_CHECK(x != nullptr && out != nullptr);
  gelu_forward_kernel<<<l.blocks, l.threads, 0, stream>>>(x, out, shape.numel);
  ZS_CUDA_CHECK_LAUNCH();
}

template <class T>
void gelu_backward(const models::ElementwiseShape& shape, const T* x, const T* dout, T* dx,
                   cudaStream_t stream) {
  const Launch l = launch_for(shape);
  ZS_CHECK(x != nullptr && dout != nullptr && dx != nullptr);
  gelu_backward_kernel<<<l.blocks, l.threads, 0, stream>>>(x, dout, dx, shape.numel);
  ZS_CUDA_CHECK_LAUNCH();
}

template <class T>
void swiglu_forward(const models::ElementwiseShape& shape, const T* gate, const T* up, T* out,
                    cudaStream_t stream) {
  const Launch l = launch_for(shape);
  ZS_CHECK(gate != nullptr && up != nullptr && out != nullptr);
  swiglu_forward_kernel<<<l.blocks, l.threads, 0, stream>>>(gate, up, out, shape.numel);
  ZS_CUDA_CHECK_LAUNCH();
}

template <class T>
void swiglu_backward(const models::ElementwiseShape& shape, const T* gate, const T* up,
                     const T* dout, T* dgate, T* dup, cudaStream_t stream) {
  const Launch l = launch_for(shape);
  ZS_CHECK(gate != nullptr && up != nullptr && dout != nullptr);
  ZS_CHECK(dgate != nullptr && dup != nullptr && dgate != dup);
  swiglu_backward_kernel<<<l.blocks, l.threads, 0, stream>>>(gate, up, dout, dgate, dup,
                                                             shape.numel);
  ZS_CUDA_CHECK_LAUNCH();
}

template <class T>
void residual_forward(const models::ElementwiseShape& shape, const T* a, const T* b, T* out,
                      cudaStream_t stream) {
  const Launch l = launch_for(shape);
  ZS_CHECK_MSG(shape.dropout == 0, "the CUDA kernels do not implement residual dropout");
  ZS_CHECK(a != nullptr && b != nullptr && out != nullptr);
  residual_forward_kernel<<<l.blocks, l.threads, 0, stream>>>(a, b, out, shape.numel);
  ZS_CUDA_CHECK_LAUNCH();
}

#define ZS_INSTANTIATE(T)                                                                         \
  template void gelu_forward<T>(const models::ElementwiseShape&, const T*, T*, cudaStream_t);     \
  template void gelu_backward<T>(const models::ElementwiseShape&, const T*, const T*, T*,         \
                                 cudaStream_t);                                                   \
  template void swiglu_forward<T>(const models::ElementwiseShape&, const T*, const T*, T*,        \
                                  cudaStream_t);                                                  \
  template void swiglu_backward<T>(const models::ElementwiseShape&, const T*, const T*, const T*, \
                                   T*, T*, cudaStream_t);                                         \
  template void residual_forward<T>(const models::ElementwiseShape&, const T*, const T*, T*,      \
                                    cudaStream_t);
ZS_FOR_EACH_STORAGE_TYPE(ZS_INSTANTIATE)
#undef ZS_INSTANTIATE

}  // namespace zs::kernels::cuda
