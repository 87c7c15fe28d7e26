// Packing a collective's buffer from flat tensors and unpacking it, on the device: the CUDA
// twins of exec/collective_buffer.h pack and unpack (their CPU reference), for the executor's
// ZeRO collectives over NCCL; and moving offload's gradients between the device and pinned
// host memory (the CPU twin: exec/host_rank_tensors.h move_grads).
//
// A buffer of raw `buffer_type` elements maps onto a flat tensor of `flat_type` elements through
// runs: buffer positions [pos, pos + n) are flat elements [flat, flat + n). Runs do not
// overlap, in the buffer or in the flat tensor. Values are converted as the CPU twin does: into
// the buffer, fp32(flat) * scale rounded to buffer_type once; out of it, fp32(buffer), times
// scale and rounded to buffer_type again when scale != 1, then added to the fp32 flat tensor or
// rounded to flat_type and stored.
//
// Conventions (kernels/cuda/types.h): device memory, each call enqueues on `stream` and returns
// without waiting; `runs` is a device array of num_runs PackRun; REQUIRES: abort through
// ZS_CHECK. Deterministic: every element is written by one thread, with no atomics.
#pragma once

#include <cstdint>

#include "kernels/cuda/types.h"

namespace zs::kernels::cuda {

enum class ElemType : std::uint8_t { kF32, kBf16, kF16 };

struct PackRun {
  std::int64_t pos = 0;
  std::int64_t flat = 0;
  std::int64_t n = 0;
};

// Buffer positions [lo, hi): runs' elements from `flat` times `scale`, zeros where no run lies.
// take: the flat elements packed become zero.
// REQUIRES: 0 <= lo <= hi; num_runs >= 0; pointers non-null when used.
void pack_runs(const PackRun* runs, std::int64_t num_runs, void* flat, ElemType flat_type,
               float scale, bool take, std::int64_t lo, std::int64_t hi, void* buffer,
               ElemType buffer_type, cudaStream_t stream);

// For runs' elements at buffer positions [lo, hi): add (flat_type must be kF32) or store into
// `flat`.
// REQUIRES: as pack_runs.
void unpack_runs(const PackRun* runs, std::int64_t num_runs, const void* buffer,
                 ElemType buffer_type, float scale, std::int64_t lo, std::int64_t hi, void* flat,
                 ElemType flat_type, bool add, cudaStream_t stream);

// For every run, flat elements [r.flat, r.flat + r.n) (r.pos is not read): to[i] += from[i],
// then from[i] = 0, in fp32. Either array may be pinned host memory (mapped into the device's
// address space, as cudaHostAlloc's is under unified addressing): offload's gradient copies.
// REQUIRES: num_runs >= 0; pointers non-null when num_runs > 0; from and to do not overlap.
void move_runs(const PackRun* runs, std::int64_t num_runs, float* from, float* to,
               cudaStream_t stream);

}  // namespace zs::kernels::cuda
