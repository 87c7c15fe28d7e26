// Tile machinery shared by attention_forward.cu and attention_backward.cu (internal).
//
// A block owns kRows "row" vectors of one head (query rows, or key rows for dk/dv) and walks
// tiles of kCols "column" vectors (keys, or query rows) through shared memory. Thread
// (r, t) = (threadIdx.x / kTpr, threadIdx.x % kTpr) owns row r; its kTpr threads are adjacent
// lanes of one warp, so a row's partial results are combined with shuffles and exchanged through
// a per-row shared-memory strip with __syncwarp only. Within a tile the thread computes the
// products of row r with columns t, t + kTpr, t + 2·kTpr, ... and accumulates output features
// t, t + kTpr, ... of row r.
// Tiles are fp32, rows padded to kD + 1 floats: threads of a warp reading one feature of
// different rows then hit different banks (kD is a multiple of 32).
#pragma once

#include <cmath>
#include <cstdint>

#include "common/check.h"
#include "kernels/cuda/device_util.cuh"
#include "models/ops.h"

namespace zs::kernels::cuda::internal {

// Index arithmetic of one attention call (the CPU twin's HeadView), passed by value to kernels.
struct AttentionDims {
  int seq, heads, kv_heads, head_dim;
  int group;    // heads / kv_heads: query heads per kv head
  float scale;  // 1 / sqrt(head_dim), rounded to fp32 on the host as the CPU twin does
  bool causal;

  // Elements between consecutive tokens of a (b, s, heads, d) or (b, s, kv_heads, d) tensor.
  __host__ __device__ std::int64_t q_stride() const {
    return static_cast<std::int64_t>(heads) * head_dim;
  }
  __host__ __device__ std::int64_t kv_stride() const {
    return static_cast<std::int64_t>(kv_heads) * head_dim;
  }
  // Offset of (batch, token 0, head, feature 0); of lse (batch, head, token 0).
  __host__ __device__ std::int64_t q_offset(int batch, int head) const {
    return (static_cast<std::int64_t>(batch) * seq * heads + head) * head_dim;
  }
  __host__ __device__ std::int64_t kv_offset(int batch, int kv_head) const {
    return (static_cast<std::int64_t>(batch) * seq * kv_heads + kv_head) * head_dim;
  }
  __host__ __device__ std::int64_t lse_offset(int batch, int head) const {
    return (static_cast<std::int64_t>(batch) * heads + head) * seq;
  }
  // Whether key j is a real key that query row i attends to. Padding rows (i >= seq) see key 0,
  // so their softmax stays finite; their results are never stored.
  __host__ __device__ bool key_visible(int i, int j) const {
    return j < seq && (!causal || j <= i);
  }
};

// AttentionDims from the shape, with the CPU twin's checks and the kernels' limits.
inline AttentionDims attention_dims(const models::AttentionShape& a) {
  ZS_CHECK(a.batch >= 1 && a.seq >= 1 && a.heads >= 1 && a.kv_heads >= 1 && a.head_dim >= 1);
  ZS_CHECK_MSG(a.heads % a.kv_heads == 0, "query heads must be a multiple of kv heads");
  ZS_CHECK_MSG(a.dropout == 0.0, "attention kernels do not implement dropout");
  ZS_CHECK_MSG(a.head_dim <= 128, "the CUDA attention kernels support head_dim <= 128");
  ZS_CHECK_MSG(a.batch <= 65535 && a.heads <= 65535, "batch and heads are grid dimensions");
  ZS_CHECK_MSG(a.seq < (std::int64_t{1} << 30), "token indices are int");
  AttentionDims dims;
  dims.seq = static_cast<int>(a.seq);
  dims.heads = static_cast<int>(a.heads);
  dims.kv_heads = static_cast<int>(a.kv_heads);
  dims.head_dim = static_cast<int>(a.head_dim);
  dims.group = static_cast<int>(a.heads / a.kv_heads);
  dims.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(a.head_dim)));
  dims.causal = a.causal;
  return dims;
}

// head_dim rounded up to the tile width the kernels are compiled for: 32, 64 or 128.
inline int head_dim_bucket(int head_dim) {
  if (head_dim <= 32) return 32;
  if (head_dim <= 64) return 64;
  return 128;
}

// Sets a kernel's dynamic shared memory limit (needed past 48 KiB) before its launch.
template <class Kernel>
void allow_shared_memory(Kernel kernel, std::size_t bytes) {
  ZS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(bytes)));
}

// Loads rows [row0, row0 + kRows) of one head into tile (kRows, kD + 1) as fp32. src points at
// the head's token 0; consecutive tokens are `stride` elements apart. Rows at or past seq and
// features at or past d are zero. Called by every thread of the block (no synchronization).
template <int kRows, int kD, class T>
__device__ void load_tile(float* tile, const T* src, std::int64_t stride, int row0, int seq,
                          int d) {
  for (int e = static_cast<int>(threadIdx.x); e < kRows * kD; e += static_cast<int>(blockDim.x)) {
    const int r = e / kD;
    const int c = e % kD;
    const int row = row0 + r;
    float value = 0.0f;
    if (row < seq && c < d) value = to_float(src[row * stride + c]);
    tile[r * (kD + 1) + c] = value;
  }
}

// acc[m] = a_row · cols[t + kTpr·m] over the first d features, m < kCols / kTpr.
template <int kCols, int kTpr, int kD>
__device__ __forceinline__ void row_dots(const float* a_row, const float* cols, int t, int d,
                                         float (&acc)[kCols / kTpr]) {
#pragma unroll
  for (int m = 0; m < kCols / kTpr; ++m) acc[m] = 0.0f;
#pragma unroll 4
  for (int c = 0; c < d; ++c) {
    const float a = a_row[c];
#pragma unroll
    for (int m = 0; m < kCols / kTpr; ++m) acc[m] += a * cols[(t + kTpr * m) * (kD + 1) + c];
  }
}

// acc[m] += Σ_j weights[j] · cols[j][t + kTpr·m] over the kCols columns, m < kD / kTpr
// (padding features of cols are zero, so acc stays zero there).
template <int kCols, int kTpr, int kD>
__device__ __forceinline__ void row_accumulate(const float* weights, const float* cols, int t,
                                               float (&acc)[kD / kTpr]) {
#pragma unroll 4
  for (int j = 0; j < kCols; ++j) {
    const float w = weights[j];
#pragma unroll
    for (int m = 0; m < kD / kTpr; ++m) acc[m] += w * cols[j * (kD + 1) + t + kTpr * m];
  }
}

// Stores acc[m] · factor, rounded to T, into features t + kTpr·m < d of row (dst points there).
template <int kTpr, int kD, class T>
__device__ __forceinline__ void store_row(T* dst, const float (&acc)[kD / kTpr], float factor,
                                          int t, int d) {
#pragma unroll
  for (int m = 0; m < kD / kTpr; ++m) {
    const int c = t + kTpr * m;
    if (c < d) dst[c] = from_float<T>(acc[m] * factor);
  }
}

}  // namespace zs::kernels::cuda::internal
