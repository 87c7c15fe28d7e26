// PyTorch's caching allocator as plan/caching_allocator.h models it: each rule of
// c10/cuda/CUDACachingAllocator.cpp it follows, one test each, and the memory replay's use of it.
#include "plan/caching_allocator.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <vector>

#include "tests/plan/plan_test_util.h"

namespace zs::plan {
namespace {

constexpr Bytes kMiB1 = 1 << 20;
constexpr Bytes kGiB1 = Bytes{1} << 30;

TEST(CachingAllocator, RoundsTo512AndSizesSegmentsAsPyTorchDoes) {
  EXPECT_EQ(CachingAllocator::round_size(1), 512);
  EXPECT_EQ(CachingAllocator::round_size(513), 1024);
  EXPECT_EQ(CachingAllocator::segment_size(512), 2 * kMiB1);           // small: 2 MiB
  EXPECT_EQ(CachingAllocator::segment_size(kMiB1), 2 * kMiB1);         // 1 MiB is still small
  EXPECT_EQ(CachingAllocator::segment_size(kMiB1 + 512), 20 * kMiB1);  // under 10 MiB: 20 MiB
  EXPECT_EQ(CachingAllocator::segment_size(10 * kMiB1), 10 * kMiB1);   // else rounded to 2 MiB
  EXPECT_EQ(CachingAllocator::segment_size(11 * kMiB1), 12 * kMiB1);
}

TEST(CachingAllocator, SmallRequestsShareATwoMiBSegment) {
  CachingAllocator a(kGiB1);
  for (int i = 0; i < 4; ++i) EXPECT_GE(a.malloc(100 * 1024), 0);
  EXPECT_EQ(a.reserved(), 2 * kMiB1);
  EXPECT_EQ(a.allocated(), 4 * 100 * 1024);
}

TEST(CachingAllocator, ALargeBlockSplitsOnlyWhenMoreThanOneMiBRemains) {
  CachingAllocator a(kGiB1);
  const int big = a.malloc(40 * kMiB1);
  a.free(big);  // a cached 40 MiB segment
  // 39.5 MiB leaves 0.5 MiB: no split, the request keeps the whole block.
  const int h = a.malloc(39 * kMiB1 + kMiB1 / 2);
  EXPECT_EQ(a.allocated(), 40 * kMiB1);
  a.free(h);
  // 30 MiB leaves 10 MiB: split, and a 10 MiB request fits in the rest without a new segment.
  a.malloc(30 * kMiB1);
  a.malloc(10 * kMiB1);
  EXPECT_EQ(a.reserved(), 40 * kMiB1);
}

TEST(CachingAllocator, FreedNeighboursMergeAndTheCacheIsReleasedBeforeAnOom) {
  CachingAllocator a(100 * kMiB1);
  const int x = a.malloc(30 * kMiB1);
  const int y = a.malloc(30 * kMiB1);
  a.free(x);
  a.free(y);
  EXPECT_EQ(a.reserved(), 60 * kMiB1);  // cached, not returned
  // 80 MiB does not fit beside the cache: the free segments are released, then it fits.
  EXPECT_GE(a.malloc(80 * kMiB1), 0);
  EXPECT_EQ(a.reserved(), 80 * kMiB1);
  EXPECT_EQ(a.failures(), 0);
}

TEST(CachingAllocator, FragmentationFailsARequestThatTheFreeBytesWouldHold) {
  CachingAllocator a(100 * kMiB1);
  // Two 40 MiB segments each half used: 40 MiB free in all, but no 30 MiB block, and no room
  // for a new segment.
  const int a1 = a.malloc(40 * kMiB1);
  const int b1 = a.malloc(40 * kMiB1);
  a.free(a1);
  a.free(b1);
  const int a2 = a.malloc(20 * kMiB1);  // splits the first segment
  const int b2 = a.malloc(20 * kMiB1);  // takes the other half of the first
  const int c2 = a.malloc(20 * kMiB1);  // splits the second
  a.free(b2);
  EXPECT_EQ(a.allocated(), 40 * kMiB1);
  EXPECT_EQ(a.malloc(30 * kMiB1), -1);
  EXPECT_EQ(a.failed_bytes(), 30 * kMiB1);
  (void)a2;
  (void)c2;
}

TEST(CachingAllocator, TheReplayReportsReservedAboveAllocatedAndItsOomVerdict) {
  const std::string config =
      R"({"train_micro_batch_size_per_gpu": 3, "fp16": {"enabled": true},
          "zero_optimization": {"stage": 1}})";
  PlanSetup s;
  s.model = "gpt2-large";
  s.gpu = "v100-32gb-dgx2";
  s.gpus_per_node = 16;
  s.flash = false;
  const auto fits = plan_text(config, s);
  EXPECT_FALSE(fits.memory.gpu_oom);
  EXPECT_GT(fits.memory.gpu_reserved_peak_bytes, fits.memory.gpu_peak_bytes);
  EXPECT_LT(fits.memory.gpu_reserved_peak_bytes, fits.memory.gpu_peak_bytes + 4 * kGiB1);
  EXPECT_EQ(fits.memory.gpu_failed_request_bytes, 0);
  // Micro-batch 5: the tensors alone (31.5 GiB) are under the 31.75 GiB, the reserve is not.
  const std::string bigger =
      R"({"train_micro_batch_size_per_gpu": 5, "fp16": {"enabled": true},
          "zero_optimization": {"stage": 1}})";
  const auto edge = plan_text(bigger, s);
  EXPECT_GT(edge.memory.gpu_headroom_bytes, 0);
  EXPECT_TRUE(edge.memory.gpu_oom);
  EXPECT_GT(edge.memory.gpu_failed_request_bytes, 0);
}

