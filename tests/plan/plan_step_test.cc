// plan_step: the one entry point from (config, model, cluster) to the checked config and the
// Plan, without the simulator.
#include "plan/plan_step.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "configs/hardware/cluster.h"
#include "models/hf_config.h"

namespace zs::plan {
namespace {

StepRequest request(const std::string& name, const std::string& config) {
  const std::string path =
      ::testing::TempDir() + "zs_plan_step_" + std::to_string(getpid()) + "_" + name + ".json";
  std::ofstream(path) << config;
  StepRequest r;
  r.config_path = path;
  auto model = models::resolve_model("tiny-gpt");
  EXPECT_TRUE(model.ok());
  r.model = *model;
  auto cluster = configs::make_cluster("a100-80gb", 1, 2);
  EXPECT_TRUE(cluster.ok());
  r.cluster = *cluster;
  return r;
}

TEST(PlanStep, ChecksTheConfigThenPlansItsStep) {
  const StepRequest r =
      request("ok", R"({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 3,
                       "bf16": {"enabled": true}, "zero_optimization": {"stage": 2}})");
  auto s = plan_step(r);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->seq_len, r.model.max_position_embeddings);  // 0 asks for the model's
  EXPECT_EQ(s->built.layout.stage, 2);
  EXPECT_EQ(s->built.layout.micro_steps, 3);
  EXPECT_EQ(s->built.plan.world_size, 2);
  EXPECT_EQ(s->config.config.batch.train_batch_size.value, 2 * 3 * 2);  // filled in by check
  EXPECT_FALSE(s->built.plan.ops.empty());
}

TEST(PlanStep, AConfigWithErrorsIsAStatusListingThem) {
  const StepRequest r = request("bad", R"({"train_micro_batch_size_per_gpu": 2,
                                          "zero_optimization": {"stage": 7}})");
  auto s = plan_step(r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("zero_optimization.stage"), std::string::npos)
      << s.status().message();
  // check_step_config reports the same errors as diagnostics, not as a Status.
  auto checked = check_step_config(r);
  ASSERT_TRUE(checked.ok());
  EXPECT_TRUE(checked->diagnostics.has_errors());
}

TEST(PlanStep, FactsOfTheModelAndClusterForCheck) {
  const StepRequest r = request("facts", "{}");
  const configs::ModelFacts m = model_facts(r.model);
  EXPECT_EQ(m.hidden_size, r.model.hidden_size);
  EXPECT_GT(m.params, 0);
  EXPECT_GT(m.largest_param_numel, 0);
  const configs::ClusterFacts c = cluster_facts(r.cluster);
  EXPECT_EQ(c.gpus_per_node, 2);
  EXPECT_NE(c.description.find("(2 GPUs)"), std::string::npos) << c.description;
}

}  // namespace
}  // namespace zs::plan
