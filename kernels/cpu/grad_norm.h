// Gradient norm, DeepSpeed's combined unscale-and-clip, and the inf/NaN overflow check.
//
// The global L2 norm is sqrt(sum over tensors and ranks of sum_squares(grad)): get_global_norm
// in deepspeed/runtime/utils.py sums squared per-group norms and takes one sqrt. sum_squares
// returns the partial sum in double so the caller can add tensors and all-reduce across ranks
// before the sqrt. (ZeRO-1/2's get_grad_norm_direct, deepspeed/runtime/zero/stage_1_and_2.py,
// takes each tensor's norm in double but rounds the summed squares to fp32 before its
// all-reduce; summing in double is at least as accurate.) With a loss scale, the gradients
// and therefore this norm are scaled: DeepSpeed calls it the "scaled" norm.
//
// Arrays are contiguous fp32; n is an element count. Deterministic: fixed summation order.
#pragma once

#include <cstdint>

namespace zs::kernels::cpu {

// Returns sum_i x[i]^2, each square and the sum in double, in index order. Returns inf or NaN
// when x holds one (the caller checks has_inf_or_nan first, as DeepSpeed's fp16 step does).
// REQUIRES: n >= 0; x non-null when n > 0.
double sum_squares(const float* x, std::int64_t n);

// The divisor DeepSpeed applies to every (scaled) gradient before the optimizer step, so that
// g_used = g_scaled / divisor is unscaled and clipped. total_norm is the norm of the SCALED
// gradients, loss_scale the current loss scale (1 for bf16/fp32), clip the gradient_clipping
// config value (0 = off).
//   divisor = loss_scale                                    if clip <= 0
//   divisor = loss_scale * max(1, (total_norm / loss_scale + 1e-6) / clip)   otherwise
// This is unscale_and_clip_grads in deepspeed/runtime/zero/stage_1_and_2.py (ZeRO 1/2, fp16 and
// bf16) and in deepspeed/runtime/fp16/fused_optimizer.py (FP16_Optimizer): the 1e-6 is added to
// the UNSCALED norm, before dividing by clip; the max(1, .) is torch.clamp(min=1) in ZeRO and
// `if clip > 1` in FP16_Optimizer (same value). ZeRO evaluates it on an fp32 tensor (the norm
// from scaled_global_norm), FP16_Optimizer on Python floats; here it is double, so results agree
// to fp32 rounding (relative ~1e-7).
// The other two clipping paths, deepspeed/runtime/bf16_optimizer.py (through
// clip_tensors_by_global_norm, eps=1e-6) and clip_grad_norm_ (deepspeed/runtime/utils.py, the
// engine's fp32 path), have no loss scale and multiply by clip / (norm + 1e-6) when that is
// below 1: the 1e-6 is again added to the (unscaled) norm, so the divisor is this function with
// loss_scale = 1. They differ from scale_by_inverse only in rounding (clip / (norm + eps) vs
// 1 / ((norm + eps) / clip), about one double ulp).
// REQUIRES: total_norm finite and >= 0 (ZeRO replaces an inf/NaN norm by -1 and skips the step
// on overflow before getting here); loss_scale finite and > 0; clip finite and >= 0.
double combined_scale(double total_norm, double loss_scale, double clip);

// The divisor of clip_grad_norm_ (deepspeed/runtime/utils.py, the engine's fp32 path at stage 0)
// for any norm, finite or not: its coefficient is min(clip / (norm + 1e-6), 1), unmasked, so an
// inf norm gives the coefficient 0 (divisor +inf: every finite gradient becomes 0, an inf one
// NaN) and a NaN norm the coefficient NaN (divisor NaN). For a finite norm it is
// combined_scale(norm, 1, clip). REQUIRES: clip finite and > 0.
double torch_clip_divisor(double norm, double clip);

// x[i] *= float(1 / divisor), in place: DeepSpeed's grad.data.mul_(1. / combined_scale), where
// PyTorch rounds the Python-float factor to the fp32 tensor's type before multiplying. A divisor
// of +inf multiplies by 0 and a NaN one by NaN, as torch does (torch_clip_divisor).
// x (n) overwritten.
// REQUIRES: n >= 0; x non-null when n > 0; divisor > 0, +inf or NaN.
void scale_by_inverse(float* x, std::int64_t n, double divisor);

// Returns true when any x[i] is +inf, -inf or NaN; false for n = 0.
// Element-wise, as ZeRO's _has_inf_or_nan in deepspeed/runtime/zero/stage_1_and_2.py
// (isnan | isinf, max). DeepSpeed's other check, _has_inf_or_nan in
// deepspeed/runtime/fp16/loss_scaler.py and CheckOverflow in deepspeed/runtime/utils.py, tests
// float(x.float().sum()) instead: it catches every inf/NaN element too (inf + finite = inf,
// inf - inf = NaN), and additionally reports overflow when finite elements sum past FLT_MAX.
// REQUIRES: n >= 0; x non-null when n > 0.
bool has_inf_or_nan(const float* x, std::int64_t n);

}  // namespace zs::kernels::cpu