// A sweep replays the allocator only near capacity: far from it nothing can fail there.
TEST(CachingAllocator, ASweepRunsItOnlyNearCapacityWithTheSameVerdict) {
  const std::string path = ::testing::TempDir() + "zs_alloc_sweep.json";
  for (int mb : {1, 5}) {
    std::ofstream(path) << R"({"train_micro_batch_size_per_gpu": )" + std::to_string(mb) +
                               R"(, "fp16": {"enabled": true}, "zero_optimization": {"stage": 1}})";
    StepRequest r;
    r.config_path = path;
    r.model = *models::resolve_model("gpt2-large");
    r.cluster = *configs::make_cluster("v100-32gb-dgx2", 1, 16);
    r.seq_len = 1024;
    r.flash_attention = false;
    const auto full = plan_with_memory(r);
    r.op_names = false;
    const auto unnamed = plan_with_memory(r);  // names alone do not gate the allocator
    const auto sweep = plan_with_memory(r, {.allocator_near_capacity_only = true});
    ASSERT_TRUE(full.ok() && unnamed.ok() && sweep.ok());
    EXPECT_EQ(unnamed->memory.gpu_reserved_peak_bytes, full->memory.gpu_reserved_peak_bytes);
    EXPECT_EQ(full->memory.gpu_oom, sweep->memory.gpu_oom) << mb;
    EXPECT_GT(full->memory.gpu_reserved_peak_bytes, 0);
    if (mb == 1) {
      EXPECT_EQ(sweep->memory.gpu_reserved_peak_bytes, 0);  // 10 GiB of 32: not computed
    } else {
      EXPECT_EQ(sweep->memory.gpu_reserved_peak_bytes, full->memory.gpu_reserved_peak_bytes);
    }
  }
}

