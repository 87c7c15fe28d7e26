#include "exec/collective_buffer.h"

#include <algorithm>
#include <cstring>

#include "common/check.h"
#include "kernels/cpu/dtype.h"

namespace zs::exec {
namespace {

namespace k = kernels::cpu;

// `n` floats from `in` rounded to `dtype` at `out`.
void encode(const float* in, std::int64_t n, plan::Dtype dtype, std::byte* out) {
  switch (dtype) {
    case plan::Dtype::kFp32:
      if (n > 0) std::memcpy(out, in, static_cast<std::size_t>(n) * sizeof(float));
      return;
    case plan::Dtype::kBf16:
      k::float_to_bf16(in, reinterpret_cast<k::Bf16*>(out), n);
      return;
    case plan::Dtype::kFp16:
      k::float_to_fp16(in, reinterpret_cast<k::Fp16*>(out), n);
      return;
    default:
      ZS_CHECK_MSG(false, "a model tensor's collective is fp32, bf16 or fp16");
  }
}

void decode(const std::byte* in, std::int64_t n, plan::Dtype dtype, float* out) {
  switch (dtype) {
    case plan::Dtype::kFp32:
      if (n > 0) std::memcpy(out, in, static_cast<std::size_t>(n) * sizeof(float));
      return;
    case plan::Dtype::kBf16:
      k::bf16_to_float(reinterpret_cast<const k::Bf16*>(in), out, n);
      return;
    case plan::Dtype::kFp16:
      k::fp16_to_float(reinterpret_cast<const k::Fp16*>(in), out, n);
      return;
    default:
      ZS_CHECK_MSG(false, "a model tensor's collective is fp32, bf16 or fp16");
  }
}

// Rounds v to dtype and back.
void round_to(std::span<float> v, plan::Dtype dtype) {
  if (dtype == plan::Dtype::kFp32) return;
  std::vector<std::byte> tmp(v.size() * static_cast<std::size_t>(plan::dtype_size(dtype)));
  const auto n = static_cast<std::int64_t>(v.size());
  encode(v.data(), n, dtype, tmp.data());
  decode(tmp.data(), n, dtype, v.data());
}

}  // namespace

std::vector<BufferRun> concatenated_runs(std::span<const plan::ParamSlice> slices,
                                         std::span<const std::int64_t> param_offsets) {
  std::vector<BufferRun> runs;
  std::int64_t pos = 0;
  for (const plan::ParamSlice& s : slices) {
    const std::int64_t flat = param_offsets[static_cast<std::size_t>(s.param)] + s.begin;
    if (s.end > s.begin) runs.push_back({pos, flat, s.end - s.begin});
    pos += s.end - s.begin;
  }
  return runs;
}

BufferMap buffer_map(const plan::Plan& plan, const plan::CollectiveWork& work,
                     std::span<const std::int64_t> param_offsets) {
  BufferMap m;
  const int n = std::max(work.group_size, 1);
  m.elems = work.bytes / plan::dtype_size(work.dtype);
  m.block_elems = m.elems / n;
  const std::span<const plan::ParamSlice> slices = plan.slices(work);
  const auto flat = [&](const plan::ParamSlice& s) {
    return param_offsets[static_cast<std::size_t>(s.param)] + s.begin;
  };
  if (work.layout == plan::SliceLayout::kConcatenated) {
    m.runs = concatenated_runs(slices, param_offsets);
    ZS_CHECK_MSG(m.runs.empty() || m.runs.back().pos + m.runs.back().n <= m.elems,
                 "a collective's slices overflow its buffer");
    return m;
  }
  // kRankPieces: block c holds piece c of each slice, each padded to k = ceil(len / n).
  std::int64_t block = 0;
  for (const plan::ParamSlice& s : slices) block += (s.end - s.begin + n - 1) / n;
  ZS_CHECK_MSG(block * n <= m.elems, "a collective's slices overflow its buffer");
  for (int c = 0; c < n; ++c) {
    std::int64_t pos = c * m.block_elems;
    for (const plan::ParamSlice& s : slices) {
      const std::int64_t len = s.end - s.begin;
      const std::int64_t piece = (len + n - 1) / n;
      const std::int64_t b = std::min(len, c * piece);
      const std::int64_t e = std::min(len, b + piece);
      if (e > b) m.runs.push_back({pos, flat(s) + b, e - b});
      pos += piece;
    }
  }
  return m;
}

void pack(const BufferMap& map, std::span<const float> src, float scale, plan::Dtype dtype,
          std::int64_t lo, std::int64_t hi, std::byte* buffer) {
  const Bytes e = plan::dtype_size(dtype);
  if (hi > lo) std::memset(buffer + lo * e, 0, static_cast<std::size_t>((hi - lo) * e));
  std::vector<float> tmp;
  for (const BufferRun& r : map.runs) {
    const std::int64_t b = std::max(lo, r.pos);
    const std::int64_t end = std::min(hi, r.pos + r.n);
    if (b >= end) continue;
    tmp.assign(src.begin() + (r.flat + b - r.pos), src.begin() + (r.flat + end - r.pos));
    if (scale != 1.0f) {
      for (float& x : tmp) x *= scale;
    }
    encode(tmp.data(), end - b, dtype, buffer + b * e);
  }
}

void unpack(const BufferMap& map, const std::byte* buffer, float scale, plan::Dtype dtype,
            std::int64_t lo, std::int64_t hi,
            const std::function<void(std::int64_t flat, std::span<const float> values)>& f) {
  const Bytes e = plan::dtype_size(dtype);
  std::vector<float> tmp;
  for (const BufferRun& r : map.runs) {
    const std::int64_t b = std::max(lo, r.pos);
    const std::int64_t end = std::min(hi, r.pos + r.n);
    if (b >= end) continue;
    tmp.resize(static_cast<std::size_t>(end - b));
    decode(buffer + b * e, end - b, dtype, tmp.data());
    if (scale != 1.0f) {
      for (float& x : tmp) x *= scale;
      round_to(tmp, dtype);
    }
    f(r.flat + b - r.pos, tmp);
  }
}

}  // namespace zs::exec
