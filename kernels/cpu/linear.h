// Dense matrix products on the CPU: a general matmul and the Linear layer built on it.
//
// Conventions shared by every kernel in kernels/cpu/ (each header repeats what applies to it):
// - Tensors are raw contiguous row-major fp32 arrays; a buffer comment gives its shape, e.g. (m,
// k).
// - Activation/input gradients are OVERWRITTEN (=); parameter gradients ACCUMULATE (+=), like
//   PyTorch's .grad across micro-steps.
// - Broken preconditions (REQUIRES:) are bugs and abort through ZS_CHECK; nothing returns a Status.
// - Deterministic: the same inputs give bitwise the same outputs (Eigen runs single-threaded here).
//
// Layout: a Linear weight is (n, k) row-major, as torch.nn.Linear stores (out_features,
// in_features), so Y(m, n) = X(m, k) · Wᵀ + bias(n) with m = t tokens. (models/ops.h's GemmShape
// comment writes the product as X·W with W (k, n); the kernels use the torch layout, whose
// element count and FLOPs are the same.) Every product goes through Eigen::Map over the caller's
// pointers: nothing is copied.
#pragma once

#include <cstdint>

#include "models/ops.h"

namespace zs::kernels::cpu {

// C (m, n) = op(A) · op(B), or C += op(A) · op(B) when `accumulate`.
// op(A) is (m, k): A is stored (m, k), or (k, m) when `transpose_a`.
// op(B) is (k, n): B is stored (k, n), or (n, k) when `transpose_b`.
struct MatmulShape {
  std::int64_t m = 0, n = 0, k = 0;
  bool transpose_a = false;
  bool transpose_b = false;
  bool accumulate = false;
};

// c (m, n): overwritten, or accumulated into when s.accumulate.
// REQUIRES: m, n, k >= 1; a, b, c non-null; c overlaps neither a nor b.
void matmul(const MatmulShape& s, const float* a, const float* b, float* c);

// y (m, n) = x (m, k) · wᵀ + bias (n); y is overwritten.
// w (n, k) row-major (torch.nn.Linear). bias (n) is read only when s.bias.
// REQUIRES: s.m, s.n, s.k >= 1; x, w, y non-null; bias non-null iff s.bias; y overlaps no input.
void linear_forward(const models::GemmShape& s, const float* x, const float* w, const float* bias,
                    float* y);

// Gradients of linear_forward given dy (m, n):
//   dx (m, k)  = dy · w          OVERWRITTEN
//   dw (n, k) += dyᵀ · x         ACCUMULATED
//   dbias (n) += sum over rows of dy   ACCUMULATED (only when s.bias)
// REQUIRES: the shape preconditions of linear_forward; dy, x, w, dx, dw non-null; dbias non-null
// iff s.bias; no output overlaps an input or another output.
void linear_backward(const models::GemmShape& s, const float* dy, const float* x, const float* w,
                     float* dx, float* dw, float* dbias);

}  // namespace zs::kernels::cpu
