// How a collective's buffer (plan.h CollectiveWork: `slices` laid out per `layout`) maps onto
// the model's flat fp32 arrays in ModelRunner order, and its packing and unpacking in the
// collective's dtype. The executor's only reading of what a collective carries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "plan/plan.h"

namespace zs::exec {

// Buffer elements [pos, pos + n) are flat elements [flat, flat + n).
struct BufferRun {
  std::int64_t pos = 0;
  std::int64_t flat = 0;
  std::int64_t n = 0;
};

struct BufferMap {
  std::int64_t elems = 0;        // the whole buffer: CollectiveWork::bytes / dtype size
  std::int64_t block_elems = 0;  // one rank's block (reduce_scatter, all_gather): elems / N
  std::vector<BufferRun> runs;   // in pos order; positions without a run are padding (zeros)
};

// `slices` back to back from buffer position 0, as runs (empty slices have none).
std::vector<BufferRun> concatenated_runs(std::span<const plan::ParamSlice> slices,
                                         std::span<const std::int64_t> param_offsets);

// The map of `work`'s buffer, `param_offsets[id]` being parameter id's flat offset
// (ModelRunner::param_offset). REQUIRES: work's slices fit its buffer (a plan/ bug otherwise).
BufferMap buffer_map(const plan::Plan& plan, const plan::CollectiveWork& work,
                     std::span<const std::int64_t> param_offsets);

// Buffer positions [lo, hi) of `buffer` (raw `dtype`): src[flat] * scale rounded to dtype at
// every run's positions, zeros elsewhere. REQUIRES: dtype is fp32, bf16 or fp16.
void pack(const BufferMap& map, std::span<const float> src, float scale, plan::Dtype dtype,
          std::int64_t lo, std::int64_t hi, std::byte* buffer);

// For every run's part inside positions [lo, hi): its values widened to fp32, times `scale`
// and rounded to dtype again (a 16-bit tensor's in-place mul_), passed to
// f(flat, values) in pos order. REQUIRES: as pack.
void unpack(const BufferMap& map, const std::byte* buffer, float scale, plan::Dtype dtype,
            std::int64_t lo, std::int64_t hi,
            const std::function<void(std::int64_t flat, std::span<const float> values)>& f);

}  // namespace zs::exec
