// The host memory of loading a model (plan/model_load.h) against what transformers 5.16 and
// DeepSpeed 0.19.6 were measured to hold (results/measurements/
// 2026-11-29-hf-model-load-host-memory.md), and how it enters a node's host peak.
#include "plan/model_load.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/plan/plan_test_util.h"

namespace zs::plan {
namespace {

constexpr std::int64_t kParams = 219'702'272;  // the measured Llama, bf16 checkpoint

TEST(ModelLoad, MatchesTheMeasuredLoads) {
  // ZeRO-2, dtype auto: the weights are views of the mmap'd file (measured +0.005x).
  const ModelLoad s2 = model_load(LoadDtype::kAuto, LoadDtype::kBf16, kParams, 2);
  EXPECT_FALSE(s2.cast);
  EXPECT_EQ(s2.per_rank_bytes, 0);
  EXPECT_EQ(s2.page_cache_bytes, kParams * 2);
  // ZeRO-2, dtype=torch.float32 on the bf16 checkpoint: params x 4 per rank (measured 2.006x of
  // params x 2).
  const ModelLoad fp32 = model_load(LoadDtype::kFp32, LoadDtype::kBf16, kParams, 2);
  EXPECT_TRUE(fp32.cast);
  EXPECT_EQ(fp32.per_rank_bytes, kParams * 4);
  // ZeRO-3: copied module by module into zero.Init's partitions, which a GPU holds.
  EXPECT_EQ(model_load(LoadDtype::kAuto, LoadDtype::kBf16, kParams, 3).per_rank_bytes, 0);
  EXPECT_EQ(model_load(LoadDtype::kFp32, LoadDtype::kBf16, kParams, 3).per_rank_bytes, 0);
}

TEST(ModelLoad, ACastBetweenTwoByteDtypesIsACastAndAnUnstatedDtypeIsFp32) {
  const ModelLoad llama2 = model_load(LoadDtype::kBf16, LoadDtype::kFp16, 1000, 1);
  EXPECT_TRUE(llama2.cast);
  EXPECT_EQ(llama2.per_rank_bytes, 2000);
  const ModelLoad gpt2 = model_load(LoadDtype::kFp32, LoadDtype::kAuto, 1000, 0);
  EXPECT_FALSE(gpt2.cast);
  EXPECT_EQ(gpt2.stored, LoadDtype::kFp32);
  EXPECT_EQ(gpt2.page_cache_bytes, 4000);
  EXPECT_EQ(model_load(LoadDtype::kBf16, LoadDtype::kAuto, 1000, 0).per_rank_bytes, 2000);
}

TEST(ModelLoad, TheHostPeakIsTheLargerOfTheLoadAndTheStep) {
  // ZeRO-2 with the optimizer offloaded: the step holds fp32 master weights and Adam's states
  // on the host (16 bytes per parameter of each rank's partition).
  const std::string offload = R"({"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": true},
      "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}})";
  PlanSetup s;
  const PlannedText step = plan_text(offload, s);
  ASSERT_GT(step.memory.host_peak_bytes, 0);
  EXPECT_FALSE(step.memory.host_peak_at_load);
  EXPECT_EQ(step.memory.host_load_bytes, 0);
  s.load_dtype = LoadDtype::kBf16;  // GPT-2's fp32 checkpoint cast to bf16: 2 bytes per param
  const PlannedText cast = plan_text(offload, s);
  ASSERT_TRUE(cast.load.has_value());
  EXPECT_EQ(cast.memory.host_load_bytes, 8 * 2 * cast.params);
  EXPECT_EQ(cast.memory.host_peak_bytes,
            std::max(cast.memory.host_load_bytes, step.memory.host_peak_bytes));
  s.load_dtype = LoadDtype::kAuto;
  const PlannedText mapped = plan_text(offload, s);
  EXPECT_EQ(mapped.memory.host_peak_bytes, step.memory.host_peak_bytes);
  EXPECT_EQ(mapped.load->page_cache_bytes, 4 * mapped.params);
}

}  // namespace
}  // namespace zs::plan
