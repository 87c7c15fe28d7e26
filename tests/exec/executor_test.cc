// The executor trains through a real Plan on the CPU backend: what a user checks first.
#include "exec/executor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "exec/device.h"
#include "exec/model_runner.h"
#include "kernels/cpu/grad_norm.h"
#include "models/hf_config.h"
#include "tests/exec/exec_test_plans.h"

namespace zs::exec {
namespace {

using testing::tiny_gpt_plan;
using testing::training_text;

std::string config(int stage, const std::string& precision = R"("bf16": {"enabled": true})") {
  return R"({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 2, )" + precision +
         R"(, "gradient_clipping": 1.0, "optimizer": {"type": "AdamW", "params": {"lr": 2e-3,
         "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.0}}, "zero_optimization":
         {"stage": )" +
         std::to_string(stage) + R"(, "stage3_param_persistence_threshold": 0,
         "sub_group_size": 5000}})";
}

// `steps` steps of training with the plan of `cfg` on one GPU.
ExecResult train(const std::string& cfg, int steps, bool checkpointing = false,
                 int inject_overflow_step = -1) {
  const plan::PlannedText planned = tiny_gpt_plan(cfg, 1, checkpointing);
  ExecOptions o;
  o.steps = steps;
  o.seed = 7;
  o.text = training_text();
  o.inject_overflow_step = inject_overflow_step;
  auto out = execute(planned.built, planned.config.config, o);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(out).value() : ExecResult{};
}

TEST(Executor, LossFallsOnASmallText) {
  const ExecResult r = train(config(2), 40);
  ASSERT_EQ(r.steps.size(), 40u);
  EXPECT_NEAR(r.steps.front().loss, std::log(256.0), 0.3);  // uniform over bytes at the start
  double late = 0;
  for (int i = 35; i < 40; ++i) late += r.steps[static_cast<std::size_t>(i)].loss / 5;
  EXPECT_LT(late, 0.6 * r.steps.front().loss);
  EXPECT_EQ(r.skipped_steps, 0);
}

TEST(Executor, EveryZeroStageTrainsTheSameOnOneRank) {
  // On one rank ZeRO partitions nothing: the stages differ in their schedules, not in values.
  const ExecResult s0 = train(config(0), 4);
  for (int stage : {1, 2, 3}) {
    const ExecResult s = train(config(stage), 4);
    ASSERT_EQ(s.steps.size(), s0.steps.size());
    for (std::size_t i = 0; i < s.steps.size(); ++i) {
      EXPECT_EQ(s.steps[i].loss, s0.steps[i].loss) << "stage " << stage << " step " << i;
    }
  }
}

TEST(Executor, CheckpointingRecomputesTheSameValues) {
  const ExecResult plain = train(config(3), 3);
  const ExecResult ckpt = train(config(3), 3, true);
  for (std::size_t i = 0; i < plain.steps.size(); ++i) {
    EXPECT_EQ(ckpt.steps[i].loss, plain.steps[i].loss);
  }
}

TEST(Executor, Fp16OverflowSkipsTheStepAndHalvesTheScale) {
  // hysteresis 1: the first overflow halves the scale (loss_scaler.py update_scale).
  const std::string fp16 =
      R"("fp16": {"enabled": true, "initial_scale_power": 10, "hysteresis": 1})";
  const ExecResult r = train(config(2, fp16), 5, false, 2);
  ASSERT_EQ(r.steps.size(), 5u);
  EXPECT_FALSE(r.steps[1].skipped);
  EXPECT_TRUE(r.steps[2].skipped);
  EXPECT_EQ(r.steps[2].loss_scale, 1024.0);
  EXPECT_EQ(r.steps[3].loss_scale, 512.0);
  EXPECT_EQ(r.skipped_steps, 1);
  // The skipped step changed no weight: step 3 sees what step 2 saw, on its own batch; the
  // schedule did not advance either.
  EXPECT_EQ(r.steps[3].lr, r.steps[2].lr);
  // DeepSpeed's default hysteresis 2 absorbs the first overflow without halving.
  const ExecResult h2 =
      train(config(2, R"("fp16": {"enabled": true, "initial_scale_power": 10})"), 4, false, 1);
  EXPECT_TRUE(h2.steps[1].skipped);
  EXPECT_EQ(h2.steps[2].loss_scale, 1024.0);
}

