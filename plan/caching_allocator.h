// A model of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp), for what a
// step's tensors reserve on the device beyond what they hold: the memory replay
// (plan/memory.h) runs the Plan's buffers through it.
//
// The rules it follows, from PyTorch's code (PyTorch 2.x, default settings: no
// max_split_size_mb, no expandable_segments, no roundup_power2_divisions):
// - Every request is rounded up to a multiple of 512 bytes (kMinBlockSize), at least 512.
// - Requests of at most 1 MiB (kSmallSize) come from the small pool, the rest from the large
//   pool; pools never lend to each other.
// - A request takes the smallest free block of its pool that is large enough (best fit; ties
//   to the lowest address). The block is split when what remains is at least 512 bytes (small
//   pool) or more than 1 MiB (large pool); otherwise the request keeps the whole block.
// - With no such block, a new segment is reserved (cudaMalloc): 2 MiB for a small request
//   (kSmallBuffer), 20 MiB for a large one under 10 MiB (kLargeBuffer, kMinLargeAlloc), else the
//   request rounded up to 2 MiB (kRoundLarge).
// - Freed blocks merge with free neighbours in their segment. Segments stay reserved (cached)
//   until a cudaMalloc would exceed the device: then every fully free segment is released and
//   the cudaMalloc retried; if it still does not fit, the request fails (the CUDA OOM message's
//   "reserved in total by PyTorch").
// One stream is assumed (blocks are not kept apart by stream). Sizes are the plan's buffers,
// which may group several tensors, so the fragmentation found is a lower bound.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "common/node_arena.h"
#include "common/units.h"

namespace zs::plan {

class CachingAllocator {
 public:
  // `limit_bytes`: what cudaMalloc can reserve in all (device memory less the CUDA context and
  // what NCCL holds outside PyTorch).
  // `expected_blocks`: a guess at how many live blocks there will be, to size the arrays once.
  explicit CachingAllocator(Bytes limit_bytes, int expected_blocks = 0) : limit_(limit_bytes) {
    blocks_.reserve(static_cast<std::size_t>(expected_blocks) * 2);
    segments_.reserve(static_cast<std::size_t>(expected_blocks));
  }

  // Allocates `bytes` (> 0) and returns its handle; -1 when the device has no room even after
  // releasing the cached segments (recorded in failed_bytes()).
  int malloc(Bytes bytes);
  // REQUIRES: `handle` came from malloc and was not freed.
  void free(int handle);
  // malloc(bytes) and, when it succeeds, free of the block at once (an op's transient
  // workspace). A request that a cached block holds leaves the pools as they were (the split
  // tail merges back), so only the peak moves and the pools are not touched.
  void malloc_and_free(Bytes bytes);

  Bytes allocated() const { return allocated_; }  // rounded sizes of live blocks
  Bytes reserved() const { return reserved_; }    // segments held
  Bytes peak_reserved() const { return peak_reserved_; }
  Bytes peak_allocated() const { return peak_allocated_; }
  // The largest request that failed, 0 if none did.
  Bytes failed_bytes() const { return failed_bytes_; }
  int failures() const { return failures_; }

  static Bytes round_size(Bytes bytes);
  static Bytes segment_size(Bytes rounded);

 private:
  // Free blocks per pool, ordered by (size, segment, offset) as PyTorch's BlockComparatorSize
  // orders its pool, so the best fit is a lower_bound. (A 7B sweep's near-capacity replays hold
  // up to 330 free blocks a pool, 100 on average: a scan per request cost a quarter of it.)
  struct FreeKey {
    Bytes size = 0;
    int segment = 0;
    Bytes offset = 0;
    int id = 0;
  };
  struct KeyLess {
    bool operator()(const FreeKey& a, const FreeKey& b) const {
      if (a.size != b.size) return a.size < b.size;
      if (a.segment != b.segment) return a.segment < b.segment;
      return a.offset < b.offset;
    }
  };
  // The pools' tree nodes come from an arena (common/node_arena.h): a replay inserts and erases
  // a node per split and merge, which general-purpose allocators made a tenth of its time.
  using FreePool = std::set<FreeKey, KeyLess, ArenaAllocator<FreeKey>>;

  // Blocks of a segment form a list in address order (prev/next block ids, -1 at the ends).
  struct Block {
    Bytes size = 0;
    Bytes offset = 0;
    int segment = 0;
    int prev = -1, next = -1;
    bool free = false;           // in its pool
    FreePool::iterator where{};  // its place there while free
    bool small = false;
  };
  struct Segment {
    Bytes size = 0;
    int first = -1;  // its first block
    bool live = true;
  };

  int new_block(const Block& b);
  int take(int block, Bytes rounded);
  static bool splits(bool small, Bytes remaining);
  // Joins block `right` to its left neighbour `left`; neither is in a free list.
  void absorb(int left, int right);
  void insert_free(int block);
  void erase_free(int block);
  bool reserve_segment(Bytes size, bool small);
  void release_cached();
  static int best_fit(const FreePool& pool, Bytes rounded);
  // A block that spans its whole segment, free: what release_cached gives back.
  bool whole_segment(const Block& b) const { return b.prev < 0 && b.next < 0; }

  Bytes limit_;
  Bytes allocated_ = 0, reserved_ = 0, peak_reserved_ = 0, peak_allocated_ = 0;
  Bytes failed_bytes_ = 0;
  int failures_ = 0;
  std::vector<Block> blocks_;
  std::vector<int> spare_;  // ids of merged-away blocks, for reuse
  std::vector<Segment> segments_;
  NodeArena nodes_;  // declared before the pools, which give their nodes back to it
  FreePool free_small_{KeyLess{}, ArenaAllocator<FreeKey>(&nodes_)};
  FreePool free_large_{KeyLess{}, ArenaAllocator<FreeKey>(&nodes_)};
  int free_segments_ = 0;  // segments whose one block is free: release_cached has work
};

}  // namespace zs::plan
