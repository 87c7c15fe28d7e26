// Dense matrix products on the device through cuBLASLt: the CUDA twins of kernels/cpu/linear.h
// (a general matmul and the Linear layer), same shapes, layouts and semantics.
//
// Conventions (kernels/cuda/types.h): inputs are T (float, __nv_bfloat16 or __half); cuBLASLt
// multiplies with CUBLAS_COMPUTE_32F (fp32 products and accumulation, no TF32; split-k partial
// sums are reduced in fp32 too) and writes T, or fp32 for the weight gradient, which
// ACCUMULATES (beta = 1); input gradients are OVERWRITTEN; each call enqueues on `stream`;
// REQUIRES: abort through ZS_CHECK; a cuBLAS failure aborts through ZS_CUBLAS_CHECK.
// Layout (as the CPU twin): row-major; a Linear weight is (n, k), torch.nn.Linear's
// (out_features, in_features), so y (m, n) = x (m, k) · wᵀ + bias (n).
// cuBLASLt is column-major: a row-major (r, c) matrix is read as its column-major transpose, and
// C = op(A)·op(B) is computed as Cᵀ = op(B)ᵀ·op(A)ᵀ. Determinism: cuBLAS gives bitwise the
// same results run to run for one toolkit version, architecture and SM count (cuBLAS docs,
// "Results reproducibility"), and the bias-gradient column sums are a fixed-order kernel.
#pragma once

#include <cstdint>
#include <memory>

#include "kernels/cpu/linear.h"
#include "kernels/cuda/types.h"
#include "models/ops.h"

namespace zs::kernels::cuda {

// A cuBLASLt handle and its workspace on the current device: created once, passed to every
// matmul. Move-only. The workspace is shared by every call made with this context, so calls
// on different streams must not overlap (use one context per concurrently used stream).
// A failure to create the handle or allocate the workspace aborts (ZS_CUBLAS_CHECK /
// ZS_CUDA_CHECK): it means the environment is broken.
class LtContext {
 public:
  // cuBLAS's recommended workspace for Hopper (cuBLAS docs, cublasSetWorkspace: 32 MiB on
  // sm_90, 4 MiB on earlier architectures).
  static constexpr std::int64_t kDefaultWorkspaceBytes = std::int64_t{32} << 20;

  // REQUIRES: workspace_bytes >= 0; a current CUDA device.
  explicit LtContext(std::int64_t workspace_bytes = kDefaultWorkspaceBytes);
  // The same with a workspace the caller owns (the executor's caching allocator gives it, as
  // PyTorch takes its cuBLAS workspace from its own allocator), used in place of cudaMalloc.
  // REQUIRES: workspace_bytes >= 0; workspace non-null and 256-byte aligned when
  // workspace_bytes > 0, and alive and used by nothing else until this context is destroyed.
  LtContext(void* workspace, std::int64_t workspace_bytes);
  ~LtContext();
  LtContext(LtContext&& other) noexcept;
  LtContext& operator=(LtContext&& other) noexcept;
  LtContext(const LtContext&) = delete;
  LtContext& operator=(const LtContext&) = delete;

  std::int64_t workspace_bytes() const;

 private:
  struct Impl;                    // the cuBLASLt handle and the workspace (linear.cu)
  friend struct LtContextAccess;  // linear.cu's way to the handle
  std::unique_ptr<Impl> impl_;
};

// c (m, n) = op(a) · op(b), overwritten, or accumulated into (c += ...) when s.accumulate.
// op(a) is (m, k): a stored (m, k), or (k, m) when s.transpose_a; op(b) is (k, n): b stored
// (k, n), or (n, k) when s.transpose_b (cpu::MatmulShape). TOut is T, or float (fp32 output,
// e.g. for accumulating weight gradients); for T = float, TOut is float.
// REQUIRES: m, n, k >= 1; a, b, c non-null; c overlaps neither a nor b.
template <class T, class TOut>
void matmul(const LtContext& ctx, const cpu::MatmulShape& s, const T* a, const T* b, TOut* c,
            cudaStream_t stream);

// y (m, n) = x (m, k) · wᵀ + bias (n), overwritten; w (n, k); bias (n) read only when s.bias.
// With a bias, y is first filled with the broadcast bias and the product is added to it by
// cuBLASLt (beta = 1), so y is rounded to T once, from the fp32 accumulator.
// REQUIRES: s.m, s.n, s.k >= 1; x, w, y non-null; bias non-null iff s.bias; y overlaps no input.
template <class T>
void linear_forward(const LtContext& ctx, const models::GemmShape& s, const T* x, const T* w,
                    const T* bias, T* y, cudaStream_t stream);

// Gradients of linear_forward given dy (m, n):
//   dx (m, k)  = dy · w             T, OVERWRITTEN
//   dw (n, k) += dyᵀ · x            fp32, ACCUMULATED
//   dbias (n) += Σ rows of dy       fp32, ACCUMULATED (only when s.bias), fixed-order column sum
// REQUIRES: the shape preconditions of linear_forward; dy, x, w, dx, dw non-null; dbias non-null
// iff s.bias; no output overlaps an input or another output.
template <class T>
void linear_backward(const LtContext& ctx, const models::GemmShape& s, const T* dy, const T* x,
                     const T* w, T* dx, float* dw, float* dbias, cudaStream_t stream);

}  // namespace zs::kernels::cuda
