// DeepSpeed's CPU Adam for the executor's offloaded optimizer: kernels/cpu/adamw.h adam_step
// over a slice, split across the machine's cores as csrc/adam/cpu_adam_impl.cpp's OpenMP loop
// splits it. AdamW is elementwise, so the split changes no value: the result equals one
// adam_step over the whole slice, bit for bit.
#pragma once

#include <cstdint>

#include "kernels/cpu/adamw.h"

namespace zs::exec {

// adam_step(params, grads, exp_avg, exp_avg_sq, n, config, step) on up to `threads` threads
// (at least 64Ki elements each; 0: every hardware thread).
// REQUIRES: as adam_step; threads >= 0.
void cpu_adam(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, std::int64_t n,
              const kernels::cpu::AdamConfig& config, std::int64_t step, int threads = 0);

}  // namespace zs::exec
