#include "sim/expert_share.h"

#include <gtest/gtest.h>

#include <string>

#include "models/parameters.h"
#include "models/zoo.h"
#include "tests/sim/sim_test_util.h"

namespace zs::sim {
namespace {

std::string zero3(const std::string& extra = "") {
  return R"({"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": true},
             "zero_optimization": {"stage": 3)" +
         extra + "}}";
}

SimSetup mixtral_setup() {
  models::ModelSpec spec = models::zoo_model("mixtral-8x7b").value();
  spec.num_layers = 4;
  SimSetup s;
  s.spec = spec;
  s.gpu = "h100-80gb-sxm";
  s.seq_len = 1024;
  return s;
}

// The experts' tensors are counted whole, the active parameters as k of E of them, and the
// experts' share of the model states as their share of the parameters.
TEST(ExpertShare, CountsEveryExpertAndTheActiveShare) {
  const SimSetup s = mixtral_setup();
  const SimulationResult r = simulate_text(zero3(), s);
  const auto share = expert_share(r);
  ASSERT_TRUE(share.has_value());
  const std::int64_t E = 8, h = 4096, I = 14336, layers = 4;
  EXPECT_EQ(share->expert_params, layers * E * 3 * h * I);
  EXPECT_EQ(share->router_params, layers * E * h);
  EXPECT_EQ(share->params, models::parameter_count(*s.spec));
  EXPECT_EQ(share->active_params,
            share->params - share->expert_params + share->expert_params / E * 2);
  EXPECT_NEAR(share->param_fraction,
              static_cast<double>(share->expert_params) / static_cast<double>(share->params),
              1e-12);
  EXPECT_GT(share->model_states_bytes, 0.9 * static_cast<double>(r.memory.model_states_bytes));
  EXPECT_LT(share->model_states_bytes, r.memory.model_states_bytes);
  EXPECT_GT(share->kernel_s, 0);
  EXPECT_LT(share->kernel_s, share->model_kernel_s);
  EXPECT_EQ(share->moe_blocks, 4);
  // DeepSpeed's default (0.18.0 on) makes every MoE block a ZeRO-3 leaf module.
  EXPECT_EQ(share->leaf_blocks, 4);
}

// With leaf_module.classes empty no block is a leaf; before stage 3 none is hooked at all.
TEST(ExpertShare, LeafBlocksFollowTheConfig) {
  const SimSetup s = mixtral_setup();
  const auto none = expert_share(simulate_text(zero3(R"(, "leaf_module": {"classes": []})"), s));
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->leaf_blocks, 0);
  const auto stage2 = expert_share(simulate_text(
      R"({"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": true},
          "zero_optimization": {"stage": 2}})",
      s));
  ASSERT_TRUE(stage2.has_value());
  EXPECT_EQ(stage2->leaf_blocks, 0);
}

TEST(ExpertShare, ADenseModelHasNone) {
  EXPECT_FALSE(expert_share(simulate_text(zero3())).has_value());
}

}  // namespace
}  // namespace zs::sim
