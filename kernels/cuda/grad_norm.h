// Gradient sum of squares, scale-in-place and the inf/NaN overflow check on the device: the
// CUDA twins of kernels/cpu/grad_norm.h (DeepSpeed's get_global_norm partials, the
// grad.mul_(1 / combined_scale) unscale-and-clip, and ZeRO's _has_inf_or_nan).
//
// Conventions (kernels/cuda/types.h): x is T (float, __nv_bfloat16 or __half; the fp32 gradient
// accumulators, or 16-bit gradients); each call enqueues on `stream` and leaves its result on the
// device; REQUIRES: abort through ZS_CHECK. Deterministic: the sum of squares runs on a fixed
// grid of kSumSquaresPartials blocks whatever the device, each adding its share in double, and
// a second single-block pass adds the partials in a fixed order (no atomics).
// combined_scale has no device twin: it is three double operations on the host
// (cpu::combined_scale), whose result the caller passes to scale_by_inverse.
#pragma once

#include <cstdint>

#include "kernels/cuda/types.h"

namespace zs::kernels::cuda {

// Blocks of the first sum-of-squares pass = doubles of the partials workspace.
inline constexpr std::int64_t kSumSquaresPartials = 512;

// *result (1 double, device) = Σ_i x[i]², each square and every sum in double, overwritten;
// 0 for n = 0; inf or NaN when x holds one (check has_inf_or_nan first, as DeepSpeed does).
// partials: device workspace of kSumSquaresPartials doubles, clobbered.
// REQUIRES: n >= 0; x non-null when n > 0; partials, result non-null.
template <class T>
void sum_squares(const T* x, std::int64_t n, double* partials, double* result, cudaStream_t stream);

// x[i] = T(float(x[i]) * float(1 / divisor)), in place: the factor is rounded to fp32 on the
// host, as PyTorch rounds mul_'s Python-float factor to the tensor's type.
// REQUIRES: n >= 0; x non-null when n > 0; divisor > 0, +inf (factor 0) or NaN (factor NaN).
template <class T>
void scale_by_inverse(T* x, std::int64_t n, double divisor, cudaStream_t stream);

// *flag (1 int32, device) = 1 when any x[i] is +inf, -inf or NaN (all-ones exponent), else 0;
// overwritten (0 for n = 0). REQUIRES: n >= 0; x non-null when n > 0; flag non-null.
template <class T>
void has_inf_or_nan(const T* x, std::int64_t n, std::int32_t* flag, cudaStream_t stream);

}  // namespace zs::kernels::cuda
