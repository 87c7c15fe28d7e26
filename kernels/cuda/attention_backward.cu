// FlashAttention-2 backward (Dao 2023, Algorithm 2) on fp32 tiles; contract in attention.h.
//
// Two kernels, so that every gradient element has exactly one writer and no float atomics are
// needed (FlashAttention-2 adds dq with atomics instead):
//   dkv: one block per (key tile, kv head, batch) walks every query tile of every query head in
//        the group and accumulates dk and dv for its keys;
//   dq:  one block per (query tile, head, batch) walks the key tiles and accumulates dq.
// Both recompute P from lse, and D_i = dout_i·out_i from the saved out; the price is computing
// Q·Kᵀ twice instead of once.
#include <cmath>

#include "common/check.h"
#include "kernels/cuda/attention.h"
#include "kernels/cuda/attention_tiles.cuh"

namespace zs::kernels::cuda {
namespace {

using internal::AttentionDims;
using internal::kWarpSize;

// dq kernel: kQRows query rows per block, kQTpr threads per row, kQCols keys per tile.
constexpr int kQRows = 64;
constexpr int kQCols = 32;
constexpr int kQTpr = 4;
constexpr int kQThreads = kQRows * kQTpr;
// dkv kernel: kKvRows keys per block, kKvTpr threads per key, kKvCols query rows per tile.
constexpr int kKvRows = 32;
constexpr int kKvCols = 64;
constexpr int kKvTpr = 8;
constexpr int kKvThreads = kKvRows * kKvTpr;

// q and dout tiles (kQRows), k and v tiles (kQCols), dS (kQRows, kQCols + 1). 105 KiB at 128.
template <int kD>
constexpr std::size_t dq_smem_bytes() {
  return sizeof(float) * ((2 * kQRows + 2 * kQCols) * (kD + 1) + kQRows * (kQCols + 1));
}
// k and v tiles (kKvRows), q and dout tiles (kKvCols), P or dS (kKvRows, kKvCols + 1), and the
// query rows' lse and D. 105 KiB at kD = 128.
template <int kD>
constexpr std::size_t dkv_smem_bytes() {
  return sizeof(float) *
         ((2 * kKvRows + 2 * kKvCols) * (kD + 1) + kKvRows * (kKvCols + 1) + 2 * kKvCols);
}

// The backward's inputs, shared by both kernels.
template <class T>
struct BackwardInputs {
  const T* q;
  const T* k;
  const T* v;
  const T* out;
  const float* lse;
  const T* dout;
};

// Block (query tile, head, batch): dq_i = scale·Σ_j P[i][j]·(dout_i·v_j - D_i)·k_j.
template <class T, int kD>
__global__ void __launch_bounds__(kQThreads)
    attention_dq_kernel(AttentionDims dims, BackwardInputs<T> in, T* dq) {
  extern __shared__ float smem[];
  constexpr int kStride = kD + 1;
  float* q_tile = smem;
  float* do_tile = q_tile + kQRows * kStride;
  float* k_tile = do_tile + kQRows * kStride;
  float* v_tile = k_tile + kQCols * kStride;
  float* ds_tile = v_tile + kQCols * kStride;

  const int q0 = static_cast<int>(blockIdx.x) * kQRows;
  const int head = static_cast<int>(blockIdx.y);
  const int batch = static_cast<int>(blockIdx.z);
  const int r = static_cast<int>(threadIdx.x) / kQTpr;
  const int t = static_cast<int>(threadIdx.x) % kQTpr;
  const int i = q0 + r;
  const int d = dims.head_dim;
  const std::int64_t q_off = dims.q_offset(batch, head);
  const std::int64_t kv_off = dims.kv_offset(batch, head / dims.group);
  internal::load_tile<kQRows, kD>(q_tile, in.q + q_off, dims.q_stride(), q0, dims.seq, d);
  internal::load_tile<kQRows, kD>(do_tile, in.dout + q_off, dims.q_stride(), q0, dims.seq, d);
  __syncthreads();

  // Row i's lse and D_i = dout_i·out_i (FlashAttention-2's D, from the forward's out).
  float lse_i = 0.0f;
  float d_i = 0.0f;
  if (i < dims.seq) {
    lse_i = in.lse[dims.lse_offset(batch, head) + i];
    const T* out_row = in.out + q_off + i * dims.q_stride();
    for (int c = t; c < d; c += kQTpr) {
      d_i += do_tile[r * kStride + c] * internal::to_float(out_row[c]);
    }
  }
  d_i = internal::group_sum<kQTpr>(d_i);

  float acc[kD / kQTpr] = {};  // Σ_j dS[i][j]·k_j, features t + kQTpr·m
  float* ds_row = ds_tile + r * (kQCols + 1);
  const int kv_end = dims.causal ? min(dims.seq, q0 + kQRows) : dims.seq;
  for (int k0 = 0; k0 < kv_end; k0 += kQCols) {
    __syncthreads();  // the previous k/v tiles and dS strips are consumed
    internal::load_tile<kQCols, kD>(k_tile, in.k + kv_off, dims.kv_stride(), k0, dims.seq, d);
    internal::load_tile<kQCols, kD>(v_tile, in.v + kv_off, dims.kv_stride(), k0, dims.seq, d);
    __syncthreads();
    float s[kQCols / kQTpr];
    float dp[kQCols / kQTpr];
    internal::row_dots<kQCols, kQTpr, kD>(q_tile + r * kStride, k_tile, t, d, s);
    internal::row_dots<kQCols, kQTpr, kD>(do_tile + r * kStride, v_tile, t, d, dp);
#pragma unroll
    for (int m = 0; m < kQCols / kQTpr; ++m) {
      const bool visible = i < dims.seq && dims.key_visible(i, k0 + t + kQTpr * m);
      const float p = visible ? expf(s[m] * dims.scale - lse_i) : 0.0f;
      ds_row[t + kQTpr * m] = p * (dp[m] - d_i);
    }
    __syncwarp();  // row r's dS strip is complete for all of its lanes
    internal::row_accumulate<kQCols, kQTpr, kD>(ds_row, k_tile, t, acc);
  }
  if (i >= dims.seq) return;
  internal::store_row<kQTpr, kD>(dq + q_off + i * dims.q_stride(), acc, dims.scale, t, d);
}

// lse and D for the kKvCols query rows of the current tile, one warp per row.
template <class T, int kD>
__device__ void query_row_stats(const AttentionDims& dims, const BackwardInputs<T>& in,
                                std::int64_t q_off, std::int64_t lse_off, int q0,
                                const float* do_tile, float* lse_tile, float* d_tile) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warps = static_cast<int>(blockDim.x) / kWarpSize;
  for (int row = static_cast<int>(threadIdx.x) / kWarpSize; row < kKvCols; row += warps) {
    const int i = q0 + row;
    float sum = 0.0f;
    if (i < dims.seq) {
      const T* out_row = in.out + q_off + i * dims.q_stride();
      for (int c = lane; c < dims.head_dim; c += kWarpSize) {
        sum += do_tile[row * (kD + 1) + c] * internal::to_float(out_row[c]);
      }
    }
    sum = internal::group_sum(sum);
    if (lane == 0) {
      d_tile[row] = sum;
      lse_tile[row] = i < dims.seq ? in.lse[lse_off + i] : 0.0f;
    }
  }
}

// The dkv kernel's shared memory: k and v tiles of the block's keys (kKvRows), q and dout tiles
// of the current query rows (kKvCols), one P/dS strip per key, and the query rows' lse and D.
struct DkvTiles {
  float* k;
  float* v;
  float* q;
  float* dout;
  float* p;  // (kKvRows, kKvCols + 1)
  float* lse;
  float* d;
};
template <int kD>
__device__ DkvTiles carve_dkv_tiles(float* smem) {
  DkvTiles tiles;
  tiles.k = smem;
  tiles.v = tiles.k + kKvRows * (kD + 1);
  tiles.q = tiles.v + kKvRows * (kD + 1);
  tiles.dout = tiles.q + kKvCols * (kD + 1);
  tiles.p = tiles.dout + kKvCols * (kD + 1);
  tiles.lse = tiles.p + kKvRows * (kKvCols + 1);
  tiles.d = tiles.lse + kKvCols;
  return tiles;
}

// Thread (r, t) of the dkv kernel against the query tile starting at q0 (loaded, with its lse
// and D): P[i][j] and dS[i][j] for key j = k0 + r and query rows t, t + kKvTpr, ..., then
// dv_j += Σ_i P[i][j]·dout_i and dk_j += Σ_i dS[i][j]·q_i (scaled at the store).
template <int kD>
__device__ __forceinline__ void dkv_tile_step(const AttentionDims& dims, const DkvTiles& tiles,
                                              int j, int q0, int r, int t,
                                              float (&dk_acc)[kD / kKvTpr],
                                              float (&dv_acc)[kD / kKvTpr]) {
  constexpr int kStride = kD + 1;
  float s[kKvCols / kKvTpr];   // k_j·q_i, then dS[i][j]
  float dp[kKvCols / kKvTpr];  // v_j·dout_i
  internal::row_dots<kKvCols, kKvTpr, kD>(tiles.k + r * kStride, tiles.q, t, dims.head_dim, s);
  internal::row_dots<kKvCols, kKvTpr, kD>(tiles.v + r * kStride, tiles.dout, t, dims.head_dim, dp);
  float* p_row = tiles.p + r * (kKvCols + 1);
#pragma unroll
  for (int m = 0; m < kKvCols / kKvTpr; ++m) {
    const int row = t + kKvTpr * m;
    const int i = q0 + row;
    const bool visible = i < dims.seq && j < dims.seq && dims.key_visible(i, j);
    const float p = visible ? expf(s[m] * dims.scale - tiles.lse[row]) : 0.0f;
    s[m] = p * (dp[m] - tiles.d[row]);
    p_row[row] = p;
  }
  __syncwarp();  // P strip complete
  internal::row_accumulate<kKvCols, kKvTpr, kD>(p_row, tiles.dout, t, dv_acc);
  __syncwarp();  // P strip consumed before it is overwritten with dS
#pragma unroll
  for (int m = 0; m < kKvCols / kKvTpr; ++m) p_row[t + kKvTpr * m] = s[m];
  __syncwarp();
  internal::row_accumulate<kKvCols, kKvTpr, kD>(p_row, tiles.q, t, dk_acc);
}

// Block (key tile, kv head, batch): for key j, over every query head h of the group and every
// query row i: dv_j += P[i][j]·dout_i, dk_j += scale·dS[i][j]·q_i.
template <class T, int kD>
__global__ void __launch_bounds__(kKvThreads)
    attention_dkv_kernel(AttentionDims dims, BackwardInputs<T> in, T* dk, T* dv) {
  extern __shared__ float smem[];
  const DkvTiles tiles = carve_dkv_tiles<kD>(smem);
  const int k0 = static_cast<int>(blockIdx.x) * kKvRows;
  const int kv_head = static_cast<int>(blockIdx.y);
  const int batch = static_cast<int>(blockIdx.z);
  const int r = static_cast<int>(threadIdx.x) / kKvTpr;
  const int t = static_cast<int>(threadIdx.x) % kKvTpr;
  const int j = k0 + r;
  const int d = dims.head_dim;
  const std::int64_t kv_off = dims.kv_offset(batch, kv_head);
  internal::load_tile<kKvRows, kD>(tiles.k, in.k + kv_off, dims.kv_stride(), k0, dims.seq, d);
  internal::load_tile<kKvRows, kD>(tiles.v, in.v + kv_off, dims.kv_stride(), k0, dims.seq, d);

  float dk_acc[kD / kKvTpr] = {};
  float dv_acc[kD / kKvTpr] = {};
  // Causal: query rows before the tile's first key see none of its keys.
  const int q_begin = dims.causal ? (k0 / kKvCols) * kKvCols : 0;
  for (int g = 0; g < dims.group; ++g) {
    const int head = kv_head * dims.group + g;
    const std::int64_t q_off = dims.q_offset(batch, head);
    for (int q0 = q_begin; q0 < dims.seq; q0 += kKvCols) {
      __syncthreads();  // the previous q/dout tiles and P/dS strips are consumed
      internal::load_tile<kKvCols, kD>(tiles.q, in.q + q_off, dims.q_stride(), q0, dims.seq, d);
      internal::load_tile<kKvCols, kD>(tiles.dout, in.dout + q_off, dims.q_stride(), q0, dims.seq,
                                       d);
      __syncthreads();
      query_row_stats<T, kD>(dims, in, q_off, dims.lse_offset(batch, head), q0, tiles.dout,
                             tiles.lse, tiles.d);
      __syncthreads();
      dkv_tile_step<kD>(dims, tiles, j, q0, r, t, dk_acc, dv_acc);
    }
  }
  if (j >= dims.seq) return;
  internal::store_row<kKvTpr, kD>(dk + kv_off + j * dims.kv_stride(), dk_acc, dims.scale, t, d);
  internal::store_row<kKvTpr, kD>(dv + kv_off + j * dims.kv_stride(), dv_acc, 1.0f, t, d);
}

template <class T, int kD>
void launch(const AttentionDims& dims, int batch, const BackwardInputs<T>& in, T* dq, T* dk, T* dv,
            cudaStream_t stream) {
  constexpr std::size_t kv_bytes = dkv_smem_bytes<kD>();
  internal::allow_shared_memory(attention_dkv_kernel<T, kD>, kv_bytes);
  const dim3 kv_grid(static_cast<unsigned>(internal::ceil_div(dims.seq, kKvRows)),
                     static_cast<unsigned>(dims.kv_heads), static_cast<unsigned>(batch));
  attention_dkv_kernel<T, kD><<<kv_grid, kKvThreads, kv_bytes, stream>>>(dims, in, dk, dv);
  ZS_CUDA_CHECK_LAUNCH();

  constexpr std::size_t q_bytes = dq_smem_bytes<kD>();
  internal::allow_shared_memory(attention_dq_kernel<T, kD>, q_bytes);
  const dim3 q_grid(static_cast<unsigned>(internal::ceil_div(dims.seq, kQRows)),
                    static_cast<unsigned>(dims.heads), static_cast<unsigned>(batch));
  attention_dq_kernel<T, kD><<<q_grid, kQThreads, q_bytes, stream>>>(dims, in, dq);
  ZS_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
void attention_backward(const models::AttentionShape& shape, const T* q, const T* k, const T* v,
                        const T* out, const float* lse, const T* dout, T* dq, T* dk, T* dv,
                        cudaStream_t stream) {
  const AttentionDims dims = internal::attention_dims(shape);
  ZS_CHECK(q != nullptr && k != nullptr && v != nullptr && out != nullptr && lse != nullptr &&
           dout != nullptr && dq != nullptr && dk != nullptr && dv != nullptr);
  const BackwardInputs<T> in{q, k, v, out, lse, dout};
  const int batch = static_cast<int>(shape.batch);
  switch (internal::head_dim_bucket(dims.head_dim)) {
    case 32:
      launch<T, 32>(dims, batch, in, dq, dk, dv, stream);
      break;
    case 64:
      launch<T, 64>(dims, batch, in, dq, dk, dv, stream);
      break;
    default:
      launch<T, 128>(dims, batch, in, dq, dk, dv, stream);
      break;
  }
}

#define ZS_INSTANTIATE(T)                                                                          \
  template void attention_backward<T>(const models::AttentionShape&, const T*, const T*, const T*, \
                                      const T*, const float*, const T*, T*, T*, T*, cudaStream_t);
ZS_FOR_EACH_STORAGE_TYPE(ZS_INSTANTIATE)
#undef ZS_INSTANTIATE

}  // namespace zs::kernels::cuda
