// LayerNorm and RMSNorm over the last dimension of a (rows, cols) activation, on the device:
// the CUDA twin of kernels/cpu/norm.h, with the same math, shapes and aliasing rules.
//
// Conventions (kernels/cuda/types.h): x, weight, bias, out, dout and dx are T (float,
// __nv_bfloat16 or __half); the row statistics (mean, rstd) and the parameter gradients
// (dweight, dbias) are fp32. Input gradients are OVERWRITTEN, parameter gradients ACCUMULATE
// (+=); each call enqueues on `stream`; REQUIRES: abort through ZS_CHECK; deterministic.
//
// Math, per row x of length c (the CPU header has the derivation):
//   kLayerNorm: mean = Σx/c, var = Σ(x-mean)²/c, rstd = 1/sqrt(var + eps),
//               y = (x - mean)·rstd·weight + bias
//   kRmsNorm:   rstd = 1/sqrt(Σx²/c + eps), y = x·rstd·weight
// One block per row; the row sums are fp32 block reductions (the CPU twin uses double). The
// parameter gradients are column sums over rows, one block per 32 columns, fixed order.
#pragma once

#include "kernels/cuda/types.h"
#include "models/ops.h"

namespace zs::kernels::cuda {

// out (rows, cols) = norm(x), overwritten; mean (rows): kLayerNorm only (nullptr for kRmsNorm)
// and rstd (rows), overwritten, fp32. x (rows, cols), weight (cols), bias (cols) or nullptr.
// out may alias x. REQUIRES: rows, cols >= 1; eps > 0; x, weight, out, rstd non-null; mean
// non-null iff kLayerNorm; bias nullptr for kRmsNorm (for kLayerNorm nullptr means no bias).
template <class T>
void norm_forward(const models::NormShape& shape, double eps, const T* x, const T* weight,
                  const T* bias, T* out, float* mean, float* rstd, cudaStream_t stream);

// Gradients of norm_forward given dout (rows, cols), the forward's input x and its saved mean
// (nullptr for kRmsNorm) and rstd:
//   dx (rows, cols)  OVERWRITTEN
//   dweight (cols)   fp32, ACCUMULATED: += Σrows dout·xhat
//   dbias (cols)     fp32, ACCUMULATED: += Σrows dout; kLayerNorm with a bias only, else nullptr
// dx may alias dout (the parameter gradients are reduced first, then dx is written).
// REQUIRES: as norm_forward; dout, x, weight, rstd, dx, dweight non-null; mean non-null iff
// kLayerNorm; dbias nullptr for kRmsNorm; dx overlaps no input other than dout.
template <class T>
void norm_backward(const models::NormShape& shape, const T* dout, const T* x, const T* weight,
                   const float* mean, const float* rstd, T* dx, float* dweight, float* dbias,
                   cudaStream_t stream);

}  // namespace zs::kernels::cuda
