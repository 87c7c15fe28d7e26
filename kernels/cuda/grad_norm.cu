#include <cmath>

#include "common/check.h"
#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/grad_norm.h"

namespace zs::kernels::cuda {
namespace {

using internal::block_sum;
using internal::kWarpSize;
using internal::to_float;

constexpr int kSumThreads = 256;
// One thread per partial in the second pass.
constexpr int kPartialThreads = static_cast<int>(kSumSquaresPartials);
static_assert(kPartialThreads % kWarpSize == 0 && kPartialThreads <= 1024);

// Pass 1, grid of kSumSquaresPartials blocks: partials[b] = block b's share of Σx² in double.
template <class T>
__global__ void __launch_bounds__(kSumThreads)
    sum_squares_partial_kernel(const T* x, std::int64_t n, double* partials) {
  __shared__ double scratch[kWarpSize];
  double sum = 0.0;
  for (std::int64_t i = internal::grid_index(); i < n; i += internal::grid_stride()) {
    const double v = to_float(x[i]);
    sum += v * v;
  }
  sum = block_sum(sum, scratch);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

// Pass 2, one block: *result = Σ partials, in a fixed tree order.
__global__ void __launch_bounds__(kPartialThreads)
    sum_partials_kernel(const double* partials, double* result) {
  __shared__ double scratch[kWarpSize];
  const double sum = block_sum(partials[threadIdx.x], scratch);
  if (threadIdx.x == 0) *result = sum;
}

template <class T>
__global__ void scale_kernel(T* x, std::int64_t n, float factor) {
  for (std::int64_t i = internal::grid_index(); i < n; i += internal::grid_stride()) {
    x[i] = internal::from_float<T>(to_float(x[i]) * factor);
  }
}

// All-ones exponent field (inf or NaN) by bit test, as the CPU twin: robust to fast-math flags.
__device__ __forceinline__ bool non_finite(float x) {
  return (__float_as_uint(x) & 0x7F800000u) == 0x7F800000u;
}
__device__ __forceinline__ bool non_finite(__nv_bfloat16 x) {
  return (__bfloat16_as_ushort(x) & 0x7F80u) == 0x7F80u;
}
__device__ __forceinline__ bool non_finite(__half x) {
  return (__half_as_ushort(x) & 0x7C00u) == 0x7C00u;
}

// Blocks that see a non-finite value store 1; the flag was zeroed before the launch. Every
// writer stores the same value, so the result does not depend on their order.
template <class T>
__global__ void has_inf_or_nan_kernel(const T* x, std::int64_t n, std::int32_t* flag) {
  bool found = false;
  for (std::int64_t i = internal::grid_index(); i < n; i += internal::grid_stride()) {
    found |= non_finite(x[i]);
  }
  if (__syncthreads_or(found) != 0 && threadIdx.x == 0) *flag = 1;
}

}  // namespace

template <class T>
void sum_squares(const T* x, std::int64_t n, double* partials, double* result,
                 cudaStream_t stream) {
  ZS_CHECK(n >= 0);
  ZS_CHECK(n == 0 || x != nullptr);
  ZS_CHECK(partials != nullptr && result != nullptr);
  // The grid is fixed (not sized to n or to the device) so the summation order is too.
  sum_squares_partial_kernel<<<static_cast<unsigned>(kSumSquaresPartials), kSumThreads, 0,
                               stream>>>(x, n, partials);
  ZS_CUDA_CHECK_LAUNCH();
  sum_partials_kernel<<<1, kPartialThreads, 0, stream>>>(partials, result);
  ZS_CUDA_CHECK_LAUNCH();
}

template <class T>
void scale_by_inverse(T* x, std::int64_t n, double divisor, cudaStream_t stream) {
  ZS_CHECK(n >= 0);
  ZS_CHECK(n == 0 || x != nullptr);
  ZS_CHECK(!(divisor <= 0.0));  // > 0, +inf (factor 0) or NaN (factor NaN), as on the CPU
  if (n == 0) return;
  const auto factor = static_cast<float>(1.0 / divisor);
  scale_kernel<<<internal::elementwise_blocks(n), internal::kElementwiseThreads, 0, stream>>>(
      x, n, factor);
  ZS_CUDA_CHECK_LAUNCH();
}

template <class T>
void has_inf_or_nan(const T* x, std::int64_t n, std::int32_t* flag, cudaStream_t stream) {
  ZS_CHECK(n >= 0);
  ZS_CHECK(n == 0 || x != nullptr);
  ZS_CHECK(flag != nullptr);
  ZS_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(std::int32_t), stream));
  if (n == 0) return;
  has_inf_or_nan_kernel<<<internal::elementwise_blocks(n), internal::kElementwiseThreads, 0,
                          stream>>>(x, n, flag);
  ZS_CUDA_CHECK_LAUNCH();
}

#define ZS_INSTANTIATE(T)                                                               \
  template void sum_squares<T>(const T*, std::int64_t, double*, double*, cudaStream_t); \
  template void scale_by_inverse<T>(T*, std::int64_t, double, cudaStream_t);            \
  template void has_inf_or_nan<T>(const T*, std::int64_t, std::int32_t*, cudaStream_t);
ZS_FOR_EACH_STORAGE_TYPE(ZS_INSTANTIATE)
#undef ZS_INSTANTIATE

}  // namespace zs::kernels::cuda
