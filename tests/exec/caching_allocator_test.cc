#include "exec/caching_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>

namespace zs::exec {
namespace {

// Hands out fake, never dereferenced addresses, back to back (so segments are adjacent in the
// address space and only the allocator's bookkeeping keeps them apart). Fails when the next
// `fail_next` calls are due to fail or when `capacity_bytes` would be exceeded.
class FakeMemory final : public RawMemory {
 public:
  explicit FakeMemory(Bytes capacity_bytes = kTiB) : capacity_bytes_(capacity_bytes) {}

  Result<void*> allocate(std::int64_t bytes) override {
    ++calls_;
    if (fail_next_ > 0) {
      --fail_next_;
      return Status::invalid_argument("fake failure");
    }
    if (in_use_bytes_ + bytes > capacity_bytes_) return Status::invalid_argument("fake: full");
    const std::uintptr_t p = next_;
    next_ += static_cast<std::uintptr_t>(bytes);
    live_[p] = bytes;
    in_use_bytes_ += bytes;
    return reinterpret_cast<void*>(p);
  }

  void release(void* p, std::int64_t bytes) override {
    auto it = live_.find(reinterpret_cast<std::uintptr_t>(p));
    ASSERT_NE(it, live_.end());
    EXPECT_EQ(it->second, bytes);
    in_use_bytes_ -= bytes;
    live_.erase(it);
  }

  void fail_next(int n) { fail_next_ = n; }
  int calls() const { return calls_; }
  Bytes in_use_bytes() const { return in_use_bytes_; }

