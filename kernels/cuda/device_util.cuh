// Device-side helpers shared by the .cu files of kernels/cuda/; not part of the public API.
//
// Storage <-> fp32 conversions for the kernels' element type T (float, __nv_bfloat16, __half),
// warp and block reductions with a fixed combination order (so every kernel is deterministic:
// no atomics on floats), and launch-size arithmetic.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/cuda/check.h"

namespace zs::kernels::cuda::internal {

inline constexpr int kWarpSize = 32;
inline constexpr unsigned kFullMask = 0xFFFFFFFFu;

// Widening is exact; narrowing rounds to nearest even, as kernels/cpu/dtype.h specifies.
__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }

template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <>
__device__ __forceinline__ __half from_float<__half>(float x) {
  return __float2half_rn(x);
}

// Sum and max over aligned groups of kWidth lanes (a power of two <= 32) by butterfly: every
// lane of a group ends with the same value, combined in the same order on every run.
template <int kWidth = kWarpSize, class Acc>
__device__ __forceinline__ Acc group_sum(Acc v) {
#pragma unroll
  for (int offset = kWidth / 2; offset > 0; offset /= 2) {
    v += __shfl_xor_sync(kFullMask, v, offset, kWidth);
  }
  return v;
}
template <int kWidth = kWarpSize>
__device__ __forceinline__ float group_max(float v) {
#pragma unroll
  for (int offset = kWidth / 2; offset > 0; offset /= 2) {
    v = fmaxf(v, __shfl_xor_sync(kFullMask, v, offset, kWidth));
  }
  return v;
}

// Sum over a 1-D block whose size is a multiple of 32 (at most 1024); every thread gets the
// result. scratch: kWarpSize elements of shared memory, reusable across consecutive calls.
// Must be reached by every thread of the block.
template <class Acc>
__device__ Acc block_sum(Acc v, Acc* scratch) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int warps = static_cast<int>(blockDim.x) / kWarpSize;
  v = group_sum(v);
  __syncthreads();  // the previous call's readers are done with scratch
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : Acc(0);
  return group_sum(v);
}

// Integer ceiling division for launch sizes.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Threads per block and the grid of a grid-stride elementwise kernel over n elements. The grid
// is capped: past 2^16 blocks of 256 threads each thread loops over several elements.
inline constexpr int kElementwiseThreads = 256;
inline unsigned elementwise_blocks(std::int64_t n) {
  constexpr std::int64_t kMaxBlocks = std::int64_t{1} << 16;
  return static_cast<unsigned>(
      std::clamp<std::int64_t>(ceil_div(n, kElementwiseThreads), 1, kMaxBlocks));
}

// Index of this thread's first element and the stride of a grid-stride loop.
__device__ __forceinline__ std::int64_t grid_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::int64_t grid_stride() {
  return static_cast<std::int64_t>(gridDim.x) * blockDim.x;
}

// Applies X to each storage type the templated kernels are instantiated for.
#define ZS_FOR_EACH_STORAGE_TYPE(X) X(float) X(__nv_bfloat16) X(__half)

// Checks the launch just made (configuration errors surface here, faults at the next sync).
#define ZS_CUDA_CHECK_LAUNCH() ZS_CUDA_CHECK(cudaGetLastError())

}  // namespace zs::kernels::cuda::internal
