// Communicator: the collectives one rank's executor runs over the Plan's data-parallel group,
// in place on a rank's buffer, with the dtypes the Plan names: fp32, bf16, fp16 and fp64 are
// summed; u8 (flags) is combined with MAX, as DeepSpeed's overflow flag is.
//
// The result of every collective is defined to the bit, so that a run on N ranks can be compared
// with the single-process reference below and every rank holds the same values. The order is
// NCCL's ring (src/device/prims_ll.h and reduce_scatter.h walk the ring the same way):
// - A buffer reduced as n chunks: chunk c is elements [c*count/n, (c+1)*count/n) (integer
//   division: uneven chunks when n does not divide count; empty ones when count < n).
// - Chunk c's sum starts on rank c+1 and travels the ring c+1, c+2, ..., c (mod n): the
//   partial sum arriving from the previous rank is added to the local chunk, received first:
//   acc = acc + x_r. Sums are computed in fp32 (fp64 for fp64) and rounded to the dtype after
//   every add (round to nearest even, kernels/cpu/dtype.h), as a 16-bit ring reduction rounds
//   at every hop; u8 takes max(acc, x_r).
// - all_reduce: the ring reduce-scatter above, then a ring all-gather of the finished chunks
//   (each copied as is).
// - reduce_scatter: the buffer holds n blocks of `count` elements; block c is reduced in ring
//   order and lands in rank c's block c (NCCL's in-place layout); the other blocks of a rank's
//   buffer hold partial sums afterwards (unspecified).
// - all_gather: the buffer holds n blocks of `count`; rank r's block r is its input; afterwards
//   every rank's block c is rank c's input.
// - reduce: `root` ends with what all_reduce gives; every other rank's buffer is unchanged.
// - broadcast: every rank ends with root's buffer.
// A group of one leaves every buffer as it is.
//
// Errors are Status (kIoError naming the collective, the rank and what the transport said); a
// collective either completes on every rank or reports on the rank that saw the failure.
// Buffers are host memory; `data` may be null only when the element count is 0.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "plan/plan.h"

namespace zs::exec {

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;

  // `count` elements of `dtype` at `data`, summed over the ranks.
  virtual Status all_reduce(void* data, std::int64_t count, plan::Dtype dtype) = 0;
  // `data` holds size() blocks of `count` elements.
  virtual Status reduce_scatter(void* data, std::int64_t count, plan::Dtype dtype) = 0;
  // `data` holds size() blocks of `count` elements.
  virtual Status all_gather(void* data, std::int64_t count, plan::Dtype dtype) = 0;
  virtual Status reduce(void* data, std::int64_t count, plan::Dtype dtype, int root) = 0;
  virtual Status broadcast(void* data, std::int64_t count, plan::Dtype dtype, int root) = 0;
};

// Every rank's `mine` (any length), in rank order, on every rank: two all_gathers of bytes
// (the lengths, then each rank's bytes padded to the longest). A collective's Status on failure.
Result<std::vector<std::string>> all_gather_bytes(Communicator& c, std::string_view mine);

// The group of one rank (world size 1): every collective leaves the buffer as it is.
std::unique_ptr<Communicator> make_self_communicator();

// OK for the dtypes a collective carries (all of plan::Dtype); kInvalidArgument naming `what`
// (the collective) otherwise, and for a negative count or a root outside [0, size).
Status check_collective(std::string_view what, std::int64_t count, plan::Dtype dtype, int root,
                        int size);

// Chunk c of a buffer of `count` elements reduced as n chunks: [begin, end).
struct Chunk {
  std::int64_t begin = 0, end = 0;
};
Chunk ring_chunk(std::int64_t count, int n, int c);

// memcpy of n bytes that allows n = 0 with null pointers (an empty chunk's storage).
void copy_bytes(void* dst, const void* src, std::int64_t n);

// dst[i] = round(dst[i] + src[i]) in `dtype` (the sum in fp32; fp64 in fp64), or
// max(dst[i], src[i]) for u8, for i < count.
void add_into(void* dst, const void* src, std::int64_t count, plan::Dtype dtype);

// The single-process reference: `buffers[r]` is rank r's buffer (raw bytes of its dtype),
// changed as the collective changes it on every rank (the contract above, to the bit).
// REQUIRES: every buffer holds the collective's element count (all_reduce: count; the block
// collectives: buffers.size() * count), check_collective is OK.
void reference_all_reduce(std::span<std::vector<std::byte>> buffers, std::int64_t count,
                          plan::Dtype dtype);
void reference_reduce_scatter(std::span<std::vector<std::byte>> buffers, std::int64_t count,
                              plan::Dtype dtype);
void reference_all_gather(std::span<std::vector<std::byte>> buffers, std::int64_t count,
                          plan::Dtype dtype);

}  // namespace zs::exec