 private:
  Bytes capacity_bytes_;
  std::uintptr_t next_ = std::uintptr_t{1} << 32;
  std::map<std::uintptr_t, Bytes> live_;
  Bytes in_use_bytes_ = 0;
  int fail_next_ = 0;
  int calls_ = 0;
};

std::uintptr_t addr(const Block& b) { return reinterpret_cast<std::uintptr_t>(b.ptr); }

TEST(CachingAllocator, RoundsRequestsAndSegments) {
  EXPECT_EQ(round_block_bytes(0), 512);
  EXPECT_EQ(round_block_bytes(1), 512);
  EXPECT_EQ(round_block_bytes(512), 512);
  EXPECT_EQ(round_block_bytes(513), 1024);
  EXPECT_EQ(segment_bytes_for(512), 2 * kMiB);
  EXPECT_EQ(segment_bytes_for(kMiB), 2 * kMiB);
  EXPECT_EQ(segment_bytes_for(kMiB + 512), 20 * kMiB);
  EXPECT_EQ(segment_bytes_for(10 * kMiB - 512), 20 * kMiB);
  EXPECT_EQ(segment_bytes_for(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(segment_bytes_for(10 * kMiB + 512), 12 * kMiB);

  FakeMemory raw;
  CachingAllocator alloc(raw);
  Result<Block> a = alloc.allocate(1);
  Result<Block> b = alloc.allocate(1000);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->bytes, 512);
  EXPECT_EQ(b->bytes, 1024);
  EXPECT_EQ(addr(*b), addr(*a) + 512);
  EXPECT_EQ(addr(*a) % 512, 0u);
  EXPECT_EQ(alloc.stats().allocated_bytes, 1536);
  EXPECT_EQ(alloc.stats().reserved_bytes, 2 * kMiB);
}

TEST(CachingAllocator, FreedBlockIsReusedWithoutRawAllocation) {
  FakeMemory raw;
  CachingAllocator alloc(raw);
  Block a = alloc.allocate(4 * kMiB).value();
  alloc.free(a);
  Block b = alloc.allocate(4 * kMiB).value();
  EXPECT_EQ(b.ptr, a.ptr);
  EXPECT_EQ(raw.calls(), 1);
  EXPECT_EQ(alloc.stats().num_raw_allocs, 1);
  EXPECT_EQ(alloc.stats().reserved_bytes, 20 * kMiB);
}

TEST(CachingAllocator, SmallAndLargePoolsAreSeparate) {
  FakeMemory raw;
  CachingAllocator alloc(raw);
  // A cached 2 MiB small segment could hold 1 MiB + 512, but that is a large request.
  alloc.free(alloc.allocate(kMiB).value());
  Block large = alloc.allocate(kMiB + 512).value();
  EXPECT_EQ(alloc.stats().num_raw_allocs, 2);
  EXPECT_EQ(alloc.stats().reserved_bytes, 22 * kMiB);
  // And the 20 MiB large segment, mostly free, does not serve small requests.
  Block small = alloc.allocate(512).value();
  EXPECT_EQ(alloc.stats().num_raw_allocs, 2);  // from the cached small segment
  alloc.free(small);
  alloc.free(alloc.allocate(kMiB).value());
  EXPECT_EQ(alloc.stats().num_raw_allocs, 2);
  alloc.free(large);
  EXPECT_EQ(alloc.num_segments(), 2);
}

TEST(CachingAllocator, LargeRemainderOfAtMostOneMiBIsNotSplit) {
  FakeMemory raw;
  CachingAllocator alloc(raw);
  Block a = alloc.allocate(9 * kMiB).value();   // 20 MiB segment, 11 MiB cached after it
  Block b = alloc.allocate(10 * kMiB).value();  // best fit: the 11 MiB block, 1 MiB left
  EXPECT_EQ(alloc.stats().num_raw_allocs, 1);
  EXPECT_EQ(addr(b), addr(a) + 9 * kMiB);
  EXPECT_EQ(b.bytes, 11 * kMiB);  // the whole block, as PyTorch counts it
  EXPECT_EQ(alloc.stats().allocated_bytes, 20 * kMiB);
  alloc.free(a);
  alloc.free(b);
}

TEST(CachingAllocator, BestFitPicksTheSmallestFreeBlock) {
  FakeMemory raw;
  CachingAllocator alloc(raw);
  Block a = alloc.allocate(512 * kKiB).value();
  Block fence1 = alloc.allocate(512).value();
  Block b = alloc.allocate(256 * kKiB).value();
  Block fence2 = alloc.allocate(512).value();
  alloc.free(a);  // 512 KiB hole
  alloc.free(b);  // 256 KiB hole; the segment's tail is larger still
  EXPECT_EQ(alloc.allocate(200 * kKiB)->ptr, b.ptr);
  EXPECT_EQ(alloc.allocate(300 * kKiB)->ptr, a.ptr);
  EXPECT_EQ(alloc.stats().num_raw_allocs, 1);
  (void)fence1;
  (void)fence2;
}

TEST(CachingAllocator, SplitBlocksMergeBackIntoAWholeSegment) {
  FakeMemory raw;
  CachingAllocator alloc(raw);
  Block a = alloc.allocate(512 * kKiB).value();
  Block b = alloc.allocate(512 * kKiB).value();
  Block c = alloc.allocate(512 * kKiB).value();
  ASSERT_EQ(alloc.num_segments(), 1);
  EXPECT_EQ(addr(b), addr(a) + 512 * kKiB);
  EXPECT_EQ(addr(c), addr(b) + 512 * kKiB);

  alloc.free(b);
  alloc.empty_cache();  // nothing to release: a and c are live
  EXPECT_EQ(alloc.stats().num_raw_frees, 0);
  // The hole and the tail are separate 512 KiB blocks: 1 MiB fits in neither.
  Block big = alloc.allocate(kMiB).value();
  EXPECT_EQ(alloc.num_segments(), 2);
  alloc.free(big);

  alloc.free(a);  // merges with b's hole: 1 MiB at a
  Block merged = alloc.allocate(kMiB).value();
  EXPECT_EQ(merged.ptr, a.ptr);
  EXPECT_EQ(alloc.num_segments(), 2);
  alloc.free(merged);

  alloc.free(c);  // merges with both neighbours: the segment is whole again
  EXPECT_EQ(alloc.stats().allocated_bytes, 0);
  alloc.empty_cache();
  EXPECT_EQ(alloc.stats().num_raw_frees, 2);
  EXPECT_EQ(alloc.stats().reserved_bytes, 0);
  EXPECT_EQ(raw.in_use_bytes(), 0);
}

TEST(CachingAllocator, AdjacentSegmentsNeverMerge) {
  FakeMemory raw;  // hands out the two segments back to back
  CachingAllocator alloc(raw);
  Block a = alloc.allocate(kMiB).value();
  Block b = alloc.allocate(kMiB).value();
  Block c = alloc.allocate(kMiB).value();  // second segment, right after the first
  EXPECT_EQ(addr(c), addr(a) + 2 * kMiB);
  alloc.free(b);
  alloc.free(c);
  alloc.free(a);
  alloc.empty_cache();
  EXPECT_EQ(alloc.stats().num_raw_frees, 2);  // two 2 MiB segments, not one 4 MiB block
  EXPECT_EQ(raw.in_use_bytes(), 0);
}

TEST(CachingAllocator, PeaksKeepTheMaximaWhileCurrentValuesFall) {
  FakeMemory raw;
  CachingAllocator alloc(raw);
  Block a = alloc.allocate(3 * kMiB).value();   // 20 MiB segment
  Block b = alloc.allocate(12 * kMiB).value();  // from the same segment (17 MiB free)
  Block c = alloc.allocate(256).value();        // 2 MiB small segment
  Stats s = alloc.stats();
  EXPECT_EQ(s.allocated_bytes, 15 * kMiB + 512);
  EXPECT_EQ(s.reserved_bytes, 22 * kMiB);
  alloc.free(b);
  alloc.free(a);
  s = alloc.stats();
  EXPECT_EQ(s.allocated_bytes, 512);
  EXPECT_EQ(s.peak_allocated_bytes, 15 * kMiB + 512);
  EXPECT_EQ(s.reserved_bytes, 22 * kMiB);  // cached, still reserved
  alloc.empty_cache();
  s = alloc.stats();
  EXPECT_EQ(s.reserved_bytes, 2 * kMiB);
  EXPECT_EQ(s.peak_reserved_bytes, 22 * kMiB);
  Block d = alloc.allocate(kMiB).value();  // below the old peak: peak unchanged
  EXPECT_EQ(alloc.stats().peak_allocated_bytes, 15 * kMiB + 512);
  alloc.free(c);
  alloc.free(d);
  EXPECT_EQ(alloc.stats().allocated_bytes, 0);
}

TEST(CachingAllocator, EmptyCacheReleasesOnlyWhollyFreeSegments) {
  FakeMemory raw;
  CachingAllocator alloc(raw);
  Block live = alloc.allocate(kMiB).value();       // small segment 1, stays
  Block small2 = alloc.allocate(kMiB).value();     // fills segment 1
  Block small3 = alloc.allocate(512).value();      // small segment 2
  Block large = alloc.allocate(5 * kMiB).value();  // large segment
  alloc.free(small2);
  alloc.free(small3);
  alloc.free(large);
  ASSERT_EQ(alloc.num_segments(), 3);
  alloc.empty_cache();
  EXPECT_EQ(alloc.num_segments(), 1);
  EXPECT_EQ(alloc.stats().num_raw_frees, 2);
  EXPECT_EQ(alloc.stats().reserved_bytes, 2 * kMiB);
  // The free half of the kept segment is still cached.
  EXPECT_EQ(alloc.allocate(kMiB)->ptr, small2.ptr);
  EXPECT_EQ(alloc.stats().num_raw_allocs, 3);
  (void)live;
}

TEST(CachingAllocator, RetriesOnceAfterEmptyingTheCache) {
  FakeMemory raw(40 * kMiB);
  CachingAllocator alloc(raw);
  alloc.free(alloc.allocate(4 * kMiB).value());  // 20 MiB cached
  // 30 MiB more does not fit beside the cache: it is released and the retry succeeds.
  Block big = alloc.allocate(30 * kMiB).value();
  EXPECT_EQ(raw.calls(), 3);
  Stats s = alloc.stats();
  EXPECT_EQ(s.num_raw_allocs, 2);
  EXPECT_EQ(s.num_raw_frees, 1);
  EXPECT_EQ(s.reserved_bytes, 30 * kMiB);
  EXPECT_EQ(s.peak_reserved_bytes, 30 * kMiB);

  // A transient failure with nothing cached: retried once, succeeds.
  raw.fail_next(1);
  Block small = alloc.allocate(512).value();
  EXPECT_EQ(alloc.stats().num_raw_allocs, 3);

  // A real OOM: 16 MiB does not fit in what is left even with the cache empty.
  alloc.free(small);  // its 2 MiB segment is cached and released by the retry
  Result<Block> oom = alloc.allocate(16 * kMiB);
  ASSERT_FALSE(oom.ok());
  EXPECT_EQ(oom.status().code(), StatusCode::kInvalidArgument);
  const std::string& msg = oom.status().message();
  EXPECT_EQ(msg.rfind("out of memory: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("16,777,216 bytes"), std::string::npos) << msg;  // requested
  EXPECT_NE(msg.find("31,457,280 bytes"), std::string::npos) << msg;  // reserved
  EXPECT_NE(msg.find("fake: full"), std::string::npos) << msg;
  s = alloc.stats();
  EXPECT_EQ(s.allocated_bytes, 30 * kMiB);
  EXPECT_EQ(s.reserved_bytes, 30 * kMiB);
  EXPECT_EQ(s.num_raw_frees, 2);
  alloc.free(big);
}

TEST(CachingAllocator, ZeroBytesIsANullBlockAndNegativeIsAnError) {
  FakeMemory raw;
  CachingAllocator alloc(raw);
  Block z = alloc.allocate(0).value();
  EXPECT_EQ(z.ptr, nullptr);
  EXPECT_EQ(z.bytes, 0);
  alloc.free(z);
  EXPECT_EQ(raw.calls(), 0);
  Result<Block> neg = alloc.allocate(-1);
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.status().code(), StatusCode::kInvalidArgument);
}

TEST(CachingAllocator, HostMemoryBacksRealWritableBlocks) {
  HostMemory host;
  CachingAllocator alloc(host);
  Block a = alloc.allocate(1000).value();
  Block b = alloc.allocate(3 * kMiB).value();
  EXPECT_EQ(addr(a) % 512, 0u);
  EXPECT_EQ(addr(b) % 512, 0u);
  std::memset(a.ptr, 1, static_cast<std::size_t>(a.bytes));
  std::memset(b.ptr, 2, static_cast<std::size_t>(b.bytes));
  alloc.free(a);
  // b is still live: the destructor returns its segment (ASan's leak check would notice).
}

}  // namespace
}  // namespace zs::exec
