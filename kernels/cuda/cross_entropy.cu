#include <cmath>

#include "common/check.h"
#include "kernels/cuda/cross_entropy.h"
#include "kernels/cuda/device_util.cuh"

namespace zs::kernels::cuda {
namespace {

using internal::from_float;
using internal::kWarpSize;
using internal::to_float;

// Threads per row (one block per row) and of the single-block mean.
constexpr int kRowThreads = 512;
constexpr int kMeanThreads = 1024;

// A partial softmax normaliser: sum = Σ exp(z - max) over the values seen so far.
struct SoftmaxStats {
  float max;
  float sum;
};

// The stats of the union of two sets; an empty set is {-inf, 0}.
__device__ __forceinline__ SoftmaxStats combine(SoftmaxStats a, SoftmaxStats b) {
  if (a.max == -INFINITY) return b;
  if (b.max == -INFINITY) return a;
  const float m = fmaxf(a.max, b.max);
  return {m, a.sum * expf(a.max - m) + b.sum * expf(b.max - m)};
}

// Online softmax over one row, then combined across the block (butterfly within warps, then the
// warps' results in warp order). Every thread gets the row's stats. scratch: kWarpSize entries.
template <class T>
__device__ SoftmaxStats row_stats(const T* z, std::int64_t vocab, SoftmaxStats* scratch) {
  SoftmaxStats s{-INFINITY, 0.0f};
  for (std::int64_t v = threadIdx.x; v < vocab; v += blockDim.x) {
    s = combine(s, SoftmaxStats{to_float(z[v]), 1.0f});
  }
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    const SoftmaxStats other{__shfl_xor_sync(internal::kFullMask, s.max, offset),
                             __shfl_xor_sync(internal::kFullMask, s.sum, offset)};
    s = combine(s, other);
  }
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  if (lane == 0) scratch[warp] = s;
  __syncthreads();
  SoftmaxStats total{-INFINITY, 0.0f};
  for (int w = 0; w < static_cast<int>(blockDim.x) / kWarpSize; ++w) {
    total = combine(total, scratch[w]);
  }
  return total;
}

__device__ __forceinline__ std::int64_t checked_target(const std::int32_t* targets,
                                                       std::int64_t row, std::int64_t vocab) {
  const std::int64_t y = targets[row];
  if (y < 0 || y >= vocab) __trap();  // REQUIRES: targets in [0, V)
  return y;
}

template <class T>
__global__ void __launch_bounds__(kRowThreads)
    cross_entropy_forward_kernel(const T* logits, const std::int32_t* targets, float* losses,
                                 std::int64_t vocab) {
  __shared__ SoftmaxStats scratch[kWarpSize];
  const std::int64_t row = blockIdx.x;
  const T* z = logits + row * vocab;
  const SoftmaxStats s = row_stats(z, vocab, scratch);
  if (threadIdx.x != 0) return;
  const std::int64_t y = checked_target(targets, row, vocab);
  losses[row] = s.max + logf(s.sum) - to_float(z[y]);
}

// One block: mean_loss = (Σ losses) / t, each thread summing a strided slice, then block_sum.
__global__ void __launch_bounds__(kMeanThreads)
    mean_kernel(const float* losses, std::int64_t t, float* mean_loss) {
  __shared__ float scratch[kWarpSize];
  float sum = 0.0f;
  for (std::int64_t i = threadIdx.x; i < t; i += blockDim.x) sum += losses[i];
  sum = internal::block_sum(sum, scratch);
  if (threadIdx.x == 0) *mean_loss = sum / static_cast<float>(t);
}

template <class T>
__global__ void __launch_bounds__(kRowThreads)
    cross_entropy_backward_kernel(const T* logits, const std::int32_t* targets, float scale,
                                  T* dlogits, std::int64_t vocab) {
  __shared__ SoftmaxStats scratch[kWarpSize];
  const std::int64_t row = blockIdx.x;
  const T* z = logits + row * vocab;
  T* dz = dlogits + row * vocab;
  const SoftmaxStats s = row_stats(z, vocab, scratch);  // synchronizes: the row is fully read
  const std::int64_t y = checked_target(targets, row, vocab);
  const float inv_sum = 1.0f / s.sum;
  // Each thread reads z[v] before it writes dz[v], and only it touches v: dz may alias z.
  for (std::int64_t v = threadIdx.x; v < vocab; v += blockDim.x) {
    const float p = expf(to_float(z[v]) - s.max) * inv_sum;
    dz[v] = from_float<T>((p - (v == y ? 1.0f : 0.0f)) * scale);
  }
}

void check_args(const models::CrossEntropyShape& shape, const void* logits,
                const std::int32_t* targets) {
  ZS_CHECK(shape.tokens >= 1 && shape.vocab >= 1);
  ZS_CHECK_MSG(shape.tokens <= 0x7FFFFFFF, "one block per row: tokens must fit a grid dimension");
  ZS_CHECK(logits != nullptr && targets != nullptr);
}

}  // namespace

template <class T>
void cross_entropy_forward(const models::CrossEntropyShape& shape, const T* logits,
                           const std::int32_t* targets, float* losses, float* mean_loss,
                           cudaStream_t stream) {
  check_args(shape, logits, targets);
  ZS_CHECK(losses != nullptr);
  cross_entropy_forward_kernel<<<static_cast<unsigned>(shape.tokens), kRowThreads, 0, stream>>>(
      logits, targets, losses, shape.vocab);
  ZS_CUDA_CHECK_LAUNCH();
  if (mean_loss != nullptr) {
    mean_kernel<<<1, kMeanThreads, 0, stream>>>(losses, shape.tokens, mean_loss);
    ZS_CUDA_CHECK_LAUNCH();
  }
}

template <class T>
void cross_entropy_backward(const models::CrossEntropyShape& shape, const T* logits,
                            const std::int32_t* targets, float dloss, T* dlogits,
                            cudaStream_t stream) {
  check_args(shape, logits, targets);
  ZS_CHECK(dlogits != nullptr);
  // As the CPU twin: dloss / t in double, here rounded once to the fp32 the kernel multiplies by.
  const auto scale =
      static_cast<float>(static_cast<double>(dloss) / static_cast<double>(shape.tokens));
  cross_entropy_backward_kernel<<<static_cast<unsigned>(shape.tokens), kRowThreads, 0, stream>>>(
      logits, targets, scale, dlogits, shape.vocab);
  ZS_CUDA_CHECK_LAUNCH();
}

#define ZS_INSTANTIATE(T)                                                                    \
  template void cross_entropy_forward<T>(const models::CrossEntropyShape&, const T*,         \
                                         const std::int32_t*, float*, float*, cudaStream_t); \
  template void cross_entropy_backward<T>(const models::CrossEntropyShape&, const T*,        \
                                          const std::int32_t*, float, T*, cudaStream_t);
ZS_FOR_EACH_STORAGE_TYPE(ZS_INSTANTIATE)
#undef ZS_INSTANTIATE

}  // namespace zs::kernels::cuda
