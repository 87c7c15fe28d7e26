#include "common/check.h"
#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/norm.h"

namespace zs::kernels::cuda {
namespace {

using internal::block_sum;
using internal::from_float;
using internal::kWarpSize;
using internal::to_float;
using models::NormKind;

// Threads of the per-row kernels (one block per row, threads stride over the columns).
constexpr int kRowThreads = 256;
// The column-sum kernel: a block covers kColumnTile columns (one warp, coalesced) with
// kRowLanes threads per column striding over the rows.
constexpr int kColumnTile = 32;
constexpr int kRowLanes = 8;

void check_shape(const models::NormShape& shape, const float* mean, const void* bias) {
  ZS_CHECK(shape.rows >= 1 && shape.cols >= 1);
  ZS_CHECK_MSG(shape.rows <= 0x7FFFFFFF, "one block per row: rows must fit a grid dimension");
  if (shape.kind == NormKind::kLayerNorm) {
    ZS_CHECK_MSG(mean != nullptr, "LayerNorm needs the per-row mean buffer");
  } else {
    ZS_CHECK_MSG(mean == nullptr, "RMSNorm has no mean: pass nullptr");
    ZS_CHECK_MSG(bias == nullptr, "RMSNorm has no bias: pass nullptr");
  }
}

// One block per row. mean is nullptr for RMSNorm (no mean subtraction).
template <class T>
__global__ void __launch_bounds__(kRowThreads)
    norm_forward_kernel(std::int64_t cols, float eps, const T* x, const T* weight, const T* bias,
                        T* out, float* mean, float* rstd) {
  __shared__ float scratch[kWarpSize];
  const std::int64_t row = blockIdx.x;
  const T* xr = x + row * cols;
  T* yr = out + row * cols;
  const auto c = static_cast<float>(cols);
  float m = 0.0f;
  if (mean != nullptr) {
    float sum = 0.0f;
    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) sum += to_float(xr[j]);
    m = block_sum(sum, scratch) / c;
  }
  float sq = 0.0f;  // Σ(x - mean)², two-pass as the CPU twin (no E[x²] - mean² cancellation)
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    const float d = to_float(xr[j]) - m;
    sq += d * d;
  }
  const float r = 1.0f / sqrtf(block_sum(sq, scratch) / c + eps);
  // Every read of the row is done (block_sum synchronizes), so out may alias x.
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    const float xhat = (to_float(xr[j]) - m) * r;
    const float b = bias != nullptr ? to_float(bias[j]) : 0.0f;
    yr[j] = from_float<T>(xhat * to_float(weight[j]) + b);
  }
  if (threadIdx.x == 0) {
    if (mean != nullptr) mean[row] = m;
    rstd[row] = r;
  }
}

// Block (kColumnTile, kRowLanes): dweight[j] += Σrows dout·xhat, dbias[j] += Σrows dout for the
// block's columns; each thread sums every kRowLanes-th row, then the lanes add in lane order.
template <class T>
__global__ void __launch_bounds__(kColumnTile* kRowLanes)
    norm_param_grad_kernel(std::int64_t rows, std::int64_t cols, const T* dout, const T* x,
                           const float* mean, const float* rstd, float* dweight, float* dbias) {
  __shared__ float dw_part[kRowLanes][kColumnTile + 1];
  __shared__ float db_part[kRowLanes][kColumnTile + 1];
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * kColumnTile + threadIdx.x;
  float dw = 0.0f;
  float db = 0.0f;
  if (j < cols) {
    for (std::int64_t r = threadIdx.y; r < rows; r += kRowLanes) {
      const float d = to_float(dout[r * cols + j]);
      const float m = mean != nullptr ? mean[r] : 0.0f;
      const float xhat = (to_float(x[r * cols + j]) - m) * rstd[r];
      dw += d * xhat;
      db += d;
    }
  }
  dw_part[threadIdx.y][threadIdx.x] = dw;
  db_part[threadIdx.y][threadIdx.x] = db;
  __syncthreads();
  if (threadIdx.y != 0 || j >= cols) return;
  float dw_sum = 0.0f;
  float db_sum = 0.0f;
  for (int lane = 0; lane < kRowLanes; ++lane) {
    dw_sum += dw_part[lane][threadIdx.x];
    db_sum += db_part[lane][threadIdx.x];
  }
  dweight[j] += dw_sum;
  if (dbias != nullptr) dbias[j] += db_sum;
}

