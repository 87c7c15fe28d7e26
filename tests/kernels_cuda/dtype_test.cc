#include "kernels/cuda/dtype.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/dtype.h"
#include "tests/kernels_cuda/cuda_test_util.h"

namespace zs::kernels::cuda {
namespace {

using test_util::CudaTest;
using test_util::DeviceBuffer;

// Tolerance: none. kernels/cpu/dtype.h specifies its casts to match CUDA's bit for bit
// (including the canonical NaN 0x7FFF), so the device results must equal the CPU's exactly.

// fp32 inputs that exercise every rounding path: random bit patterns (every exponent, subnormals,
// infinities and NaN payloads) plus the boundaries named in kernels/cpu/dtype.h.
std::vector<float> cast_inputs() {
  std::vector<float> x = {0.0f,
                          -0.0f,
                          1.0f,
                          -1.0f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::min(),
                          std::numeric_limits<float>::denorm_min(),
                          std::bit_cast<float>(0x7F7F8000u),  // bf16 overflow midpoint
                          std::bit_cast<float>(0x3F808000u),  // 1 + 2^-8: bf16 tie, to even
                          std::bit_cast<float>(0x3F818000u),  // 1 + 3·2^-8: tie, rounds up
                          65504.0f,
                          65519.0f,
                          65520.0f,  // fp16 max, below and at midpoint
                          0x1p-24f,
                          0x1p-25f,
                          0x1.8p-25f,
                          0x1p-14f,
                          0x1.ffcp-15f};
  std::mt19937 rng(20240611u);
  std::uniform_int_distribution<std::uint32_t> bits;
  for (int i = 0; i < (1 << 16); ++i) x.push_back(std::bit_cast<float>(bits(rng)));
  return x;
}

template <class Half>
std::vector<std::uint16_t> bits16(const std::vector<Half>& x) {
  std::vector<std::uint16_t> out;
  out.reserve(x.size());
  for (const Half h : x) out.push_back(test_util::bits_of(h));
  return out;
}

// Every 16-bit pattern, in order.
std::vector<std::uint16_t> all_patterns() {
  std::vector<std::uint16_t> p(1 << 16);
  for (std::uint32_t b = 0; b < p.size(); ++b) p[b] = static_cast<std::uint16_t>(b);
  return p;
}

using CudaDtype = CudaTest;

TEST_F(CudaDtype, FloatToBf16MatchesCpuBitwise) {
  const std::vector<float> x = cast_inputs();
  const auto n = static_cast<std::int64_t>(x.size());
  DeviceBuffer<float> in(x);
  DeviceBuffer<__nv_bfloat16> out(n);
  cuda::float_to_bf16(in.get(), out.get(), n, stream_);
  sync();
  const std::vector<std::uint16_t> got_bits = bits16(out.download());
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got_bits[i], cpu::float_to_bf16(x[i]).bits)
        << "input bits 0x" << std::hex << std::bit_cast<std::uint32_t>(x[i]);
  }
}

TEST_F(CudaDtype, FloatToFp16MatchesCpuBitwise) {
  const std::vector<float> x = cast_inputs();
  const auto n = static_cast<std::int64_t>(x.size());
  DeviceBuffer<float> in(x);
  DeviceBuffer<__half> out(n);
  cuda::float_to_fp16(in.get(), out.get(), n, stream_);
  sync();
  const std::vector<std::uint16_t> got_bits = bits16(out.download());
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(got_bits[i], cpu::float_to_fp16(x[i]).bits)
        << "input bits 0x" << std::hex << std::bit_cast<std::uint32_t>(x[i]);
  }
}

// Widening: exact for every pattern; for NaN patterns only NaN-ness is part of the contract.
template <class CpuHalf>
void expect_widening_matches(const std::vector<float>& got, float (*cpu_widen)(CpuHalf)) {
  const std::vector<std::uint16_t> patterns = all_patterns();
  for (std::size_t b = 0; b < patterns.size(); ++b) {
    const float want = cpu_widen(CpuHalf{patterns[b]});
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got[b])) << "pattern 0x" << std::hex << b;
    } else {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got[b]), std::bit_cast<std::uint32_t>(want))
          << "pattern 0x" << std::hex << b;
    }
  }
}

TEST_F(CudaDtype, Bf16ToFloatIsExactForAllPatterns) {
  const std::vector<std::uint16_t> patterns = all_patterns();
  std::vector<__nv_bfloat16> host;
  for (const std::uint16_t b : patterns) host.push_back(test_util::bf16_from_bits(b));
  DeviceBuffer<__nv_bfloat16> in(host);
  DeviceBuffer<float> out(in.size());
  cuda::bf16_to_float(in.get(), out.get(), in.size(), stream_);
  sync();
  expect_widening_matches<cpu::Bf16>(out.download(), &cpu::bf16_to_float);
}

TEST_F(CudaDtype, Fp16ToFloatIsExactForAllPatterns) {
  const std::vector<std::uint16_t> patterns = all_patterns();
  std::vector<__half> host;
  for (const std::uint16_t b : patterns) host.push_back(test_util::fp16_from_bits(b));
  DeviceBuffer<__half> in(host);
  DeviceBuffer<float> out(in.size());
  cuda::fp16_to_float(in.get(), out.get(), in.size(), stream_);
  sync();
  expect_widening_matches<cpu::Fp16>(out.download(), &cpu::fp16_to_float);
}

TEST_F(CudaDtype, ZeroElementsIsANoOp) {
  cuda::float_to_bf16(nullptr, nullptr, 0, stream_);
  cuda::fp16_to_float(nullptr, nullptr, 0, stream_);
  sync();
}

}  // namespace
}  // namespace zs::kernels::cuda
