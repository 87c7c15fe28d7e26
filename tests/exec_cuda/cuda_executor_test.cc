// The executor's CUDA backend against its CPU backend, through real Plans of tiny-gpt.
// Labelled "gpu": every test skips itself without a CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "exec/executor.h"
#include "exec/model_runner.h"
#include "models/hf_config.h"
#include "tests/exec/exec_test_plans.h"
#include "tests/kernels_cuda/cuda_test_util.h"

namespace zs::exec {
namespace {

using testing::tiny_gpt_plan;
using testing::training_text;

std::string config(int stage, const std::string& precision, const std::string& zero_extra = "") {
  return R"({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 2, )" + precision +
         R"(, "gradient_clipping": 1.0, "optimizer": {"type": "AdamW", "params": {"lr": 2e-3,
         "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.01}}, "zero_optimization":
         {"stage": )" +
         std::to_string(stage) + R"(, "stage3_param_persistence_threshold": 0,
         "sub_group_size": 5000)" +
         zero_extra + "}}";
}
const char* kOffload = R"(, "offload_optimizer": {"device": "cpu", "pin_memory": true})";
const char* kBf16 = R"("bf16": {"enabled": true})";
const char* kFp32 = R"("bf16": {"enabled": false})";
const char* kFp16 = R"("fp16": {"enabled": true, "initial_scale_power": 10, "hysteresis": 1})";

ExecResult train(const std::string& cfg, Backend backend, int steps, bool checkpointing = false,
                 int inject_overflow_step = -1) {
  const plan::PlannedText planned = tiny_gpt_plan(cfg, 1, checkpointing);
  ExecOptions o;
  o.steps = steps;
  o.seed = 7;
  o.text = training_text();
  o.inject_overflow_step = inject_overflow_step;
  o.backend = backend;
  auto out = execute(planned.built, planned.config.config, o);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(out).value() : ExecResult{};
}

class CudaExecutor : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string reason = kernels::cuda::test_util::no_device_reason();
    if (!reason.empty()) GTEST_SKIP() << reason;
  }
};

// Same batches, same initial weights, same optimizer walk: step losses agree to the kernels'
// rounding. fp32: 1e-3 relative over 5 steps (AdamW's first steps move each weight by about
// lr·sign(g), so a gradient element that rounds to the other sign moves its weight by 2·lr;
// such elements are the tiny ones, which the loss barely depends on). bf16: 2e-2 relative
// (activations rounded to 8 bits on the device, fp32 on the CPU).
TEST_F(CudaExecutor, StepLossesMatchTheCpuBackend) {
  const std::pair<const char*, double> cases[] = {{kFp32, 1e-3}, {kBf16, 2e-2}};
  for (const auto& [precision, rel] : cases) {
    const ExecResult cpu = train(config(2, precision), Backend::kCpu, 5);
    const ExecResult gpu = train(config(2, precision), Backend::kCuda, 5);
    ASSERT_EQ(gpu.steps.size(), cpu.steps.size());
    for (std::size_t i = 0; i < cpu.steps.size(); ++i) {
      EXPECT_NEAR(gpu.steps[i].loss, cpu.steps[i].loss, rel * cpu.steps[i].loss)
          << precision << " step " << i;
      EXPECT_NEAR(gpu.steps[i].grad_norm, cpu.steps[i].grad_norm, 10 * rel * cpu.steps[i].grad_norm)
          << precision << " step " << i;
      EXPECT_EQ(gpu.steps[i].lr, cpu.steps[i].lr);
    }
    // The CPU backend accounts the Plan's device buffers; the CUDA one measures its allocator.
    EXPECT_TRUE(cpu.device_memory.has_value());
    ASSERT_TRUE(gpu.device_memory.has_value());
  }
}

TEST_F(CudaExecutor, EveryZeroStageAndCheckpointingTrainTheSame) {
  // On one rank ZeRO partitions nothing, and recomputation repeats the same deterministic
  // kernels: the losses are bitwise those of stage 0.
  const ExecResult s0 = train(config(0, kBf16), Backend::kCuda, 3);
  for (int stage : {1, 2, 3}) {
    const ExecResult s = train(config(stage, kBf16), Backend::kCuda, 3, stage == 3);
    ASSERT_EQ(s.steps.size(), s0.steps.size());
    for (std::size_t i = 0; i < s.steps.size(); ++i) {
      EXPECT_EQ(s.steps[i].loss, s0.steps[i].loss) << "stage " << stage << " step " << i;
    }
  }
}