// One block per row: dx = rstd·(g - mean(g) - xhat·mean(g·xhat)) with g = dout·weight (the
// mean(g) term is LayerNorm's only).
template <class T>
__global__ void __launch_bounds__(kRowThreads)
    norm_input_grad_kernel(std::int64_t cols, const T* dout, const T* x, const T* weight,
                           const float* mean, const float* rstd, T* dx) {
  __shared__ float scratch[kWarpSize];
  const std::int64_t row = blockIdx.x;
  const T* dyr = dout + row * cols;
  const T* xr = x + row * cols;
  T* dxr = dx + row * cols;
  const float m = mean != nullptr ? mean[row] : 0.0f;
  const float r = rstd[row];
  const auto c = static_cast<float>(cols);
  float g_sum = 0.0f;
  float g_xhat_sum = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    const float xhat = (to_float(xr[j]) - m) * r;
    const float g = to_float(dyr[j]) * to_float(weight[j]);
    g_sum += g;
    g_xhat_sum += g * xhat;
  }
  const float g_mean = mean != nullptr ? block_sum(g_sum, scratch) / c : 0.0f;
  const float g_xhat_mean = block_sum(g_xhat_sum, scratch) / c;
  // Each thread reads dout[j] before it writes dx[j], and no other thread touches j: dx may
  // alias dout.
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    const float xhat = (to_float(xr[j]) - m) * r;
    const float g = to_float(dyr[j]) * to_float(weight[j]);
    dxr[j] = from_float<T>(r * (g - g_mean - xhat * g_xhat_mean));
  }
}

}  // namespace

template <class T>
void norm_forward(const models::NormShape& shape, double eps, const T* x, const T* weight,
                  const T* bias, T* out, float* mean, float* rstd, cudaStream_t stream) {
  check_shape(shape, mean, bias);
  ZS_CHECK(eps > 0);
  ZS_CHECK(x != nullptr && weight != nullptr && out != nullptr && rstd != nullptr);
  norm_forward_kernel<<<static_cast<unsigned>(shape.rows), kRowThreads, 0, stream>>>(
      shape.cols, static_cast<float>(eps), x, weight, bias, out, mean, rstd);
  ZS_CUDA_CHECK_LAUNCH();
}

template <class T>
void norm_backward(const models::NormShape& shape, const T* dout, const T* x, const T* weight,
                   const float* mean, const float* rstd, T* dx, float* dweight, float* dbias,
                   cudaStream_t stream) {
  check_shape(shape, mean, dbias);
  ZS_CHECK(dout != nullptr && x != nullptr && weight != nullptr && rstd != nullptr);
  ZS_CHECK(dx != nullptr && dweight != nullptr);
  // Parameter gradients first: they read dout, which dx may overwrite.
  const auto column_blocks = static_cast<unsigned>(internal::ceil_div(shape.cols, kColumnTile));
  norm_param_grad_kernel<<<column_blocks, dim3(kColumnTile, kRowLanes), 0, stream>>>(
      shape.rows, shape.cols, dout, x, mean, rstd, dweight, dbias);
  ZS_CUDA_CHECK_LAUNCH();
  norm_input_grad_kernel<<<static_cast<unsigned>(shape.rows), kRowThreads, 0, stream>>>(
      shape.cols, dout, x, weight, mean, rstd, dx);
  ZS_CUDA_CHECK_LAUNCH();
}

#define ZS_INSTANTIATE(T)                                                                       \
  template void norm_forward<T>(const models::NormShape&, double, const T*, const T*, const T*, \
                                T*, float*, float*, cudaStream_t);                              \
  template void norm_backward<T>(const models::NormShape&, const T*, const T*, const T*,        \
                                 const float*, const float*, T*, float*, float*, cudaStream_t);
ZS_FOR_EACH_STORAGE_TYPE(ZS_INSTANTIATE)
#undef ZS_INSTANTIATE

}  // namespace zs::kernels::cuda
