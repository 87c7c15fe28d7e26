// Rank buffers for the collective tests: deterministic per (rank, count, dtype), so that every
// process of an MPI test can build every rank's input and the reference result.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <vector>

#include "kernels/cpu/dtype.h"
#include "plan/plan.h"

namespace zs::exec::testing {

// `x` rounded to `dtype` and stored at `at` (dtype_size bytes).
inline void encode(float x, plan::Dtype dtype, std::byte* at) {
  if (dtype == plan::Dtype::kFp32) {
    std::memcpy(at, &x, sizeof x);
  } else if (dtype == plan::Dtype::kFp64) {
    const double d = x;
    std::memcpy(at, &d, sizeof d);
  } else if (dtype == plan::Dtype::kU8) {
    // A flag byte from the value: 0..255, spread over the magnitudes rank_buffer draws.
    const auto u = static_cast<std::uint8_t>(static_cast<std::int64_t>(std::fabs(x) * 10.0f) % 256);
    std::memcpy(at, &u, sizeof u);
  } else if (dtype == plan::Dtype::kBf16) {
    const kernels::cpu::Bf16 b = kernels::cpu::float_to_bf16(x);
    std::memcpy(at, &b, sizeof b);
  } else {
    const kernels::cpu::Fp16 h = kernels::cpu::float_to_fp16(x);
    std::memcpy(at, &h, sizeof h);
  }
}

// Element i of a buffer of `dtype`, widened to fp32.
inline float decode(const std::vector<std::byte>& b, plan::Dtype dtype, std::size_t i) {
  const std::byte* at = b.data() + i * static_cast<std::size_t>(plan::dtype_size(dtype));
  if (dtype == plan::Dtype::kFp32) {
    float x;
    std::memcpy(&x, at, sizeof x);
    return x;
  }
  if (dtype == plan::Dtype::kFp64) {
    double x;
    std::memcpy(&x, at, sizeof x);
    return static_cast<float>(x);
  }
  if (dtype == plan::Dtype::kU8) return static_cast<float>(static_cast<std::uint8_t>(*at));
  if (dtype == plan::Dtype::kBf16) {
    kernels::cpu::Bf16 v;
    std::memcpy(&v, at, sizeof v);
    return kernels::cpu::bf16_to_float(v);
  }
  kernels::cpu::Fp16 v;
  std::memcpy(&v, at, sizeof v);
  return kernels::cpu::fp16_to_float(v);
}

// `values` as a buffer of `dtype`.
inline std::vector<std::byte> buffer_of(plan::Dtype dtype, std::initializer_list<float> values) {
  std::vector<std::byte> out(values.size() * static_cast<std::size_t>(plan::dtype_size(dtype)));
  std::size_t i = 0;
  for (float v : values) encode(v, dtype, out.data() + i++ * plan::dtype_size(dtype));
  return out;
}

// Values of mixed signs and magnitudes (2^-12 to 2^8), so that the summation order shows in the
// rounded result.
inline std::vector<std::byte> rank_buffer(int rank, std::int64_t count, plan::Dtype dtype) {
  std::mt19937 gen(static_cast<std::uint32_t>(rank * 7919 + count * 31 + static_cast<int>(dtype)));
  const Bytes elem = plan::dtype_size(dtype);
  std::vector<std::byte> out(static_cast<std::size_t>(count * elem));
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint32_t u = gen();
    const float x = static_cast<float>(static_cast<int>(u % 2001) - 1000) / 1000.0f *
                    std::ldexp(1.0f, static_cast<int>((u >> 16) % 21) - 12);
    encode(x, dtype, out.data() + i * elem);
  }
  return out;
}

// Every rank's buffer of a group of n.
inline std::vector<std::vector<std::byte>> all_rank_buffers(int n, std::int64_t count,
                                                            plan::Dtype dtype) {
  std::vector<std::vector<std::byte>> b;
  for (int r = 0; r < n; ++r) b.push_back(rank_buffer(r, count, dtype));
  return b;
}

}  // namespace zs::exec::testing
