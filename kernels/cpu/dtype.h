// 16-bit floating-point storage types and the casts between them and fp32.
//
// Mixed precision is emulated on the CPU by keeping fp32 math and casting at the points where
// a GPU run stores bf16/fp16 (llm.c's and DeepSpeed's bf16/fp16 params and activations). The
// casts match CUDA bit for bit, so a CUDA kernel's 16-bit outputs can be compared exactly:
//   fp32 -> bf16: __float2bfloat16_rn (cuda_bf16.hpp; PTX cvt.rn.bf16.f32 on sm_80+)
//   fp32 -> fp16: __float2half_rn     (cuda_fp16.hpp; PTX cvt.rn.f16.f32)
// Both round to nearest, ties to even; overflow goes to +-inf (no saturation); subnormal results
// are produced, not flushed; every NaN becomes the canonical NaN 0x7FFF (sign and payload are
// dropped, as both CUDA conversions do). -0.0 keeps its sign.
// 16 -> 32 is exact for every non-NaN pattern (both formats are subsets of fp32). A NaN stays
// a NaN with its sign and payload shifted into place (CUDA's host __half2float returns
// 0x7FFFFFFF instead; only NaN-ness is part of the contract).
//
// Arrays are contiguous; n is an element count; outputs are overwritten. No state, no
// allocation; deterministic.
#pragma once

#include <cstdint>
#include <type_traits>

namespace zs::kernels::cpu {

// bfloat16 (1 sign, 8 exponent, 7 mantissa bits): the top half of an fp32.
struct Bf16 {
  std::uint16_t bits;
};
// IEEE 754 binary16 (1 sign, 5 exponent, 10 mantissa bits; max finite 65504).
struct Fp16 {
  std::uint16_t bits;
};
static_assert(sizeof(Bf16) == 2 && alignof(Bf16) == 2);
static_assert(sizeof(Fp16) == 2 && alignof(Fp16) == 2);
static_assert(std::is_standard_layout_v<Bf16> && std::is_trivially_copyable_v<Bf16>);
static_assert(std::is_standard_layout_v<Fp16> && std::is_trivially_copyable_v<Fp16>);

// The canonical NaN both CUDA conversions produce.
inline constexpr std::uint16_t kCanonicalNan16 = 0x7FFF;

// Round-to-nearest-even fp32 -> bf16 (== __float2bfloat16_rn). Values at or above
// 0x7F7F8000 in magnitude (the midpoint past the largest bf16, 3.3895314e38) round to +-inf.
Bf16 float_to_bf16(float x);
// Round-to-nearest-even fp32 -> fp16 (== __float2half_rn). |x| >= 65520 (the midpoint between
// 65504 and 2^16) rounds to +-inf; |x| <= 2^-25 rounds to +-0; below 2^-14 the result is
// subnormal (a multiple of 2^-24).
Fp16 float_to_fp16(float x);
// Exact widening.
float bf16_to_float(Bf16 x);
float fp16_to_float(Fp16 x);

// Element-wise array forms of the above. in (n), out (n) overwritten.
// REQUIRES: n >= 0; in and out non-null when n > 0; in and out do not overlap.
void float_to_bf16(const float* in, Bf16* out, std::int64_t n);
void float_to_fp16(const float* in, Fp16* out, std::int64_t n);
void bf16_to_float(const Bf16* in, float* out, std::int64_t n);
void fp16_to_float(const Fp16* in, float* out, std::int64_t n);

}  // namespace zs::kernels::cpu
