// Writing a checked config back out as a tuned config: "auto" kept, the HF Trainer flags it
// needs, and what the Trainer would hand DeepSpeed.
#include "configs/ds_config_writer.h"

#include <gtest/gtest.h>

#include "tests/configs/config_test_util.h"

namespace zs::configs {
namespace {

CheckOptions eight_ranks() {
  CheckOptions o;
  o.world_size = 8;
  o.micro_batch = 4;
  o.grad_accum = 2;
  o.precision = Precision::kBf16;
  o.model = ModelFacts{"m", 1000, 64, 2, 100};
  return o;
}

constexpr const char* kAllAuto = R"({
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
    "steps_per_print": 10})";

// The HF Trainer stops on a number that differs from its TrainingArguments value, so every
// "auto" stays, and the flags carry what the prediction assumed.
TEST(DsConfigWriter, KeepsEveryAutoAndNamesTheTrainerFlags) {
  const LoadedConfig lc = check(kAllAuto, eight_ranks());
  ASSERT_FALSE(lc.diagnostics.has_errors()) << dump(lc);
  const TunedConfig t = tuned_ds_config(lc, /*gradient_checkpointing=*/true);
  const Json& c = t.config;
  EXPECT_EQ(c["train_batch_size"], "auto");
  EXPECT_EQ(c["train_micro_batch_size_per_gpu"], "auto");
  EXPECT_EQ(c["optimizer"]["params"]["lr"], "auto");
  EXPECT_EQ(c["zero_optimization"]["reduce_bucket_size"], "auto");
  EXPECT_EQ(c["scheduler"]["params"]["warmup_num_steps"], 10);  // what the file says stays
  EXPECT_EQ(c["steps_per_print"], 10);
  EXPECT_EQ(t.autos.size(), 17u);
  EXPECT_EQ(t.flags_text(),
            "--per_device_train_batch_size 4 --gradient_accumulation_steps 2 --bf16 "
            "--gradient_checkpointing --warmup_steps 10");
  EXPECT_TRUE(t.ready()) << t.needs.front();
  // What the Trainer hands DeepSpeed: every "auto" zerosim can resolve, filled.
  const Json& f = t.filled;
  EXPECT_EQ(f["train_batch_size"], 64);
  EXPECT_EQ(f["train_micro_batch_size_per_gpu"], 4);
  EXPECT_EQ(f["gradient_accumulation_steps"], 2);
  EXPECT_EQ(f["gradient_clipping"], 1.0);
  EXPECT_EQ(f["fp16"]["enabled"], false);
  EXPECT_EQ(f["bf16"]["enabled"], true);
  EXPECT_EQ(f["optimizer"]["params"]["lr"], 5e-5);
  EXPECT_EQ(f["optimizer"]["params"]["betas"], Json::parse("[0.9, 0.999]"));
  EXPECT_EQ(f["zero_optimization"]["reduce_bucket_size"], 64 * 64);
  EXPECT_EQ(f["zero_optimization"]["stage3_prefetch_bucket_size"], 3686);  // int(0.9 x 64^2)
  EXPECT_EQ(f["zero_optimization"]["stage3_param_persistence_threshold"], 640);
  EXPECT_TRUE(f["zero_optimization"]["offload_param"].is_null());
  // The run's length is not known: the Trainer fills it from the dataset.
  EXPECT_EQ(f["scheduler"]["params"]["total_num_steps"], "auto");
}

// A file with numbers: they are what the Trainer must be launched with.
TEST(DsConfigWriter, NumbersInTheFileBecomeTheFlagsTheyMustMatch) {
  const LoadedConfig lc = check(R"({"train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 2, "gradient_clipping": 0.5, "bf16": {"enabled": true},
    "optimizer": {"type": "AdamW", "params": {"lr": 3e-4, "betas": [0.9, 0.95],
                                               "weight_decay": 0.1}},
    "zero_optimization": {"stage": 2, "reduce_bucket_size": 2e8}})",
                                eight_ranks());
  ASSERT_FALSE(lc.diagnostics.has_errors()) << dump(lc);
  const TunedConfig t = tuned_ds_config(lc, false);
  EXPECT_TRUE(t.autos.empty());
  // A DeepSpeed-only launcher needs the whole triad in the file.
  EXPECT_EQ(t.config["train_batch_size"], 64);
  EXPECT_EQ(t.flags_text(),
            "--per_device_train_batch_size 4 --gradient_accumulation_steps 2 --bf16 "
            "--max_grad_norm 0.5 --learning_rate 0.0003 --adam_beta2 0.95 --weight_decay 0.1");
  // Integral floats of integer knobs are written as integers; real floats stay.
  EXPECT_TRUE(t.config["zero_optimization"]["reduce_bucket_size"].is_number_integer());
  EXPECT_TRUE(t.config["gradient_clipping"].is_number_float());
  EXPECT_TRUE(t.ready());
}

// Two numbers one flag fills cannot both be matched unless they agree.
TEST(DsConfigWriter, TwoNumbersOneFlagMustMatchAreANeed) {
  const LoadedConfig lc = check(R"({"train_micro_batch_size_per_gpu": 1,
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
    "scheduler": {"type": "WarmupLR", "params": {"warmup_max_lr": 3e-4, "warmup_num_steps": 5}}})");
  ASSERT_FALSE(lc.diagnostics.has_errors()) << dump(lc);
  const TunedConfig t = tuned_ds_config(lc, false);
  ASSERT_EQ(t.needs.size(), 1u);
  EXPECT_NE(t.needs[0].find("--learning_rate"), std::string::npos) << t.needs[0];
  EXPECT_FALSE(t.ready());
}

// The HF Trainer's default warmup (0 steps) is one DeepSpeed 0.19.3 and later rejects: the file
// keeps "auto", and it is not ready until the launch passes --warmup_steps.
TEST(DsConfigWriter, AWarmupTheTrainerFillsWithZeroIsANeed) {
  const LoadedConfig lc = check(R"({"train_micro_batch_size_per_gpu": 1,
    "scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": "auto"}}})");
  ASSERT_FALSE(lc.diagnostics.has_errors()) << dump(lc);
  const TunedConfig t = tuned_ds_config(lc, false);
  EXPECT_EQ(t.config["scheduler"]["params"]["warmup_num_steps"], "auto");
  EXPECT_EQ(t.filled["scheduler"]["params"]["warmup_num_steps"], 0);
  ASSERT_EQ(t.needs.size(), 1u);
  EXPECT_NE(t.needs[0].find("positive integer"), std::string::npos) << t.needs[0];
  EXPECT_NE(t.needs[0].find("--warmup_steps"), std::string::npos) << t.needs[0];
}

}  // namespace
}  // namespace zs::configs
