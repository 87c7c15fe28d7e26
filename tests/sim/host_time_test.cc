// DeepSpeed's host work (plan::HostTask): where the plan places its calls, how the simulator
// prices them (sim/cost_profile.h host_call_s) and what it reports (StepTime::host).
#include <gtest/gtest.h>

#include <fstream>

#include "plan/host_ops.h"
#include "sim/cost_profile.h"
#include "sim/step_time.h"
#include "tests/sim/sim_test_util.h"

namespace zs::sim {
namespace {

using plan::HostTask;

std::string zero(int stage, int micro_batch, int accum, const std::string& extra = "") {
  return R"({"train_micro_batch_size_per_gpu": )" + std::to_string(micro_batch) +
         R"(, "gradient_accumulation_steps": )" + std::to_string(accum) +
         R"(, "bf16": {"enabled": true}, "zero_optimization": {"stage": )" + std::to_string(stage) +
         extra + "}}";
}

std::int64_t calls(const SimulationResult& r, HostTask t) {
  return r.time.host.task_calls[static_cast<int>(t)];
}

SimSetup small(int gpus = 2) {
  SimSetup s;
  s.model = "gpt2-medium";
  s.gpus_per_node = gpus;
  s.seq_len = 512;
  return s;
}

TEST(HostTime, TheEngineIsEnteredOncePerMicroStepAndStepsOnce) {
  for (int stage : {0, 1, 2, 3}) {
    const auto r = simulate_text(zero(stage, 1, 3), small());
    EXPECT_EQ(calls(r, HostTask::kEngineForward), 3) << stage;
    EXPECT_EQ(calls(r, HostTask::kEngineBackward), 3) << stage;
    EXPECT_EQ(calls(r, HostTask::kEngineStep), 1) << stage;
  }
}

TEST(HostTime, GradientHooksRunEveryMicroStepAndReduceInStageTwoAndStageOnesBoundary) {
  const auto r2 = simulate_text(zero(2, 1, 3), small());
  const std::int64_t params = static_cast<std::int64_t>(r2.built.layout.real_params().size());
  auto reduced = [](const SimulationResult& r) {
    return calls(r, HostTask::kGradReduce) + calls(r, HostTask::kGradReduceLarge);
  };
  EXPECT_EQ(calls(r2, HostTask::kGradHook), 3 * params);
  EXPECT_EQ(reduced(r2), 3 * params);
  // Stage 1 reduces at the boundary micro-step only: with overlap_comm in the hooks, without it
  // in reduce_gradients after backward, which calls the same function per parameter. Its hooks
  // run every micro-step, and from the second on autograd adds into the kept .grad.
  for (const char* extra : {"", R"(, "overlap_comm": true)"}) {
    const auto r1 = simulate_text(zero(1, 1, 3, extra), small());
    EXPECT_EQ(calls(r1, HostTask::kGradHook), 3 * params) << extra;
    EXPECT_EQ(reduced(r1), params) << extra;
    EXPECT_EQ(calls(r1, HostTask::kAccumulateGrad), 2 * params) << extra;
  }
  EXPECT_EQ(calls(r2, HostTask::kAccumulateGrad), 0);
  EXPECT_EQ(calls(r2, HostTask::kModuleVisit), 0);
}

TEST(HostTime, StageThreeRunsHooksOnEveryModuleForwardAndBackward) {
  const auto r = simulate_text(zero(3, 1, 2), small());
  const plan::ModelGraph& g = *r.built.layout.graph;
  EXPECT_EQ(calls(r, HostTask::kModuleVisit),
            2 * static_cast<std::int64_t>(g.modules.forward.size()));
  EXPECT_EQ(calls(r, HostTask::kModuleVisitBackward),
            2 * static_cast<std::int64_t>(g.modules.backward.size()));
  EXPECT_EQ(calls(r, HostTask::kStage3GradHook),
            2 * static_cast<std::int64_t>(r.built.layout.real_params().size()));
  EXPECT_GT(calls(r, HostTask::kGather), 0);
  EXPECT_GE(calls(r, HostTask::kGatherParam), calls(r, HostTask::kGather));
}

TEST(HostTime, TheHostPartsAddUpAndEveryOpIsInASegment) {
  const auto r = simulate_text(zero(3, 2, 3), small());
  const HostTime& h = r.time.host;
  double sum = h.launch_s + h.sync_s;
  for (double s : h.task_s) sum += s;
  EXPECT_NEAR(sum, h.busy_s, 1e-12);
  int covered = 0;
  for (const plan::Segment& s : r.built.plan.segments) covered += s.end_op - s.first_op;
  EXPECT_EQ(covered, static_cast<int>(r.built.plan.ops.size()));
  EXPECT_GT(h.model_calls, 1000);
}

// BLOOM-560M-like: a 24-layer model at micro-batch 1 on two GPUs, where ZeRO-3's hooks on every
// module make the step host-bound (LianjiaTech/BELLE#402 measured stage 3 at 3.3x stage 1).
TEST(HostTime, SmallBatchStageThreeIsHostBoundAndSlowestAndSaysWhy) {
  const auto s1 = simulate_text(zero(1, 1, 1), small());
  const auto s2 = simulate_text(zero(2, 1, 1), small());
  const auto s3 = simulate_text(zero(3, 1, 1), small());
  EXPECT_GT(s3.time.step_s, 2 * s1.time.step_s);
  EXPECT_GT(s3.time.step_s, s2.time.step_s);
  EXPECT_GT(s3.time.host.gpu_idle_s, 0.4 * s3.time.step_s);
  EXPECT_NE(s3.time.bottleneck.find("zero3.module_hooks"), std::string::npos) << s3.time.bottleneck;
  // The GPU's share of the step is not called compute.
  EXPECT_LT(s3.time.breakdown.compute_s, 0.5 * s3.time.step_s);
}

// The host's speed scales all it does: DeepSpeed's Python and the model's ATen calls alike.
TEST(HostTime, ASlowerHostScalesAllItsWork) {
  const auto path = ::testing::TempDir() + "zs_host_slow.json";
  std::ofstream(path) << zero(3, 1, 1);
  SimulationRequest r;
  r.config_path = path;
  r.model = *models::resolve_model("gpt2-medium");
  r.cluster = *configs::make_cluster("a100-80gb", 1, 2);
  r.seq_len = 512;
  r.profile = default_cost_profile(r.cluster);
  r.profile->host_python_slowdown = 1;
  const auto base = simulate(r);
  r.profile->host_python_slowdown = 2;
  const auto slow = simulate(r);
  ASSERT_TRUE(base.ok() && slow.ok());
  for (int k = 0; k < plan::kHostTaskCount; ++k) {
    EXPECT_NEAR(slow->time.host.task_s[k], 2 * base->time.host.task_s[k], 1e-12);
  }
  EXPECT_NEAR(slow->time.host.launch_s, 2 * base->time.host.launch_s, 1e-12);
  EXPECT_GT(slow->time.step_s, 1.5 * base->time.step_s);
}

TEST(HostTime, AProfileSetsCallCostsByTaskNameAndRejectsUnknownOnes) {
  auto cluster = configs::make_cluster("h100", 1, 8);
  const auto path = ::testing::TempDir() + "zs_host_profile.json";
  std::ofstream(path)
      << R"({"host_call_s": {"zero3.module_hooks": 1e-4}, "host_python_slowdown": 1.5})";
  auto p = load_cost_profile(path, default_cost_profile(*cluster));
  ASSERT_TRUE(p.ok()) << p.status().message();
  // The call's Python from the profile, its ATen calls at the profile's rates, times 1.5.
  const plan::TaskDispatch d = plan::task_dispatch(HostTask::kModuleVisit);
  EXPECT_DOUBLE_EQ(host_call_seconds(*p, HostTask::kModuleVisit),
                   (1e-4 + d.kernels * p->kernel_launch_s + d.other * p->dispatch_s) * 1.5);
  std::ofstream(path) << R"({"host_call_s": {"zero3.module_hook": 1e-4}})";
  auto bad = load_cost_profile(path, default_cost_profile(*cluster));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("host_call_s[\"zero3.module_hook\"]: unknown host task"),
            std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("zero3.module_hooks"), std::string::npos);
  std::ofstream(path) << R"({"host_call_s": {"engine.step": -1}})";
  bad = load_cost_profile(path, default_cost_profile(*cluster));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("seconds from 0 to 10"), std::string::npos);
}

}  // namespace
}  // namespace zs::sim
