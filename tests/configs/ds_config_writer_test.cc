// Writing a checked config back out with every "auto" resolved.
#include "configs/ds_config_writer.h"

#include <gtest/gtest.h>

#include "tests/configs/config_test_util.h"

namespace zs::configs {
namespace {

TEST(DsConfigWriter, ReplacesEveryAutoWithItsResolvedValue) {
  CheckOptions o;
  o.world_size = 8;
  o.micro_batch = 4;
  o.grad_accum = 2;
  o.precision = Precision::kBf16;
  o.model = ModelFacts{"m", 1000, 64, 2, 100};
  const LoadedConfig lc = check(R"({
    "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto", "gradient_clipping": "auto",
    "fp16": {"enabled": "auto"}, "bf16": {"enabled": "auto"},
    "optimizer": {"type": "AdamW", "params": {"lr": "auto", "betas": "auto", "eps": "auto",
                                               "weight_decay": "auto"}},
    "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": "auto",
      "warmup_max_lr": "auto", "warmup_num_steps": 10, "total_num_steps": "auto"}},
    "zero_optimization": {"stage": 3, "reduce_bucket_size": "auto",
      "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto",
      "offload_param": "auto"},
    "steps_per_print": 10})",
                                o);
  ASSERT_FALSE(lc.diagnostics.has_errors()) << dump(lc);
  const ResolvedConfig r = resolved_ds_config(lc);
  const Json& c = r.config;
  EXPECT_EQ(c["train_batch_size"], 64);
  EXPECT_EQ(c["train_micro_batch_size_per_gpu"], 4);
  EXPECT_EQ(c["gradient_accumulation_steps"], 2);
  EXPECT_EQ(c["gradient_clipping"], 1.0);
  EXPECT_EQ(c["fp16"]["enabled"], false);
  EXPECT_EQ(c["bf16"]["enabled"], true);
  EXPECT_EQ(c["optimizer"]["params"]["lr"], 5e-5);
  EXPECT_EQ(c["optimizer"]["params"]["betas"], Json::parse("[0.9, 0.999]"));
  EXPECT_EQ(c["zero_optimization"]["reduce_bucket_size"], 64 * 64);
  EXPECT_EQ(c["zero_optimization"]["stage3_prefetch_bucket_size"], 3686);  // int(0.9 x 64^2)
  EXPECT_EQ(c["zero_optimization"]["stage3_param_persistence_threshold"], 640);
  EXPECT_TRUE(c["zero_optimization"]["offload_param"].is_null());
  EXPECT_EQ(c["scheduler"]["params"]["warmup_max_lr"], 5e-5);
  EXPECT_EQ(c["steps_per_print"], 10);  // what the file says stays
  // The run's length is not known: the HF Trainer fills it.
  EXPECT_EQ(c["scheduler"]["params"]["total_num_steps"], "auto");
  ASSERT_EQ(r.kept.size(), 1u);
  EXPECT_EQ(r.kept[0].path, "scheduler.params.total_num_steps");
  // Written out and read again, it is a config without errors.
  const LoadedConfig again = check(c.dump(2), o);
  EXPECT_FALSE(again.diagnostics.has_errors()) << dump(again);
}

// The HF Trainer's default warmup_num_steps (0) is one DeepSpeed 0.19.3 and later rejects: the
// written file keeps "auto" there, for the trainer's --warmup_steps.
TEST(DsConfigWriter, KeepsAutoWhereTheResolvedValueIsRejected) {
  const LoadedConfig lc = check(R"({"train_micro_batch_size_per_gpu": 1,
    "scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": "auto"}}})");
  ASSERT_FALSE(lc.diagnostics.has_errors()) << dump(lc);
  const ResolvedConfig r = resolved_ds_config(lc);
  EXPECT_EQ(r.config["scheduler"]["params"]["warmup_num_steps"], "auto");
  ASSERT_EQ(r.kept.size(), 1u);
  EXPECT_EQ(r.kept[0].path, "scheduler.params.warmup_num_steps");
  EXPECT_NE(r.kept[0].why.find("positive integer"), std::string::npos) << r.kept[0].why;
  // Integral floats of integer knobs are written as integers.
  const LoadedConfig floats = check(R"({"train_micro_batch_size_per_gpu": 1,
    "zero_optimization": {"stage": 2, "reduce_bucket_size": 2e8}, "gradient_clipping": 1.0})");
  const ResolvedConfig f = resolved_ds_config(floats);
  EXPECT_TRUE(f.config["zero_optimization"]["reduce_bucket_size"].is_number_integer());
  EXPECT_TRUE(f.config["gradient_clipping"].is_number_float());
}

}  // namespace
}  // namespace zs::configs
