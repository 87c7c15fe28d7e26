// FlashAttention-2 forward (Dao 2023, Algorithm 1) on fp32 tiles; contract in attention.h.
#include <cmath>

#include "common/check.h"
#include "kernels/cuda/attention.h"
#include "kernels/cuda/attention_tiles.cuh"

namespace zs::kernels::cuda {
namespace {

using internal::AttentionDims;

// A block: kRows query rows of one (batch, head), kTpr threads per row, kCols keys per tile.
constexpr int kRows = 64;
constexpr int kCols = 64;
constexpr int kTpr = 4;
constexpr int kThreads = kRows * kTpr;

// Shared memory: q (kRows), k and v (kCols) tiles of kD + 1 floats per row, and the
// probabilities (kRows, kCols + 1). 113 KiB at kD = 128.
template <int kD>
constexpr std::size_t smem_bytes() {
  return sizeof(float) * ((kRows + 2 * kCols) * (kD + 1) + kRows * (kCols + 1));
}

// Row r's online softmax (FlashAttention-2's running max and sum) across key tiles.
template <int kD>
struct RowState {
  float max = -INFINITY;      // running max of the scaled scores seen so far
  float sum = 0.0f;           // Σ exp(score - max) so far
  float acc[kD / kTpr] = {};  // Σ exp(score - max)·v_j, features t + kTpr·m
};

// Folds one key tile into thread (r, t)'s row state: s holds q_i·k_j for keys
// k0 + t + kTpr·m; p_row (row r's strip) receives exp(score - new max) for row_accumulate.
template <int kD>
__device__ __forceinline__ void online_softmax_step(const AttentionDims& dims, int i, int k0, int t,
                                                    float (&s)[kCols / kTpr], const float* v_tile,
                                                    float* p_row, RowState<kD>& row) {
  float tile_max = -INFINITY;
#pragma unroll
  for (int m = 0; m < kCols / kTpr; ++m) {
    s[m] = dims.key_visible(i, k0 + t + kTpr * m) ? s[m] * dims.scale : -INFINITY;
    tile_max = fmaxf(tile_max, s[m]);
  }
  // Key 0 is visible to every row and sits in the first tile, so new_max is finite from the
  // first tile on, and the correction of the empty start, exp(-inf), is 0.
  const float new_max = fmaxf(row.max, internal::group_max<kTpr>(tile_max));
  const float correction = expf(row.max - new_max);
  float tile_sum = 0.0f;
#pragma unroll
  for (int m = 0; m < kCols / kTpr; ++m) {
    s[m] = expf(s[m] - new_max);
    tile_sum += s[m];
    p_row[t + kTpr * m] = s[m];
  }
  row.sum = row.sum * correction + internal::group_sum<kTpr>(tile_sum);
  row.max = new_max;
#pragma unroll
  for (int m = 0; m < kD / kTpr; ++m) row.acc[m] *= correction;
  __syncwarp();  // row r's probabilities, written by its kTpr lanes, are visible to all of them
  internal::row_accumulate<kCols, kTpr, kD>(p_row, v_tile, t, row.acc);
}

// Block (query tile, head, batch). Thread (r, t) keeps row r's state in registers; after the
// last key tile it stores out_i = acc / sum and lse_i = max + log(sum).
template <class T, int kD>
__global__ void __launch_bounds__(kThreads)
    attention_forward_kernel(AttentionDims dims, const T* q, const T* k, const T* v, T* out,
                             float* lse) {
  extern __shared__ float smem[];
  constexpr int kStride = kD + 1;
  float* q_tile = smem;
  float* k_tile = q_tile + kRows * kStride;
  float* v_tile = k_tile + kCols * kStride;
  float* p_tile = v_tile + kCols * kStride;

  const int q0 = static_cast<int>(blockIdx.x) * kRows;
  const int head = static_cast<int>(blockIdx.y);
  const int batch = static_cast<int>(blockIdx.z);
  const int r = static_cast<int>(threadIdx.x) / kTpr;
  const int t = static_cast<int>(threadIdx.x) % kTpr;
  const int i = q0 + r;
  const int d = dims.head_dim;
  const std::int64_t q_off = dims.q_offset(batch, head);
  const std::int64_t kv_off = dims.kv_offset(batch, head / dims.group);
  internal::load_tile<kRows, kD>(q_tile, q + q_off, dims.q_stride(), q0, dims.seq, d);

  RowState<kD> row;
  // Causal: the block's last query row sees keys up to itself.
  const int kv_end = dims.causal ? min(dims.seq, q0 + kRows) : dims.seq;
  for (int k0 = 0; k0 < kv_end; k0 += kCols) {
    __syncthreads();  // the previous k/v tiles are consumed (the first time: q_tile is loaded)
    internal::load_tile<kCols, kD>(k_tile, k + kv_off, dims.kv_stride(), k0, dims.seq, d);
    internal::load_tile<kCols, kD>(v_tile, v + kv_off, dims.kv_stride(), k0, dims.seq, d);
    __syncthreads();
    float s[kCols / kTpr];
    internal::row_dots<kCols, kTpr, kD>(q_tile + r * kStride, k_tile, t, d, s);
    online_softmax_step<kD>(dims, i, k0, t, s, v_tile, p_tile + r * (kCols + 1), row);
  }
  if (i >= dims.seq) return;
  internal::store_row<kTpr, kD>(out + q_off + i * dims.q_stride(), row.acc, 1.0f / row.sum, t, d);
  if (t == 0) lse[dims.lse_offset(batch, head) + i] = row.max + logf(row.sum);
}

template <class T, int kD>
void launch(const AttentionDims& dims, int batch, const T* q, const T* k, const T* v, T* out,
            float* lse, cudaStream_t stream) {
  constexpr std::size_t bytes = smem_bytes<kD>();
  internal::allow_shared_memory(attention_forward_kernel<T, kD>, bytes);
  const dim3 grid(static_cast<unsigned>(internal::ceil_div(dims.seq, kRows)),
                  static_cast<unsigned>(dims.heads), static_cast<unsigned>(batch));
  attention_forward_kernel<T, kD><<<grid, kThreads, bytes, stream>>>(dims, q, k, v, out, lse);
  ZS_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
void attention_forward(const models::AttentionShape& shape, const T* q, const T* k, const T* v,
                       T* out, float* lse, cudaStream_t stream) {
  const AttentionDims dims = internal::attention_dims(shape);
  ZS_CHECK(q != nullptr && k != nullptr && v != nullptr && out != nullptr && lse != nullptr);
  const int batch = static_cast<int>(shape.batch);
  switch (internal::head_dim_bucket(dims.head_dim)) {
    case 32:
      launch<T, 32>(dims, batch, q, k, v, out, lse, stream);
      break;
    case 64:
      launch<T, 64>(dims, batch, q, k, v, out, lse, stream);
      break;
    default:
      launch<T, 128>(dims, batch, q, k, v, out, lse, stream);
      break;
  }
}

#define ZS_INSTANTIATE(T)                                                                         \
  template void attention_forward<T>(const models::AttentionShape&, const T*, const T*, const T*, \
                                     T*, float*, cudaStream_t);
ZS_FOR_EACH_STORAGE_TYPE(ZS_INSTANTIATE)
#undef ZS_INSTANTIATE

}  // namespace zs::kernels::cuda
