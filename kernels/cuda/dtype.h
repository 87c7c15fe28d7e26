// fp32 <-> bf16 / fp16 casts on the device: the CUDA twins of kernels/cpu/dtype.h.
//
// Same contract as the CPU casts, which are specified to match these bit for bit: fp32 -> 16-bit
// rounds to nearest even (__float2bfloat16_rn, __float2half_rn), overflows to +-inf, keeps
// subnormals and -0, and turns every NaN into the canonical NaN 0x7FFF; 16-bit -> fp32 is exact.
// Arrays are contiguous device memory; n is an element count; out is overwritten. Each call
// enqueues one kernel on `stream` and returns without waiting.
#pragma once

#include <cstdint>

#include "kernels/cuda/types.h"

namespace zs::kernels::cuda {

// in (n) -> out (n). REQUIRES: n >= 0; in and out non-null when n > 0 and do not overlap.
void float_to_bf16(const float* in, __nv_bfloat16* out, std::int64_t n, cudaStream_t stream);
void float_to_fp16(const float* in, __half* out, std::int64_t n, cudaStream_t stream);
void bf16_to_float(const __nv_bfloat16* in, float* out, std::int64_t n, cudaStream_t stream);
void fp16_to_float(const __half* in, float* out, std::int64_t n, cudaStream_t stream);

}  // namespace zs::kernels::cuda