// Gradients with inf/NaN without a loss scaler: what DeepSpeed 0.19.6 does for each precision
// and stage (exec/plan_interpreter.cc NonFinitePolicy), never an abort.
const std::string kWarmup =
    R"(, "scheduler": {"type": "WarmupLR", "params": {"warmup_min_lr": 0,
        "warmup_max_lr": 2e-3, "warmup_num_steps": 10}})";

std::string with_warmup(int stage, const std::string& precision) {
  std::string c = config(stage, precision);
  return c.substr(0, c.size() - 1) + kWarmup + "}";
}

TEST(Executor, Bf16Zero12SkipsAStepWithInfOrNanGradients) {
  for (int stage : {1, 2}) {
    const ExecResult r = train(with_warmup(stage, R"("bf16": {"enabled": true})"), 3, false, 1);
    ASSERT_EQ(r.steps.size(), 3u);
    EXPECT_TRUE(r.steps[1].skipped) << stage;
    EXPECT_TRUE(r.steps[1].non_finite_grads) << stage;
    EXPECT_TRUE(std::isinf(r.steps[1].grad_norm)) << stage;
    EXPECT_EQ(r.steps[2].lr, r.steps[1].lr) << stage;      // the schedule held
    EXPECT_TRUE(std::isfinite(r.steps[2].loss)) << stage;  // no weight was touched
    EXPECT_EQ(r.skipped_steps, 1);
  }
  // bf16.check_grad_overflow off: the update is applied, as at stage 3.
  const ExecResult off = train(
      with_warmup(2, R"("bf16": {"enabled": true, "check_grad_overflow": false})"), 3, false, 1);
  EXPECT_FALSE(off.steps[1].skipped);
  EXPECT_TRUE(off.steps[1].non_finite_grads);
  EXPECT_TRUE(std::isnan(off.steps[2].loss));
}

TEST(Executor, Bf16Zero3AndFp32ApplyInfOrNanGradientsAsDeepSpeedDoes) {
  const std::string fp32 = R"("bf16": {"enabled": false})";
  for (const auto& [stage, precision] :
       {std::pair{3, std::string(R"("bf16": {"enabled": true})")}, std::pair{3, fp32},
        std::pair{2, fp32}, std::pair{0, fp32}}) {
    const ExecResult r = train(with_warmup(stage, precision), 3, false, 1);
    ASSERT_EQ(r.steps.size(), 3u);
    EXPECT_FALSE(r.steps[1].skipped) << stage << precision;
    EXPECT_TRUE(r.steps[1].non_finite_grads) << stage << precision;
    EXPECT_GT(r.steps[2].lr, r.steps[1].lr) << stage << precision;   // the schedule moved on
    EXPECT_TRUE(std::isnan(r.steps[2].loss)) << stage << precision;  // NaN weights
    EXPECT_EQ(r.skipped_steps, 0);
  }
}

TEST(Executor, Bf16Stage0AppliesTheUpdateButHoldsTheSchedule) {
  // FP16_Optimizer with bf16 applies it; the engine sees optimizer.overflow and holds the LR.
  const ExecResult r = train(with_warmup(0, R"("bf16": {"enabled": true})"), 3, false, 1);
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_FALSE(r.steps[1].skipped);
  EXPECT_TRUE(r.steps[1].non_finite_grads);
  EXPECT_EQ(r.steps[2].lr, r.steps[1].lr);
  EXPECT_TRUE(std::isnan(r.steps[2].loss));
}

