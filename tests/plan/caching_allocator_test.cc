// PyTorch's caching allocator as plan/caching_allocator.h models it: each rule of
// c10/cuda/CUDACachingAllocator.cpp it follows, one test each, and the memory replay's use of it.
#include "plan/caching_allocator.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/plan/sim_test_util.h"

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
  SimSetup s;
  s.model = "gpt2-large";
  s.gpu = "v100-32gb-dgx2";
  s.gpus_per_node = 16;
  s.flash = false;
  const auto fits = simulate_text(config, s);
  EXPECT_FALSE(fits.memory.gpu_oom);
  EXPECT_GT(fits.memory.gpu_reserved_peak_bytes, fits.memory.gpu_peak_bytes);
  EXPECT_LT(fits.memory.gpu_reserved_peak_bytes, fits.memory.gpu_peak_bytes + 4 * kGiB1);
  EXPECT_EQ(fits.memory.gpu_failed_request_bytes, 0);
  // Micro-batch 5: the tensors alone (31.5 GiB) are under the 31.75 GiB, the reserve is not.
  const std::string bigger =
      R"({"train_micro_batch_size_per_gpu": 5, "fp16": {"enabled": true},
          "zero_optimization": {"stage": 1}})";
  const auto edge = simulate_text(bigger, s);
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
    sim::SimulationRequest r;
    r.config_path = path;
    r.model = *models::resolve_model("gpt2-large");
    r.cluster = *configs::make_cluster("v100-32gb-dgx2", 1, 16);
    r.seq_len = 1024;
    r.flash_attention = false;
    r.simulate_time = false;
    const auto full = sim::simulate(r);
    r.op_names = false;
    const auto unnamed = sim::simulate(r);  // names alone do not gate the allocator
    r.allocator_near_capacity_only = true;
    const auto sweep = sim::simulate(r);
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

}  // namespace
}  // namespace zs::plan
