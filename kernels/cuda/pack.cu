#include "common/check.h"
#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/pack.h"

namespace zs::kernels::cuda {
namespace {

using internal::from_float;
using internal::to_float;

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 4096;

// Blocks take runs (grid-stride over runs); a block's threads stride over its run's elements
// inside [lo, hi).
template <class F, class B>
__global__ void pack_kernel(const PackRun* runs, std::int64_t num_runs, F* flat, float scale,
                            bool take, std::int64_t lo, std::int64_t hi, B* buffer) {
  for (std::int64_t r = blockIdx.x; r < num_runs; r += gridDim.x) {
    const PackRun run = runs[r];
    const std::int64_t b = max(lo, run.pos), e = min(hi, run.pos + run.n);
    for (std::int64_t p = b + threadIdx.x; p < e; p += blockDim.x) {
      F& x = flat[run.flat + p - run.pos];
      buffer[p] = from_float<B>(to_float(x) * scale);
      if (take) x = from_float<F>(0.0f);
    }
  }
}

template <class B, class F>
__global__ void unpack_kernel(const PackRun* runs, std::int64_t num_runs, const B* buffer,
                              float scale, std::int64_t lo, std::int64_t hi, F* flat, bool add) {
  for (std::int64_t r = blockIdx.x; r < num_runs; r += gridDim.x) {
    const PackRun run = runs[r];
    const std::int64_t b = max(lo, run.pos), e = min(hi, run.pos + run.n);
    for (std::int64_t p = b + threadIdx.x; p < e; p += blockDim.x) {
      float v = to_float(buffer[p]);
      // __fmul_rn: the product is rounded before the add below, as exec::unpack does; a
      // contracted fused multiply-add would round once and differ in the last bit.
      if (scale != 1.0f) v = to_float(from_float<B>(__fmul_rn(v, scale)));
      F& x = flat[run.flat + p - run.pos];
      x = add ? from_float<F>(to_float(x) + v) : from_float<F>(v);
    }
  }
}

__global__ void move_kernel(const PackRun* runs, std::int64_t num_runs, float* from, float* to) {
  for (std::int64_t r = blockIdx.x; r < num_runs; r += gridDim.x) {
    const PackRun run = runs[r];
    for (std::int64_t i = run.flat + threadIdx.x; i < run.flat + run.n; i += blockDim.x) {
      to[i] += from[i];
      from[i] = 0.0f;
    }
  }
}

unsigned blocks_for(std::int64_t num_runs) {
  return static_cast<unsigned>(std::clamp<std::int64_t>(num_runs, 1, kMaxBlocks));
}

std::int64_t elem_size(ElemType t) { return t == ElemType::kF32 ? 4 : 2; }

// Calls f(T{}) with T the storage type of `t`.
template <class Fn>
void with_type(ElemType t, Fn&& f) {
  switch (t) {
    case ElemType::kF32:
      f(float{});
      return;
    case ElemType::kBf16:
      f(__nv_bfloat16{});
      return;
    case ElemType::kF16:
      f(__half{});
      return;
  }
  ZS_UNREACHABLE();
}

}  // namespace

void pack_runs(const PackRun* runs, std::int64_t num_runs, void* flat, ElemType flat_type,
               float scale, bool take, std::int64_t lo, std::int64_t hi, void* buffer,
               ElemType buffer_type, cudaStream_t stream) {
  ZS_CHECK(0 <= lo && lo <= hi && num_runs >= 0);
  if (hi == lo) return;
  ZS_CHECK(buffer != nullptr);
  const std::int64_t es = elem_size(buffer_type);
  ZS_CUDA_CHECK(cudaMemsetAsync(static_cast<char*>(buffer) + lo * es, 0,
                                static_cast<std::size_t>((hi - lo) * es), stream));
  if (num_runs == 0) return;
  ZS_CHECK(runs != nullptr && flat != nullptr);
  with_type(flat_type, [&](auto f) {
    using F = decltype(f);
    with_type(buffer_type, [&](auto b) {
      using B = decltype(b);
      pack_kernel<F, B><<<blocks_for(num_runs), kThreads, 0, stream>>>(
          runs, num_runs, static_cast<F*>(flat), scale, take, lo, hi, static_cast<B*>(buffer));
      ZS_CUDA_CHECK_LAUNCH();
    });
  });
}

void unpack_runs(const PackRun* runs, std::int64_t num_runs, const void* buffer,
                 ElemType buffer_type, float scale, std::int64_t lo, std::int64_t hi, void* flat,
                 ElemType flat_type, bool add, cudaStream_t stream) {
  ZS_CHECK(0 <= lo && lo <= hi && num_runs >= 0);
  ZS_CHECK(!add || flat_type == ElemType::kF32);
  if (hi == lo || num_runs == 0) return;
  ZS_CHECK(runs != nullptr && flat != nullptr && buffer != nullptr);
  with_type(flat_type, [&](auto f) {
    using F = decltype(f);
    with_type(buffer_type, [&](auto b) {
      using B = decltype(b);
      unpack_kernel<B, F><<<blocks_for(num_runs), kThreads, 0, stream>>>(
          runs, num_runs, static_cast<const B*>(buffer), scale, lo, hi, static_cast<F*>(flat), add);
      ZS_CUDA_CHECK_LAUNCH();
    });
  });
}

void move_runs(const PackRun* runs, std::int64_t num_runs, float* from, float* to,
               cudaStream_t stream) {
  ZS_CHECK(num_runs >= 0);
  if (num_runs == 0) return;
  ZS_CHECK(runs != nullptr && from != nullptr && to != nullptr);
  move_kernel<<<blocks_for(num_runs), kThreads, 0, stream>>>(runs, num_runs, from, to);
  ZS_CUDA_CHECK_LAUNCH();
}

}  // namespace zs::kernels::cuda
