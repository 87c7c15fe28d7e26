// The plan interpreter's reading of a Plan (the training it drives is tested through both
// backends in executor_test.cc and tests/exec_cuda/).
#include "exec/plan_interpreter.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "exec/model_runner.h"
#include "models/hf_config.h"
#include "tests/exec/exec_test_plans.h"

namespace zs::exec {
namespace {

// The plan of tiny-gpt (2 layers) at ZeRO `stage`, with or without full checkpointing.
plan::Plan plan_for(int stage, bool checkpointing) {
  const std::string cfg =
      R"({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 3,
          "bf16": {"enabled": true}, "zero_optimization": {"stage": )" +
      std::to_string(stage) + "}}";
  return testing::tiny_gpt_plan(cfg, 1, checkpointing).built.plan;
}

// What the interpreter reads instead of inferring it: tiny-gpt's model ops are the embedding
// (0), layer 0 (1-10), layer 1 (11-20), then the final norm, the head and the loss (23). Per
// micro-step: one forward begins it (the embedding's), one ends it (the loss's), and with
// checkpointing one forward per layer drops that layer's activations.
TEST(PlanStructure, MicroStepsAndCheckpointsAreStatedOnTheForwards) {
  for (int stage : {0, 2, 3}) {
    for (bool checkpointing : {false, true}) {
      const plan::Plan p = plan_for(stage, checkpointing);
      int begins = 0, ends = 0;
      std::map<int, int> drops;  // first -> last model op
      for (const plan::Segment& seg : p.segments) {
        for (int i = seg.first_op; i < seg.end_op; ++i) {
          const auto* c = std::get_if<plan::ComputeWork>(&p.ops[i].work);
          if (c == nullptr) continue;
          begins += seg.repeat * (c->begins_micro_step ? 1 : 0);
          ends += seg.repeat * (c->ends_micro_step ? 1 : 0);
          if (c->begins_micro_step) {
            EXPECT_EQ(c->first_model_op, 0);
          }
          if (c->ends_micro_step) {
            EXPECT_EQ(c->last_model_op, 23);
          }
          if (c->drop_first_model_op >= 0) drops[c->drop_first_model_op] = c->last_model_op;
        }
      }
      const std::string what = "stage " + std::to_string(stage) + (checkpointing ? " ckpt" : "");
      EXPECT_EQ(begins, 3) << what;  // gradient_accumulation_steps
      EXPECT_EQ(ends, 3) << what;
      const std::map<int, int> want =
          checkpointing ? std::map<int, int>{{1, 10}, {11, 20}} : std::map<int, int>{};
      EXPECT_EQ(drops, want) << what;
    }
  }
}

// The optimizer's slices follow each other from the start of the master weights.
TEST(PlanStructure, OptimizerSlicesAreContiguousFromZero) {
  for (int stage : {0, 1, 2, 3}) {
    const plan::Plan p = plan_for(stage, false);
    std::int64_t next = 0;
    int slices = 0;
    for (const plan::Op& op : p.ops) {
      const auto* o = std::get_if<plan::OptimizerWork>(&op.work);
      if (o == nullptr) continue;
      EXPECT_EQ(o->first_elem, next) << "stage " << stage;
      next += o->numel;
      ++slices;
    }
    EXPECT_GE(slices, 1) << "stage " << stage;
  }
}

}  // namespace
}  // namespace zs::exec
