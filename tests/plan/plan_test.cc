// The Plan as a data structure: validation, segments, and the text form.
#include "plan/plan.h"

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "tests/plan/plan_test_util.h"

namespace zs::plan {
namespace {

Plan tiny() {
  Plan p;
  const int s = p.add_stream("compute", StreamKind::kCompute);
  const int b = p.add_buffer(
      Buffer{p.add_name({"act"}), 100, Device::kGpu, Category::kActivations, 0, false});
  p.add_buffer(Buffer{p.add_name({"params"}), 50, Device::kGpu, Category::kParams, 50, true});
  Op fwd;
  fwd.name = p.add_name({"fwd"});
  fwd.stream = s;
  p.buffers[b].alloc_op = p.add_op(fwd, {});
  Op bwd;
  bwd.name = p.add_name({"bwd"});
  bwd.stream = s;
  bwd.transient_bytes = 30;
  const int deps[] = {0};
  p.buffers[b].free_op = p.add_op(bwd, deps);
  p.segments.push_back(Segment{"micro_step.0", 0, 2, 1});
  return p;
}

TEST(Plan, ValidatesAndReplays) {
  const Plan p = tiny();
  ASSERT_TRUE(validate(p).is_ok()) << validate(p).message();
  MemoryOptions o;
  o.cuda_context_bytes = 0;
  o.nccl_workspace_bytes = 0;
  o.gpu_capacity_bytes = 170;
  const MemoryReport r = replay_memory(p, o);
  EXPECT_EQ(r.gpu_peak_bytes, 180);  // params 50 + act 100 + working 30
  EXPECT_EQ(r.peak_op_name, "bwd");
  EXPECT_TRUE(r.gpu_oom);
  EXPECT_EQ(r.gpu_headroom_bytes, -10);
  EXPECT_EQ(r.model_states_bytes, 50);
  EXPECT_EQ(r.gpu_at_peak[Category::kActivations], 130);
}

// A persistent buffer with a gap (stage 3's persistent parameters around the optimizer step) is
// absent from the memory between its free_op and its alloc_op, and only there.
TEST(Plan, APersistentBufferIsAbsentInItsGap) {
  Plan p;
  const int s = p.add_stream("compute", StreamKind::kCompute);
  const int params =
      p.add_buffer(Buffer{p.add_name({"params"}), 50, Device::kGpu, Category::kParams, 50, true});
  for (const char* name : {"fwd", "step", "post"}) {
    Op op;
    op.name = p.add_name({name});
    op.stream = s;
    op.transient_bytes = std::string_view(name) == "step" ? 200 : 10;
    p.add_op(op, {});
  }
  p.segments.push_back(Segment{"step", 0, 3, 1});
  p.buffers[params].free_op = 0;
  p.buffers[params].alloc_op = 2;
  ASSERT_TRUE(validate(p).is_ok()) << validate(p).message();
  MemoryOptions o;
  o.cuda_context_bytes = 0;
  o.nccl_workspace_bytes = 0;
  const MemoryReport r = replay_memory(p, o);
  EXPECT_EQ(r.gpu_peak_bytes, 200);  // the step's 200 without the 50 it released
  EXPECT_EQ(r.peak_op_name, "step");
  EXPECT_EQ(r.gpu_at_peak[Category::kParams], 0);
  EXPECT_NE(to_text(p).find("params 50 gpu params persistent absent 1-1"), std::string::npos)
      << to_text(p);
  p.buffers[params].alloc_op = 0;  // no gap: freed and allocated by the same op
  EXPECT_NE(validate(p).message().find("outside a gap"), std::string::npos);
}

TEST(Plan, RejectsMalformedPlans) {
  Plan p = tiny();
  p.buffers[0].free_op = -1;
  EXPECT_NE(validate(p).message().find("never freed"), std::string::npos);
  p = tiny();
  p.buffers[0].free_op = 0;
  p.buffers[0].alloc_op = 1;
  EXPECT_NE(validate(p).message().find("freed before it is allocated"), std::string::npos);
  p = tiny();
  p.ops[0].deps = p.ops[1].deps;
  EXPECT_NE(validate(p).message().find("depends on op 0"), std::string::npos);
  p = tiny();
  p.buffers[1].free_op = 1;
  EXPECT_NE(validate(p).message().find("persistent"), std::string::npos);
  p = tiny();
  p.ops[1].stream = 7;
  EXPECT_NE(validate(p).message().find("unknown stream"), std::string::npos);
  p = tiny();
  p.segments[0].repeat = 3;
  p.segments[0].end_op = 1;
  p.segments.push_back(Segment{"rest", 1, 2, 1});
  EXPECT_NE(validate(p).message().find("does not free"), std::string::npos);
}

// The step's decisions (plan.h StepRole): one op each, in DeepSpeed's order.
TEST(Plan, RejectsStepRolesOutOfPlace) {
  Plan p = tiny();
  p.ops[0].step_role = StepRole::kGradNorm;
  p.ops[1].step_role = StepRole::kGradNorm;
  EXPECT_NE(validate(p).message().find("second grad_norm"), std::string::npos);
  p = tiny();
  p.ops[1].skipped_on_overflow = true;
  EXPECT_NE(validate(p).message().find("before the overflow decision"), std::string::npos);
  p.ops[1].step_role = StepRole::kOverflowDecision;  // after its own op: still too late
  EXPECT_NE(validate(p).message().find("before the overflow decision"), std::string::npos);
  p.ops[0].step_role = StepRole::kOverflowDecision;
  p.ops[1].step_role = StepRole::kNone;
  EXPECT_TRUE(validate(p).is_ok()) << validate(p).message();
  p = tiny();
  p.ops[1].work = OptimizerWork{false, 10, 280};
  EXPECT_NE(validate(p).message().find("before the unscale-and-clip"), std::string::npos);
  p.ops[1].step_role = StepRole::kUnscaleClip;
  EXPECT_TRUE(validate(p).is_ok()) << validate(p).message();
  p.ops[0].step_role = StepRole::kUnscaleClip;
  p.ops[1].step_role = StepRole::kGradNorm;
  EXPECT_NE(validate(p).message().find("before the overflow decision or the norm"),
            std::string::npos);
}

// Every built step names its unscale-and-clip; fp16 names its overflow decision; a step that
// all-reduces or syncs the norm names where the norm is known.
TEST(Plan, EveryStepNamesItsDecisions) {
  for (int stage = 0; stage <= 3; ++stage) {
    for (const char* precision : {R"("fp16": {"enabled": true})", R"("bf16": {"enabled": true})",
                                  R"("fp16": {"enabled": false})"}) {
      for (const char* extra : {"", R"(, "offload_optimizer": {"device": "cpu"})"}) {
        if (stage == 0 && !std::string(extra).empty()) continue;  // offload needs ZeRO
        const std::string cfg = R"({"train_micro_batch_size_per_gpu": 2, )" +
                                std::string(precision) +
                                R"(, "gradient_clipping": 1.0, "zero_optimization": {"stage": )" +
                                std::to_string(stage) + extra + "}}";
        PlanSetup s;
        s.model = "tiny-gpt";
        s.seq_len = 64;
        s.gpus_per_node = 2;
        const auto sim = plan_text(cfg, s);
        const Plan& p = sim.built.plan;
        std::array<int, kStepRoleCount> count{};
        for (const Op& op : p.ops) ++count[static_cast<std::size_t>(op.step_role)];
        SCOPED_TRACE(cfg);
        EXPECT_EQ(count[static_cast<std::size_t>(StepRole::kUnscaleClip)], 1);
        EXPECT_EQ(count[static_cast<std::size_t>(StepRole::kGradNorm)], 1);
        // fp16 always; bf16 in FP16_Optimizer (stage 0) and with ZeRO 1/2's
        // bf16.check_grad_overflow (on by default); stage 3 checks fp16 only.
        const std::string prec = precision;
        const bool fp16 =
            prec.find("fp16") != std::string::npos && prec.find("true") != std::string::npos;
        const bool bf16 = prec.find("bf16") != std::string::npos;
        EXPECT_EQ(count[static_cast<std::size_t>(StepRole::kOverflowDecision)],
                  fp16 || (bf16 && stage < 3) ? 1 : 0);
      }
    }
  }
}

// Every stage and option combination builds a valid plan, and identical inputs give identical
// plans.
TEST(Plan, EveryStageBuildsAValidDeterministicPlan) {
  const char* extras[] = {
      "", R"(, "offload_optimizer": {"device": "cpu"})",
      R"(, "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "cpu"})",
      R"(, "overlap_comm": false, "contiguous_gradients": false)"};
  for (int stage = 0; stage <= 3; ++stage) {
    for (const char* extra : extras) {
      for (int accum : {1, 2, 5}) {
        for (bool ckpt : {false, true}) {
          const std::string cfg =
              R"({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": )" +
              std::to_string(accum) +
              R"(, "bf16": {"enabled": true}, "zero_optimization": {"stage": )" +
              std::to_string(stage) + extra + "}}";
          PlanSetup s;
          s.model = "tiny-gpt";
          s.seq_len = 64;
          s.checkpointing = ckpt;
          const auto a = plan_text(cfg, s);
          const auto b = plan_text(cfg, s);
          ASSERT_TRUE(validate(a.built.plan).is_ok());
          EXPECT_EQ(to_text(a.built.plan), to_text(b.built.plan));
          // Stage 3 without optimizer offload repeats one micro-step G times; the others have
          // a first, a repeated middle and a last micro-step.
          const bool uniform =
              stage == 3 && std::string(extra).find("offload") == std::string::npos;
          const int expected_segments = uniform ? 2 : std::min(accum, 3) + 1;
          EXPECT_EQ(static_cast<int>(a.built.plan.segments.size()), expected_segments) << cfg;
          if (accum == 5) {
            EXPECT_EQ(a.built.plan.segments[uniform ? 0 : 1].repeat, uniform ? 5 : 3);
          }
        }
      }
    }
  }
}

TEST(Plan, TextNamesOpsStreamsAndBuffers) {
  PlanSetup s;
  s.model = "tiny-gpt";
  s.seq_len = 64;
  const auto r = plan_text(R"({"train_micro_batch_size_per_gpu": 2, "bf16": {"enabled": true},
      "zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0}})",
                           s);
  const std::string text = to_text(r.built.plan);
  EXPECT_NE(text.find("[allgather] forward mb0.prefetch."), std::string::npos) << text;
  EXPECT_NE(text.find("reduce_scatter"), std::string::npos);
  EXPECT_NE(text.find("[compute] backward mb0.bwd.lm_head"), std::string::npos);
  EXPECT_NE(text.find("buffer 0 params.partitions"), std::string::npos);
}

}  // namespace
}  // namespace zs::plan