TEST(Executor, TorchClipDivisorOfANonFiniteNorm) {
  EXPECT_TRUE(std::isinf(kernels::cpu::torch_clip_divisor(INFINITY, 1.0)));
  EXPECT_TRUE(std::isnan(kernels::cpu::torch_clip_divisor(NAN, 1.0)));
  EXPECT_DOUBLE_EQ(kernels::cpu::torch_clip_divisor(4.0, 1.0),
                   kernels::cpu::combined_scale(4.0, 1.0, 1.0));
  float g[2] = {1.0f, INFINITY};
  kernels::cpu::scale_by_inverse(g, 2, INFINITY);  // coefficient 0, as torch's mul_(0)
  EXPECT_EQ(g[0], 0.0f);
  EXPECT_TRUE(std::isnan(g[1]));
}

TEST(Executor, AnEmptyTextIsAnErrorNotRandomTokens) {
  const plan::PlannedText planned = tiny_gpt_plan(config(2));
  ExecOptions o;
  o.steps = 1;
  o.text = std::string();
  auto out = execute(planned.built, planned.config.config, o);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("the training text has 0 bytes"), std::string::npos)
      << out.status().message();
}

TEST(Executor, EachStepIsReportedAsItEnds) {
  const plan::PlannedText planned = tiny_gpt_plan(config(2));
  ExecOptions o;
  o.steps = 3;
  o.text = training_text();
  std::vector<int> seen;
  o.on_step = [&](const StepStats& s) { seen.push_back(s.step); };
  auto out = execute(planned.built, planned.config.config, o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
}

TEST(Executor, MoreHostMemoryThanAvailableIsRefusedBeforeAllocating) {
  // Ten million sequences of tiny-gpt: hundreds of GB of fp32 activations.
  const std::string huge = R"({"train_micro_batch_size_per_gpu": 10000000,
      "bf16": {"enabled": true}, "zero_optimization": {"stage": 2}})";
  const plan::PlannedText planned = tiny_gpt_plan(huge);
  ExecOptions o;
  o.steps = 1;
  auto out = execute(planned.built, planned.config.config, o);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("the CPU backend needs about"), std::string::npos)
      << out.status().message();
  EXPECT_NE(out.status().message().find("is available"), std::string::npos);
}

TEST(Executor, TheTimelineNamesEveryOpOfThePlanOnce) {
  const ExecResult r = train(config(3), 1);
  ASSERT_FALSE(r.timeline.empty());
  int prev = -1, rep = -1;
  for (const OpTiming& t : r.timeline) {
    EXPECT_LE(t.start_ns, t.end_ns);
    // Ops in issue order; a repeated segment restarts its ids with the next repetition.
    if (t.repetition == rep) {
      EXPECT_GT(t.op, prev);
    }
    prev = t.op;
    rep = t.repetition;
  }
}

TEST(Executor, APlanForSeveralRanksNeedsAProcessPerRank) {
  const plan::PlannedText planned = tiny_gpt_plan(config(2), 2);
  ASSERT_EQ(planned.built.plan.world_size, 2);
  for (Backend backend : {Backend::kCpu, Backend::kCuda}) {
    ExecOptions o;
    o.backend = backend;
    auto out = execute(planned.built, planned.config.config, o);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("the plan is for 2 ranks and 1 process runs it: start "
                                          "one process per rank (mpirun -np 2"),
              std::string::npos)
        << out.status().message();
  }
}

// Runs everywhere: with a CUDA device the CUDA backend trains (tests/exec_cuda/ checks how
// well); without one, or in a build without CUDA, it says so, as `run --backend cuda` does.
TEST(Executor, CudaBackendTrainsOrSaysWhyNot) {
  const plan::PlannedText planned = tiny_gpt_plan(config(2));
  ExecOptions o;
  o.steps = 1;
  o.text = training_text();
  o.backend = Backend::kCuda;
  auto out = execute(planned.built, planned.config.config, o);
  const Status cuda = cuda_backend_status();
  if (cuda.is_ok()) {
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(out->device_memory.has_value());
    return;
  }
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(), cuda.message());
  EXPECT_NE(cuda.message().find("--backend cuda"), std::string::npos);
  EXPECT_NE(cuda.message().find("use --backend cpu"), std::string::npos);
}

}  // namespace
}  // namespace zs::exec
