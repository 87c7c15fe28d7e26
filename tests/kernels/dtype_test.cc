#include "kernels/cpu/dtype.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace zs::kernels::cpu {
namespace {

float f32(std::uint32_t bits) { return std::bit_cast<float>(bits); }
std::uint32_t bits32(float x) { return std::bit_cast<std::uint32_t>(x); }
std::uint16_t to_bf16(float x) { return float_to_bf16(x).bits; }
std::uint16_t to_fp16(float x) { return float_to_fp16(x).bits; }

bool is_nan_bf16(std::uint16_t b) { return (b & 0x7F80u) == 0x7F80u && (b & 0x7Fu) != 0; }
bool is_nan_fp16(std::uint16_t b) { return (b & 0x7C00u) == 0x7C00u && (b & 0x3FFu) != 0; }

// Value of a 16-bit pattern from its fields, in double: an oracle independent of the kernel.
// exp_bits/man_bits describe the format; bias = 2^(exp_bits-1) - 1.
double decode16(std::uint16_t b, int exp_bits, int man_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const int e = (b >> man_bits) & ((1 << exp_bits) - 1);
  const int m = b & ((1 << man_bits) - 1);
  const double s = (b & 0x8000u) != 0 ? -1.0 : 1.0;
  if (e == (1 << exp_bits) - 1) return m == 0 ? s * INFINITY : NAN;
  if (e == 0) return s * std::ldexp(m, 1 - bias - man_bits);
  return s * std::ldexp((1 << man_bits) + m, e - bias - man_bits);
}

// Round-to-nearest-even of a finite fp32 value to a 16-bit format, done in double arithmetic:
// the quantum is 2^(max(E, emin) - man_bits), x / quantum is exact in double, and nearbyint
// rounds half to even. Returns the rounded value (inf when it reaches 2^(emax+1)).
double round16(float x, int exp_bits, int man_bits) {
  const int emin = 2 - (1 << (exp_bits - 1));  // exponent of the smallest normal
  const int emax = (1 << (exp_bits - 1)) - 1;
  const double ax = std::fabs(static_cast<double>(x));
  if (ax == 0) return x;
  const int e = std::max(std::ilogb(ax), emin);
  const double quantum = std::ldexp(1.0, e - man_bits);
  double r = std::nearbyint(ax / quantum) * quantum;
  if (r >= std::ldexp(1.0, emax + 1)) r = INFINITY;
  return std::signbit(x) ? -r : r;
}

TEST(Dtype, Bf16RoundTripAllPatterns) {
  for (std::uint32_t b = 0; b <= 0xFFFF; ++b) {
    const auto h = static_cast<std::uint16_t>(b);
    const float f = bf16_to_float(Bf16{h});
    if (is_nan_bf16(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
      ASSERT_EQ(to_bf16(f), kCanonicalNan16) << std::hex << b;
      continue;
    }
    // Widening is exact: the value matches the field decode, and so does -0's sign.
    ASSERT_EQ(static_cast<double>(f), decode16(h, 8, 7)) << std::hex << b;
    ASSERT_EQ(std::signbit(f), (h & 0x8000u) != 0) << std::hex << b;
    ASSERT_EQ(to_bf16(f), h) << std::hex << b;
  }
}

TEST(Dtype, Fp16RoundTripAllPatterns) {
  for (std::uint32_t b = 0; b <= 0xFFFF; ++b) {
    const auto h = static_cast<std::uint16_t>(b);
    const float f = fp16_to_float(Fp16{h});
    if (is_nan_fp16(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
      ASSERT_EQ(to_fp16(f), kCanonicalNan16) << std::hex << b;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), decode16(h, 5, 10)) << std::hex << b;
    ASSERT_EQ(std::signbit(f), (h & 0x8000u) != 0) << std::hex << b;
    ASSERT_EQ(to_fp16(f), h) << std::hex << b;
  }
}

TEST(Dtype, Bf16HandPicked) {
  EXPECT_EQ(to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(to_bf16(1.0f + 0x1p-8f), 0x3F80);      // tie between 0x3F80 and 0x3F81: to even
  EXPECT_EQ(to_bf16(1.0f + 3 * 0x1p-8f), 0x3F82);  // tie between 0x3F81 and 0x3F82: to even
  EXPECT_EQ(to_bf16(f32(0x3F808001)), 0x3F81);     // just above the tie: up
  EXPECT_EQ(to_bf16(f32(0x3F807FFF)), 0x3F80);     // just below the tie: down
  EXPECT_EQ(to_bf16(-1.5f), 0xBFC0);
  EXPECT_EQ(to_bf16(f32(0x7F7F7FFF)), 0x7F7F);  // below the midpoint past max finite bf16
  EXPECT_EQ(to_bf16(f32(0x7F7F8000)), 0x7F80);  // the midpoint: tie to even = +inf
  EXPECT_EQ(to_bf16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(to_bf16(-std::numeric_limits<float>::max()), 0xFF80);
  EXPECT_EQ(to_bf16(INFINITY), 0x7F80);
  EXPECT_EQ(to_bf16(-INFINITY), 0xFF80);
  EXPECT_EQ(to_bf16(-0.0f), 0x8000);
  EXPECT_EQ(to_bf16(0.0f), 0x0000);
  EXPECT_EQ(to_bf16(f32(0x00000001)), 0x0000);  // smallest fp32 subnormal rounds to 0
  EXPECT_EQ(to_bf16(f32(0x00008000)), 0x0000);  // tie, 0 is even
  EXPECT_EQ(to_bf16(f32(0x00018000)), 0x0002);  // tie, to even
  EXPECT_EQ(to_bf16(f32(0x00010000)), 0x0001);  // smallest bf16 subnormal, exact
  EXPECT_EQ(to_bf16(std::numeric_limits<float>::quiet_NaN()), kCanonicalNan16);
  EXPECT_EQ(to_bf16(f32(0xFFC00001)), kCanonicalNan16);  // negative NaN with payload
  EXPECT_EQ(to_bf16(f32(0x7F800001)), kCanonicalNan16);  // signalling NaN, low payload
  EXPECT_EQ(bf16_to_float(Bf16{0x7F7F}), 3.38953139e38f);
}

TEST(Dtype, Fp16HandPicked) {
  EXPECT_EQ(to_fp16(1.0f), 0x3C00);
  EXPECT_EQ(to_fp16(1.0f + 0x1p-11f), 0x3C00);      // tie between 0x3C00 and 0x3C01: to even
  EXPECT_EQ(to_fp16(1.0f + 3 * 0x1p-11f), 0x3C02);  // tie between 0x3C01 and 0x3C02: to even
  EXPECT_EQ(to_fp16(-2.0f), 0xC000);
  EXPECT_EQ(to_fp16(0.1f), 0x2E66);
  EXPECT_EQ(to_fp16(65504.0f), 0x7BFF);         // max finite
  EXPECT_EQ(to_fp16(f32(0x477FEFFF)), 0x7BFF);  // 65519.996: just under the threshold
  EXPECT_EQ(to_fp16(65520.0f), 0x7C00);         // overflow threshold: tie to even = +inf
  EXPECT_EQ(to_fp16(-65520.0f), 0xFC00);
  EXPECT_EQ(to_fp16(1e10f), 0x7C00);
  EXPECT_EQ(to_fp16(INFINITY), 0x7C00);
  EXPECT_EQ(to_fp16(-INFINITY), 0xFC00);
  EXPECT_EQ(to_fp16(0x1p-14f), 0x0400);             // smallest normal
  EXPECT_EQ(to_fp16(0x1p-14f - 0x1p-24f), 0x03FF);  // largest subnormal
  EXPECT_EQ(to_fp16(0x1p-14f - 0x1p-25f), 0x0400);  // tie above it: to even (normal)
  EXPECT_EQ(to_fp16(0x1p-24f), 0x0001);             // smallest subnormal
  EXPECT_EQ(to_fp16(-0x1p-24f), 0x8001);
  EXPECT_EQ(to_fp16(0x1p-25f), 0x0000);         // tie between 0 and 2^-24: 0
  EXPECT_EQ(to_fp16(f32(0x33000001)), 0x0001);  // just above that tie: up
  EXPECT_EQ(to_fp16(3 * 0x1p-25f), 0x0002);     // tie between 1 and 2 (x 2^-24): 2
  EXPECT_EQ(to_fp16(5 * 0x1p-25f), 0x0002);     // tie between 2 and 3: 2
  EXPECT_EQ(to_fp16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(to_fp16(-std::numeric_limits<float>::denorm_min()), 0x8000);
  EXPECT_EQ(to_fp16(-0.0f), 0x8000);
  EXPECT_EQ(to_fp16(0.0f), 0x0000);
  EXPECT_EQ(to_fp16(std::numeric_limits<float>::quiet_NaN()), kCanonicalNan16);
  EXPECT_EQ(to_fp16(f32(0xFF800001)), kCanonicalNan16);
  EXPECT_EQ(fp16_to_float(Fp16{0x0001}), 0x1p-24f);
  EXPECT_EQ(fp16_to_float(Fp16{0x7BFF}), 65504.0f);
  EXPECT_EQ(bits32(fp16_to_float(Fp16{0x8000})), 0x80000000u);
}

// fp32 -> 16 on ~2^20 fp32 patterns spread over the whole space (a prime stride, so every
// exponent and many mantissa tails are visited) plus a dense walk around each fp16/bf16 rounding
// boundary region, against the double-precision oracle round16. Exact equality: casts are exact.
TEST(Dtype, NarrowingMatchesDoubleOracle) {
  auto check = [](std::uint32_t u) {
    const float x = f32(u);
    if (std::isnan(x)) {
      ASSERT_EQ(to_bf16(x), kCanonicalNan16);
      ASSERT_EQ(to_fp16(x), kCanonicalNan16);
      return;
    }
    const double want_bf16 = round16(x, 8, 7);
    const double want_fp16 = round16(x, 5, 10);
    const std::uint16_t got_bf16 = to_bf16(x);
    const std::uint16_t got_fp16 = to_fp16(x);
    ASSERT_EQ(decode16(got_bf16, 8, 7), want_bf16) << std::hex << u;
    ASSERT_EQ(decode16(got_fp16, 5, 10), want_fp16) << std::hex << u;
    ASSERT_EQ((got_bf16 & 0x8000u) != 0, std::signbit(x)) << std::hex << u;
    ASSERT_EQ((got_fp16 & 0x8000u) != 0, std::signbit(x)) << std::hex << u;
#if defined(__FLT16_MAX__)
    // The compiler's own conversion (F16C or libgcc's soft-float), where it exists.
    const auto native = static_cast<_Float16>(x);
    ASSERT_EQ(std::bit_cast<std::uint16_t>(native), got_fp16) << std::hex << u;
#endif
  };
  for (std::uint64_t u = 0; u <= 0xFFFFFFFFu; u += 4093) check(static_cast<std::uint32_t>(u));
  // Every fp32 within 4096 ulps of each power of two from 2^-26 to 2^17 (covers the fp16
  // subnormal/normal boundary, the 2^-25 tie and the 65520 overflow threshold).
  for (int e = -26; e <= 17; ++e) {
    const std::uint32_t c = bits32(std::ldexp(1.0f, e));
    for (std::uint32_t d = 0; d < 4096; ++d) {
      check(c + d);
      check(c - d);
      check((c + d) | 0x80000000u);
    }
  }
  for (std::uint32_t d = 0; d < 8192; ++d) check(0x477FF000u - 4096 + d);  // 65520 +- 4096 ulps
}

TEST(Dtype, ArrayFormsMatchScalar) {
  const std::vector<float> in = {1.0f, -0.0f, 65520.0f, 0x1p-24f, 3.14159f, -1e-30f, NAN};
  const auto n = static_cast<std::int64_t>(in.size());
  std::vector<Bf16> b(in.size(), Bf16{0xAAAA});
  std::vector<Fp16> h(in.size(), Fp16{0xAAAA});
  std::vector<float> back_b(in.size(), 7.0f), back_h(in.size(), 7.0f);
  float_to_bf16(in.data(), b.data(), n);
  float_to_fp16(in.data(), h.data(), n);
  bf16_to_float(b.data(), back_b.data(), n);
  fp16_to_float(h.data(), back_h.data(), n);
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(b[i].bits, to_bf16(in[i])) << i;
    EXPECT_EQ(h[i].bits, to_fp16(in[i])) << i;
    EXPECT_EQ(bits32(back_b[i]), bits32(bf16_to_float(b[i]))) << i;
    EXPECT_EQ(bits32(back_h[i]), bits32(fp16_to_float(h[i]))) << i;
  }
  float_to_bf16(nullptr, nullptr, 0);  // n = 0 is allowed and touches nothing
}

}  // namespace
}  // namespace zs::kernels::cpu
