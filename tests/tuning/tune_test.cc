// tune on a small case: at least as fast as the config as given, within its budget, and every
// "auto" filled in the winner's config.
#include "tuning/tune.h"

#include <gtest/gtest.h>

#include "configs/ds_config_writer.h"
#include "tests/tuning/sweep_test_util.h"
#include "tuning/ranking.h"

namespace zs::tuning {
namespace {

bool has_auto(const json::Json& j) {
  if (j.is_string()) return j == "auto";
  if (!j.is_object() && !j.is_array()) return false;
  for (const auto& v : j) {
    if (has_auto(v)) return true;
  }
  return false;
}

TEST(Tune, FindsAConfigAtLeastAsFastAndFillsEveryAuto) {
  SweepSetup s = sweep_setup(R"({
    "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto", "gradient_clipping": "auto",
    "fp16": {"enabled": "auto"}, "bf16": {"enabled": "auto"},
    "zero_optimization": {"stage": 1, "reduce_bucket_size": "auto", "overlap_comm": false}})",
                             "gpt2", 8, 64);
  s.base.check.micro_batch = 1;
  s.base.check.grad_accum = 4;
  s.jobs = 2;
  TuneOptions options;
  options.budget = 24;
  options.max_micro_batch = 4;
  auto out = run_tune(s, options);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_TRUE(out->rows[0].baseline);
  ASSERT_TRUE(is_feasible(out->rows[0], s.headroom)) << out->rows[0].error;
  EXPECT_LE(out->rows.size(), static_cast<std::size_t>(options.budget) + 1);
  ASSERT_TRUE(out->best.has_value());
  const SweepRow& best = out->rows[static_cast<std::size_t>(*out->best)];
  EXPECT_GE(best.metrics.tokens_per_s, out->rows[0].metrics.tokens_per_s);
  EXPECT_EQ(best.metrics.train_batch_size, 32);  // the global batch is kept: 1 x 4 x 8
  ASSERT_EQ(out->axes.size(), 8u);
  EXPECT_EQ(out->axes[0].key, "stage");
  EXPECT_FALSE(out->axes[0].values.empty());
  ASSERT_TRUE(out->best_result.has_value());
  const configs::TunedConfig tuned = configs::tuned_ds_config(
      out->best_result->config, out->best_result->built.layout.checkpointing);
  EXPECT_FALSE(has_auto(tuned.filled)) << tuned.filled.dump();
  EXPECT_EQ(tuned.filled["train_batch_size"], 32);
  EXPECT_TRUE(tuned.filled["zero_optimization"]["reduce_bucket_size"].is_number_integer());
  EXPECT_TRUE(tuned.ready()) << tuned.needs.front();
}

}  // namespace
}  // namespace zs::tuning
