// Fused Adam / AdamW step on fp32 master parameters on the device: the CUDA twin of
// kernels/cpu/adamw.h, with DeepSpeed FusedAdam's semantics (csrc/adam/multi_tensor_adam.cu,
// AdamFunctor; the CPU header lists the per-element operations and their order).
//
// Conventions (kernels/cuda/types.h): params, grads, exp_avg and exp_avg_sq are fp32; each call
// enqueues one kernel on `stream`; REQUIRES: abort through ZS_CHECK; deterministic.
// The bias corrections bc1 = 1 - beta1^step and bc2 = 1 - beta2^step are computed on the host by
// cpu::adam_bias_correction (pow in double, rounded to fp32), as multi_tensor_adam_cuda does.
// nvcc's default --fmad=true contracts the m and v updates into FMAs, as it does in DeepSpeed's
// kernel, so this agrees with the CPU twin to fp32 rounding (relative ~1e-6), not bit for bit.
//
// Optionally the updated parameters are also written, rounded to nearest even, to a T copy
// (the bf16/fp16 model weights the next forward reads), in the same pass.
#pragma once

#include <cstdint>

#include "kernels/cpu/adamw.h"
#include "kernels/cuda/types.h"

namespace zs::kernels::cuda {

// One optimizer step over n contiguous elements. params (n), exp_avg (n), exp_avg_sq (n) are
// updated in place; grads (n) is read only. step is the 1-based count of this update.
// params_copy (n): T (float, __nv_bfloat16 or __half), overwritten with the updated params
// rounded to T, or nullptr for no copy.
// REQUIRES: n >= 0; params, grads, exp_avg, exp_avg_sq non-null when n > 0; step >= 1;
// 0 <= beta1, beta2 < 1; lr, eps, weight_decay finite; no two arrays overlap.
template <class T>
void adam_step(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, std::int64_t n,
               const cpu::AdamConfig& config, std::int64_t step, T* params_copy,
               cudaStream_t stream);

// The same step without a copy.
void adam_step(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, std::int64_t n,
               const cpu::AdamConfig& config, std::int64_t step, cudaStream_t stream);

}  // namespace zs::kernels::cuda