// A naive model of the same rules, written independently (every block of every segment scanned
// per request, segments searched for release), against which random request sequences check
// the allocator's ordered pools, its count of wholly free segments and malloc_and_free.
class NaiveAllocator {
 public:
  explicit NaiveAllocator(Bytes limit) : limit_(limit) {}
  // Returns (segment, offset) packed, or -1.
  std::int64_t malloc(Bytes bytes) {
    const Bytes rounded = CachingAllocator::round_size(bytes);
    const bool small = rounded <= kMiB1;
    auto found = best(rounded, small);
    if (found.first < 0) {
      const Bytes size = CachingAllocator::segment_size(rounded);
      if (reserved_ + size > limit_) {
        for (Seg& s : segs_) {
          if (s.live && s.blocks.size() == 1 && !s.blocks[0].used) {
            s.live = false;
            reserved_ -= s.size;
          }
        }
      }
      if (reserved_ + size > limit_) {
        ++failures_;
        failed_ = std::max(failed_, rounded);
        return -1;
      }
      segs_.push_back(Seg{size, small, true, {Blk{0, size, false}}});
      reserved_ += size;
      peak_reserved_ = std::max(peak_reserved_, reserved_);
      found = best(rounded, small);
    }
    Seg& s = segs_[static_cast<std::size_t>(found.first)];
    const std::size_t k = static_cast<std::size_t>(found.second);
    const Bytes remaining = s.blocks[k].size - rounded;
    if (small ? remaining >= 512 : remaining > kMiB1) {
      s.blocks.insert(s.blocks.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                      Blk{s.blocks[k].offset + rounded, remaining, false});
      s.blocks[k].size = rounded;
    }
    s.blocks[k].used = true;
    allocated_ += s.blocks[k].size;
    peak_allocated_ = std::max(peak_allocated_, allocated_);
    return found.first * (Bytes{1} << 40) + s.blocks[k].offset;
  }
  void free(std::int64_t handle) {
    Seg& s = segs_[static_cast<std::size_t>(handle >> 40)];
    std::size_t k = 0;
    while (s.blocks[k].offset != (handle & ((Bytes{1} << 40) - 1))) ++k;
    s.blocks[k].used = false;
    allocated_ -= s.blocks[k].size;
    if (k + 1 < s.blocks.size() && !s.blocks[k + 1].used) {
      s.blocks[k].size += s.blocks[k + 1].size;
      s.blocks.erase(s.blocks.begin() + static_cast<std::ptrdiff_t>(k) + 1);
    }
    if (k > 0 && !s.blocks[k - 1].used) {
      s.blocks[k - 1].size += s.blocks[k].size;
      s.blocks.erase(s.blocks.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  Bytes allocated() const { return allocated_; }
  Bytes reserved() const { return reserved_; }
  Bytes peak_reserved() const { return peak_reserved_; }
  Bytes peak_allocated() const { return peak_allocated_; }
  Bytes failed_bytes() const { return failed_; }
  int failures() const { return failures_; }

 private:
  struct Blk {
    Bytes offset, size;
    bool used;
  };
  struct Seg {
    Bytes size;
    bool small, live;
    std::vector<Blk> blocks;
  };
  // (segment, block index) of the smallest free block of the pool that holds `rounded`, ties
  // to the lowest segment and offset.
  std::pair<int, int> best(Bytes rounded, bool small) const {
    std::pair<int, int> out{-1, -1};
    Bytes best_size = 0;
    for (std::size_t i = 0; i < segs_.size(); ++i) {
      if (!segs_[i].live || segs_[i].small != small) continue;
      for (std::size_t k = 0; k < segs_[i].blocks.size(); ++k) {
        const Blk& b = segs_[i].blocks[k];
        if (b.used || b.size < rounded || (out.first >= 0 && b.size >= best_size)) continue;
        out = {static_cast<int>(i), static_cast<int>(k)};
        best_size = b.size;
      }
    }
    return out;
  }
  Bytes limit_;
  Bytes allocated_ = 0, reserved_ = 0, peak_reserved_ = 0, peak_allocated_ = 0, failed_ = 0;
  int failures_ = 0;
  std::vector<Seg> segs_;
};

TEST(CachingAllocator, RandomRequestsMatchANaiveModelOfTheSameRules) {
  for (const std::uint32_t seed : {1u, 2u, 3u, 4u}) {
    std::mt19937 rng(seed);
    const Bytes limit = (seed % 2 == 0 ? 200 : 64) * kMiB1;  // tight: releases and failures
    CachingAllocator a(limit);
    NaiveAllocator n(limit);
    std::vector<std::pair<int, std::int64_t>> live;
    for (int step = 0; step < 4000; ++step) {
      const auto pick = rng() % 10;
      // Sizes across both pools and every segment rule: small, 1-10 MiB, large.
      const Bytes bytes = pick < 4   ? 1 + static_cast<Bytes>(rng() % (kMiB1 + 4096))
                          : pick < 6 ? kMiB1 + static_cast<Bytes>(rng() % (9 * kMiB1))
                                     : 1 + static_cast<Bytes>(rng() % (24 * kMiB1));
      const auto action = rng() % 3;
      if (action == 0 && !live.empty()) {
        const std::size_t k = rng() % live.size();
        a.free(live[k].first);
        n.free(live[k].second);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
      } else if (action == 1) {
        a.malloc_and_free(bytes);
        const std::int64_t h = n.malloc(bytes);
        if (h >= 0) n.free(h);
      } else {
        const int h = a.malloc(bytes);
        const std::int64_t hn = n.malloc(bytes);
        ASSERT_EQ(h >= 0, hn >= 0) << "seed " << seed << " step " << step;
        if (h >= 0) live.emplace_back(h, hn);
      }
      ASSERT_EQ(a.allocated(), n.allocated()) << "seed " << seed << " step " << step;
      ASSERT_EQ(a.reserved(), n.reserved()) << "seed " << seed << " step " << step;
      ASSERT_EQ(a.peak_reserved(), n.peak_reserved());
      ASSERT_EQ(a.peak_allocated(), n.peak_allocated());
      ASSERT_EQ(a.failed_bytes(), n.failed_bytes());
      ASSERT_EQ(a.failures(), n.failures());
    }
  }
}

}  // namespace
}  // namespace zs::plan
