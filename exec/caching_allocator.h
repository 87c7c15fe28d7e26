// A caching allocator for the executor's device buffers, modelled on PyTorch's
// CUDACachingAllocator (pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp: round_size,
// get_allocation_size, get_free_block, should_split, free_block/try_merge_blocks, the retry chain
// in DeviceCachingAllocator::malloc and release_cached_blocks; the size constants are those of
// c10/core/AllocatorConfig.h). Its stats are what torch.cuda.memory_allocated/memory_reserved and
// their max_ variants report, so measured peaks compare with PyTorch's and DeepSpeed's own.
//
// The rules, with PyTorch's defaults (no PYTORCH_CUDA_ALLOC_CONF: no max_split_size, no power-of-2
// rounding, no expandable segments, no garbage-collection threshold):
//   - Every request is rounded up to a multiple of kMinBlockBytes (512), at least 512.
//   - Requests of at most kSmallBytes (1 MiB) use the small pool; larger ones the large pool. A
//     block never moves between pools.
//   - With no cached block that fits, a new segment is taken from RawMemory: kSmallSegmentBytes
//     (2 MiB) for a small request, kLargeSegmentBytes (20 MiB) for a large one under
//     kMinLargeAllocBytes (10 MiB), else the request rounded up to kRoundLargeBytes (2 MiB).
//   - Cached blocks are found best-fit: the smallest free block of the request's pool that is large
//     enough, the lowest address among equals.
//   - The front of the chosen block is handed out; the rest is split off as a new free block when
//     it is >= 512 bytes (small pool) or > 1 MiB (large pool). Otherwise the whole block is handed
//     out and counted as allocated.
//   - A freed block merges with its free neighbours in the same segment; segments never merge.
//   - When RawMemory fails, every cached segment that is wholly free is released (empty_cache())
//     and the raw allocation is retried once; if that fails too the request is out of memory.
//
// One stream: PyTorch keys its pools by CUDA stream and defers reuse across streams
// (recordStream); this allocator has no streams, so a freed block may be reused by the next
// allocate() at once. A caller using several streams must synchronise before free().
// Not thread-safe: one allocator per device per thread, no locking. No globals.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include "common/status.h"
#include "common/units.h"

namespace zs::exec {

// Where segments come from: cudaMalloc/cudaFree on the CUDA backend, HostMemory on the CPU
// backend, a fake in tests.
class RawMemory {
 public:
  virtual ~RawMemory() = default;
  // Returns `bytes` bytes aligned to at least 512 bytes, or a non-OK Status when they cannot be
  // had (the caller treats any failure as out of memory). REQUIRES: bytes > 0.
  virtual Result<void*> allocate(std::int64_t bytes) = 0;
  // Returns memory got from allocate(bytes) with the same `bytes`. REQUIRES: p came from this
  // object's allocate(bytes) and was not released since.
  virtual void release(void* p, std::int64_t bytes) = 0;
};

// Host memory from std::aligned_alloc, 512-byte aligned (cudaMalloc aligns to at least 256).
class HostMemory final : public RawMemory {
 public:
  // kInvalidArgument "out of memory: ..." when aligned_alloc returns null.
  Result<void*> allocate(std::int64_t bytes) override;
  void release(void* p, std::int64_t bytes) override;
};

// What allocate() hands out. `bytes` is what the allocator counts as allocated for it: the request
// rounded up to 512, or the whole cached block when the rest was too small to split off.
struct Block {
  void* ptr = nullptr;
  std::int64_t bytes = 0;
};

// torch.cuda.memory_stats() names: allocated_bytes.all.{current,peak},
// reserved_bytes.all.{current,peak}, num_device_alloc, num_device_free.
struct Stats {
  std::int64_t allocated_bytes = 0;       // bytes in Blocks handed out and not yet freed
  std::int64_t reserved_bytes = 0;        // bytes in segments held from RawMemory
  std::int64_t peak_allocated_bytes = 0;  // max of allocated_bytes (max_memory_allocated)
  std::int64_t peak_reserved_bytes = 0;   // max of reserved_bytes (max_memory_reserved)
  std::int64_t num_raw_allocs = 0;        // successful RawMemory::allocate calls
  std::int64_t num_raw_frees = 0;         // RawMemory::release calls
};

// PyTorch's names in the comments.
inline constexpr Bytes kMinBlockBytes = 512;             // kMinBlockSize
inline constexpr Bytes kSmallBytes = 1 * kMiB;           // kSmallSize
inline constexpr Bytes kSmallSegmentBytes = 2 * kMiB;    // kSmallBuffer
inline constexpr Bytes kLargeSegmentBytes = 20 * kMiB;   // kLargeBuffer
inline constexpr Bytes kMinLargeAllocBytes = 10 * kMiB;  // kMinLargeAlloc
inline constexpr Bytes kRoundLargeBytes = 2 * kMiB;      // kRoundLarge

// `bytes` rounded up to a multiple of 512, at least 512 (round_size). REQUIRES: bytes >= 0.
std::int64_t round_block_bytes(std::int64_t bytes);
// The segment size taken from RawMemory for a rounded request (get_allocation_size).
std::int64_t segment_bytes_for(std::int64_t rounded_bytes);

class CachingAllocator {
 public:
  // REQUIRES: `raw` outlives this allocator.
  explicit CachingAllocator(RawMemory& raw);
  // Releases every segment to RawMemory, also those holding Blocks not yet freed (they dangle).
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A Block of at least `bytes` bytes, 512-byte aligned. bytes == 0 gives {nullptr, 0} without
  // touching memory or stats (PyTorch returns a null DataPtr). kInvalidArgument when bytes < 0,
  // and "out of memory: ..." naming the requested, segment and reserved bytes when RawMemory fails
  // even after the cache was emptied; the allocator is then as before (less the released cache).
  Result<Block> allocate(std::int64_t bytes);

  // Returns the block to its pool and merges it with free neighbours. Freeing {nullptr, 0} does
  // nothing. REQUIRES: `block` came from this allocator's allocate() and was not freed since.
  void free(Block block);

  // Releases every segment with nothing allocated in it to RawMemory (torch.cuda.empty_cache).
  // Segments with any allocated block stay whole, with their free parts still cached.
  void empty_cache();

  Stats stats() const { return stats_; }
  // Segments currently held from RawMemory.
  std::int64_t num_segments() const { return static_cast<std::int64_t>(segments_.size()); }

 private:
  using Address = std::uintptr_t;
  // One block of a segment: allocated or cached free. Keyed by address in blocks_, so a block's
  // neighbours are its map neighbours with the same segment.
  struct BlockInfo {
    std::int64_t bytes = 0;
    Address segment = 0;  // address of the segment's first byte
    bool small = false;   // pool
    bool allocated = false;
  };
  struct Segment {
    std::int64_t bytes = 0;
    bool small = false;
  };
  // Free blocks ordered (size, address): lower_bound is PyTorch's best fit.
  using FreePool = std::set<std::pair<std::int64_t, Address>>;

  FreePool& pool(bool small) { return small ? small_free_ : large_free_; }
  // Takes a new segment from RawMemory, emptying the cache and retrying once on failure.
  Result<Address> new_segment(std::int64_t rounded_bytes, bool small, std::int64_t requested);
  void release_segment(Address base);
  void add_allocated(std::int64_t bytes);
  void add_reserved(std::int64_t bytes);

  RawMemory& raw_;
  std::map<Address, Segment> segments_;
  std::map<Address, BlockInfo> blocks_;
  FreePool small_free_;
  FreePool large_free_;
  Stats stats_;
};

}  // namespace zs::exec
