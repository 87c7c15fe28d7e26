// Fused Adam / AdamW update on fp32 master parameters, as DeepSpeed's FusedAdam computes it.
//
// Source followed: csrc/adam/multi_tensor_adam.cu (AdamFunctor, adapted from NVIDIA apex) and
// its driver deepspeed/ops/adam/fused_adam.py. Per element, all in fp32, in this order:
//   mode kL2 (adam_w_mode=0):   g = g + wd * p
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g * g
//   denom  = sqrt(v / bc2) + eps            (eps added AFTER bias-correcting v)
//   update = (m / bc1) / denom               (+ wd * p in mode kAdamW, with p before the step)
//   p = p - lr * update
// bc1 = 1 - beta1^step and bc2 = 1 - beta2^step when bias_correction, else 1; computed on the
// host in double from the fp32 betas and rounded to fp32 (std::pow(float, int) promotes to
// double in multi_tensor_adam_cuda). step is 1-based: fused_adam.py increments state['step']
// before launching.
//
// DeepSpeedCPUAdam (csrc/includes/cpu_adam.h, csrc/adam/cpu_adam_impl.cpp; ZeRO-Offload) computes
// the same update in exact arithmetic but rounds differently, so the two agree only to fp32
// rounding, not bit for bit:
//   - denom = sqrt(v) * (1 / sqrt(bc2)) + eps and p += (-lr / bc1) * (m / denom): the bias
//     corrections are folded into per-step scalars instead of dividing m and v;
//   - AdamW decay is applied first, p += (-lr * wd) * p, then the Adam step from the decayed p
//     (same value as FusedAdam's lr * (m_hat / denom + wd * p) in exact arithmetic);
//   - beta^step is kept in fp32 by repeated multiplication (Adam_Optimizer::IncrementStep)
//     rather than by pow in double;
//   - weight decay is skipped unless weight_decay > 0 (FusedAdam applies any value);
//   - the AVX paths use fused multiply-adds.
// A CUDA port of this kernel compiled with nvcc's default --fmad=true contracts the m and v
// updates into FMAs, so compare it with a tolerance (relative ~1e-6), not bitwise.
#pragma once

#include <cstdint>

namespace zs::kernels::cpu {

// adamMode_t in multi_tensor_adam.cu: 0 = L2 regularization added to the gradient,
// 1 = decoupled weight decay (AdamW, FusedAdam's default adam_w_mode=True).
enum class AdamMode : int { kL2 = 0, kAdamW = 1 };

// One parameter group's hyper-parameters (FusedAdam's defaults).
struct AdamConfig {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.0f;
  AdamMode mode = AdamMode::kAdamW;
  bool bias_correction = true;
};

// The per-step scalars the host passes to the kernel: bc1 = 1 - beta1^step and
// bc2 = 1 - beta2^step (both 1 without bias correction), as multi_tensor_adam_cuda computes them.
struct AdamBiasCorrection {
  float bc1 = 1.0f;
  float bc2 = 1.0f;
};
// REQUIRES: step >= 1; 0 <= beta1, beta2 < 1.
AdamBiasCorrection adam_bias_correction(const AdamConfig& config, std::int64_t step);

// One optimizer step over n contiguous elements. params (n), exp_avg (n), exp_avg_sq (n) are
// updated in place (read, then overwritten); grads (n) is read only (in mode kL2 the decayed
// gradient is a temporary, as in FusedAdam). exp_avg and exp_avg_sq start at zero before step 1.
// step is the 1-based count of this update (1 on the first call).
// REQUIRES: n >= 0; all pointers non-null when n > 0; step >= 1; 0 <= beta1, beta2 < 1;
// lr, eps, weight_decay finite; params, grads, exp_avg, exp_avg_sq do not overlap.
void adam_step(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, std::int64_t n,
               const AdamConfig& config, std::int64_t step);

}  // namespace zs::kernels::cpu