// Optimizer offload on one GPU (stages 1-3): the gradients go down to pinned host memory, the
// norm, clipping and CPU Adam run on the host, the update comes back up. It trains as the same
// config without offload does, to the rounding of CPU against GPU AdamW (fp32 on both; 1e-3
// relative over 3 steps, as the fp32 CPU/GPU comparison above), skips the same fp16 step, and
// holds no fp32 master weights or Adam states on the device: 12 bytes per parameter less, up to
// one byte per parameter of staging (on an H100, 2026-11-26: 12 bytes per parameter less 37,888
// bytes on this model, and less 3,584 bytes on GPT-2 124M).
TEST_F(CudaExecutor, OptimizerOffloadTrainsAsWithoutIt) {
  const plan::PlannedText planned = tiny_gpt_plan(config(2, kBf16), 1, false);
  const plan::Layout& l = planned.built.layout;
  const std::int64_t params =
      ModelRunner::create(l.graph->spec, l.graph->workload, 7)->num_param_elements();
  for (const char* precision : {kBf16, kFp16}) {
    const int overflow = precision == kFp16 ? 1 : -1;
    for (int stage : {1, 2, 3}) {
      SCOPED_TRACE(std::string(precision) + " stage " + std::to_string(stage));
      const ExecResult plain = train(config(stage, precision), Backend::kCuda, 3, false, overflow);
      const ExecResult off =
          train(config(stage, precision, kOffload), Backend::kCuda, 3, false, overflow);
      ASSERT_EQ(off.steps.size(), plain.steps.size());
      for (std::size_t i = 0; i < plain.steps.size(); ++i) {
        EXPECT_EQ(off.steps[i].skipped, plain.steps[i].skipped) << "step " << i;
        EXPECT_NEAR(off.steps[i].loss, plain.steps[i].loss, 1e-3 * plain.steps[i].loss)
            << "step " << i;
        if (plain.steps[i].skipped) continue;
        EXPECT_NEAR(off.steps[i].grad_norm, plain.steps[i].grad_norm,
                    1e-3 * plain.steps[i].grad_norm)
            << "step " << i;
      }
      ASSERT_TRUE(off.device_memory.has_value() && plain.device_memory.has_value());
      EXPECT_LE(off.device_memory->peak_allocated_bytes,
                plain.device_memory->peak_allocated_bytes - 11 * params);
    }
  }
}

TEST_F(CudaExecutor, Fp16OverflowSkipsTheStepAndHalvesTheScale) {
  // hysteresis 1: the first overflow halves the scale (loss_scaler.py update_scale).
  const ExecResult r = train(config(2, kFp16), Backend::kCuda, 5, false, 2);
  ASSERT_EQ(r.steps.size(), 5u);
  EXPECT_FALSE(r.steps[1].skipped);
  EXPECT_TRUE(r.steps[2].skipped);
  EXPECT_EQ(r.steps[2].loss_scale, 1024.0);
  EXPECT_EQ(r.steps[3].loss_scale, 512.0);
  EXPECT_EQ(r.skipped_steps, 1);
  EXPECT_EQ(r.final_loss_scale, 512.0);
  EXPECT_EQ(r.steps[3].lr, r.steps[2].lr);  // the schedule did not advance
  // The CPU backend skips the same step, and the losses agree to fp16 rounding (11 bits).
  const ExecResult cpu = train(config(2, kFp16), Backend::kCpu, 5, false, 2);
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    EXPECT_EQ(r.steps[i].skipped, cpu.steps[i].skipped) << i;
    EXPECT_NEAR(r.steps[i].loss, cpu.steps[i].loss, 1e-2 * cpu.steps[i].loss) << i;
  }
}

// The allocator's peaks: at least the fp32 master weights and both Adam states, the 16-bit
// weights and the fp32 gradients (4 + 4 + 4 + 2 + 4 bytes per parameter), and never more
// allocated than reserved. Checkpointing frees each layer's activations, so its peak is lower.
TEST_F(CudaExecutor, ReportsTheAllocatorPeaks) {
  const plan::PlannedText planned = tiny_gpt_plan(config(2, kBf16));
  const plan::Layout& l = planned.built.layout;
  const std::int64_t params =
      ModelRunner::create(l.graph->spec, l.graph->workload, 7)->num_param_elements();
  const ExecResult plain = train(config(2, kBf16), Backend::kCuda, 2);
  ASSERT_TRUE(plain.device_memory.has_value());
  const DeviceMemoryStats& m = *plain.device_memory;
  EXPECT_GE(m.peak_allocated_bytes, 18 * params);
  EXPECT_LE(m.peak_allocated_bytes, m.peak_reserved_bytes);
  EXPECT_GT(m.num_raw_allocs, 0);
  const ExecResult ckpt = train(config(2, kBf16), Backend::kCuda, 2, true);
  ASSERT_TRUE(ckpt.device_memory.has_value());
  EXPECT_LE(ckpt.device_memory->peak_allocated_bytes, m.peak_allocated_bytes);
}

TEST_F(CudaExecutor, TheTimelineNamesEveryOpOfThePlanOnce) {
  const plan::PlannedText planned = tiny_gpt_plan(config(3, kBf16));
  const ExecResult r = train(config(3, kBf16), Backend::kCuda, 2);
  std::size_t runs = 0;
  for (const plan::Segment& seg : planned.built.plan.segments) {
    runs += static_cast<std::size_t>((seg.end_op - seg.first_op) * seg.repeat);
  }
  ASSERT_EQ(r.timeline.size(), runs);
  std::set<std::pair<int, int>> seen;
  for (const OpTiming& t : r.timeline) {
    EXPECT_GE(t.op, 0);
    EXPECT_LT(t.op, static_cast<int>(planned.built.plan.ops.size()));
    EXPECT_GE(t.start_ns, 0);
    EXPECT_LE(t.start_ns, t.end_ns);
    EXPECT_TRUE(seen.insert({t.op, t.repetition}).second) << t.op;
  }
  EXPECT_GT(r.steps.back().seconds, 0.0);
}

}  // namespace
}  // namespace zs::exec
