// The plan interpreter's reading of a Plan (the training it drives is tested through both
// backends in executor_test.cc and tests/exec_cuda/).
#include "exec/plan_interpreter.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "exec/model_runner.h"
#include "models/hf_config.h"
#include "sim/simulate.h"
#include "tests/exec/exec_test_plans.h"

namespace zs::exec {
namespace {

// The plan of tiny-gpt (2 layers) at ZeRO `stage`, with or without full checkpointing.
plan::Plan plan_for(int stage, bool checkpointing) {
  const std::string cfg =
      R"({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 3,
          "bf16": {"enabled": true}, "zero_optimization": {"stage": )" +
      std::to_string(stage) + "}}";
  return testing::tiny_gpt_simulation(cfg, 1, checkpointing).built.plan;
}

// One checkpoint per transformer layer: tiny-gpt's model ops are the embedding (0), layer 0
// (1-10), layer 1 (11-20), then the final norm, the head and the loss.
TEST(CheckpointRanges, OneRangePerLayerWithCheckpointing) {
  const std::map<int, int> want = {{10, 1}, {20, 11}};
  for (int stage : {0, 2, 3}) {
    EXPECT_EQ(checkpoint_ranges(plan_for(stage, true)), want) << "stage " << stage;
    EXPECT_TRUE(checkpoint_ranges(plan_for(stage, false)).empty()) << "stage " << stage;
  }
}

}  // namespace
}  // namespace zs::exec
