// LayerNorm and RMSNorm over the last dimension of a (rows, cols) activation, on the CPU.
//
// Conventions (shared by kernels/cpu/): raw contiguous row-major fp32 buffers; input gradients
// are OVERWRITTEN, parameter gradients ACCUMULATE (+=); REQUIRES: preconditions abort through
// ZS_CHECK; deterministic.
//
// Math, per row x of length c = shape.cols:
//   kLayerNorm: mean = Σx/c, var = Σ(x-mean)²/c (biased, as torch.nn.LayerNorm),
//               rstd = 1/sqrt(var + eps), y = (x - mean)·rstd·weight + bias
//   kRmsNorm:   rstd = 1/sqrt(Σx²/c + eps), y = x·rstd·weight (HF LlamaRMSNorm, which computes in
//               fp32 and then multiplies by the weight; there is no bias and no mean subtraction)
// Row statistics are reduced in double and stored as fp32; the forward saves them for backward,
// as torch's native_layer_norm saves (mean, rstd).
#pragma once

#include "models/ops.h"

namespace zs::kernels::cpu {

// out (rows, cols) = norm(x) as above; overwritten. Also writes the row statistics:
//   mean (rows): kLayerNorm only (must be nullptr for kRmsNorm), overwritten
//   rstd (rows): both kinds, overwritten
// x (rows, cols), weight (cols), bias (cols) or nullptr. eps as models::ModelSpec::norm_eps.
// out may alias x (in place): each row is reduced before it is written.
// REQUIRES: shape.rows, shape.cols >= 1; eps > 0; x, weight, out, rstd non-null; mean non-null
// iff kLayerNorm; bias nullptr for kRmsNorm (for kLayerNorm nullptr means no bias, as
// nn.LayerNorm(bias=False)).
void norm_forward(const models::NormShape& shape, double eps, const float* x, const float* weight,
                  const float* bias, float* out, float* mean, float* rstd);

// Gradients of norm_forward given dout (rows, cols), the forward's input x and its saved mean and
// rstd (mean nullptr for kRmsNorm):
//   dx (rows, cols)  OVERWRITTEN
//   dweight (cols)   ACCUMULATED
//   dbias (cols)     ACCUMULATED; kLayerNorm with a bias only, else nullptr
// With xhat = (x - mean)·rstd (LayerNorm) or x·rstd (RMSNorm) and g = dout·weight:
//   LayerNorm: dx = rstd·(g - mean(g) - xhat·mean(g·xhat))
//   RMSNorm:   dx = rstd·(g - xhat·mean(g·xhat))
//   dweight += Σrows dout·xhat, dbias += Σrows dout
// dx may alias dout. REQUIRES: as norm_forward; dout, x, weight, rstd, dx, dweight non-null;
// mean non-null iff kLayerNorm; dbias nullptr for kRmsNorm; dx overlaps no other input.
void norm_backward(const models::NormShape& shape, const float* dout, const float* x,
                   const float* weight, const float* mean, const float* rstd, float* dx,
                   float* dweight, float* dbias);

}  // namespace zs::kernels::cpu
