#include "kernels/cpu/dtype.h"

#include <bit>
#include <cstdint>

#include "common/check.h"

namespace zs::kernels::cpu {
namespace {

constexpr std::uint32_t kAbsMask = 0x7FFFFFFFu;
constexpr std::uint32_t kFp32Inf = 0x7F800000u;
// |x| >= 65520.0f (0x477FF000) rounds to fp16 infinity: 65520 is the midpoint between the largest
// finite fp16, 65504 (0x7BFF, odd mantissa), and 2^16, so the tie goes to the even neighbour,
// which is the infinity encoding 0x7C00.
constexpr std::uint32_t kFp16OverflowAbs = 0x477FF000u;
// 2^-14 (0x38800000): the smallest normal fp16.
constexpr std::uint32_t kFp16MinNormalAbs = 0x38800000u;
// 2^-25 (0x33000000): half the smallest subnormal fp16; it and everything below round to zero.
constexpr std::uint32_t kFp16HalfMinSubnormalAbs = 0x33000000u;
// Exponent rebias fp32 (127) -> fp16 (15), in the fp32 exponent field: (127 - 15) << 23.
constexpr std::uint32_t kRebias = 112u << 23;

// Rounds q + rem / 2^shift to the nearest integer, ties to even, given the discarded low bits.
constexpr std::uint32_t round_nearest_even(std::uint32_t q, std::uint32_t rem, int shift) {
  const std::uint32_t half = 1u << (shift - 1);
  return (rem > half || (rem == half && (q & 1u) != 0)) ? q + 1 : q;
}

}  // namespace

Bf16 float_to_bf16(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  if ((u & kAbsMask) > kFp32Inf) return Bf16{kCanonicalNan16};
  // Keep the top 16 bits, rounding on the low 16. A carry out of the mantissa increments the
  // exponent, which is the correct rounding (and turns the top binade into infinity).
  const std::uint32_t q = u >> 16;
  return Bf16{static_cast<std::uint16_t>(round_nearest_even(q, u & 0xFFFFu, 16))};
}

Fp16 float_to_fp16(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t a = u & kAbsMask;
  std::uint32_t mag = 0;  // the fp16 bit pattern without its sign
  if (a > kFp32Inf) return Fp16{kCanonicalNan16};
  if (a >= kFp16OverflowAbs) {
    mag = 0x7C00u;  // +-inf, also for x = +-inf
  } else if (a >= kFp16MinNormalAbs) {
    // Normal: rebias the exponent, keep 10 of 23 mantissa bits. A carry out of the mantissa
    // bumps the exponent; it cannot reach 0x7C00 because a < kFp16OverflowAbs.
    const std::uint32_t r = a - kRebias;
    mag = round_nearest_even(r >> 13, r & 0x1FFFu, 13);
  } else if (a > kFp16HalfMinSubnormalAbs) {
    // Subnormal: the value is m * 2^(e - 150) with the implicit bit in m; in units of the fp16
    // subnormal step 2^-24 that is m >> (126 - e). e is in [102, 112], so the shift is in
    // [14, 24]. Rounding up from the largest subnormal gives 0x0400, the smallest normal.
    const std::uint32_t e = a >> 23;
    const std::uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
    const int shift = static_cast<int>(126u - e);
    mag = round_nearest_even(m >> shift, m & ((1u << shift) - 1u), shift);
  }  // else: |x| <= 2^-25 rounds to zero (2^-25 itself is a tie and 0 is even).
  return Fp16{static_cast<std::uint16_t>(sign | mag)};
}

float bf16_to_float(Bf16 x) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(x.bits) << 16);
}

float fp16_to_float(Fp16 x) {
  const std::uint32_t sign = static_cast<std::uint32_t>(x.bits & 0x8000u) << 16;
  const std::uint32_t e = (x.bits >> 10) & 0x1Fu;
  const std::uint32_t m = x.bits & 0x3FFu;
  if (e == 0x1F) return std::bit_cast<float>(sign | kFp32Inf | (m << 13));  // inf or NaN
  if (e != 0) return std::bit_cast<float>(sign | ((e << 23) + kRebias) | (m << 13));
  // Zero or subnormal: m * 2^-24, exact in fp32 (m < 2^10, and 2^-24 is a power of two).
  const float mag = static_cast<float>(m) * 0x1p-24f;
  return sign != 0 ? -mag : mag;
}

void float_to_bf16(const float* in, Bf16* out, std::int64_t n) {
  ZS_CHECK(n >= 0);
  ZS_CHECK(n == 0 || (in != nullptr && out != nullptr));
  for (std::int64_t i = 0; i < n; ++i) out[i] = float_to_bf16(in[i]);
}

void float_to_fp16(const float* in, Fp16* out, std::int64_t n) {
  ZS_CHECK(n >= 0);
  ZS_CHECK(n == 0 || (in != nullptr && out != nullptr));
  for (std::int64_t i = 0; i < n; ++i) out[i] = float_to_fp16(in[i]);
}

void bf16_to_float(const Bf16* in, float* out, std::int64_t n) {
  ZS_CHECK(n >= 0);
  ZS_CHECK(n == 0 || (in != nullptr && out != nullptr));
  for (std::int64_t i = 0; i < n; ++i) out[i] = bf16_to_float(in[i]);
}

void fp16_to_float(const Fp16* in, float* out, std::int64_t n) {
  ZS_CHECK(n >= 0);
  ZS_CHECK(n == 0 || (in != nullptr && out != nullptr));
  for (std::int64_t i = 0; i < n; ++i) out[i] = fp16_to_float(in[i]);
}

}  // namespace zs::kernels::cpu
