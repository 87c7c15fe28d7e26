// The check stages: "auto" resolution, DeepSpeed's validation rules, lints.
#include "configs/check.h"

#include <gtest/gtest.h>

#include "configs/leaf_module.h"
#include "tests/configs/config_test_util.h"

namespace zs::configs {
namespace {

ModelFacts llama2_7b() { return ModelFacts{"llama2-7b", 6'738'415'616, 4096, 32, 131'072'000}; }

TEST(ResolveAutos, FillsBucketSizesFromHiddenSizeAtStageThree) {
  CheckOptions o;
  o.model = llama2_7b();
  const LoadedConfig lc = check(R"({"train_batch_size": 8, "zero_optimization": {"stage": 3,
      "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto",
      "stage3_param_persistence_threshold": "auto"}})",
                                o);
  EXPECT_EQ(lc.config.zero.reduce_bucket_size.value, 4096 * 4096);
  EXPECT_EQ(lc.config.zero.prefetch_bucket_size.value, 15'099'494);  // int(0.9 * 4096^2)
  EXPECT_EQ(lc.config.zero.param_persistence_threshold.value, 40'960);
  for (const AutoLine& a : lc.autos) EXPECT_TRUE(a.resolved) << a.path;
}

TEST(ResolveAutos, Stage3KeysBelowStage3FallBackToDeepSpeedDefaults) {
  CheckOptions o;
  o.model = llama2_7b();
  const LoadedConfig lc = check(R"({"train_batch_size": 8, "zero_optimization": {"stage": 2,
      "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto"}})",
                                o);
  EXPECT_EQ(lc.config.zero.reduce_bucket_size.value, 4096 * 4096);
  EXPECT_EQ(lc.config.zero.prefetch_bucket_size.value, 50'000'000);
}

TEST(ResolveAutos, BatchKeysComeOnlyFromExplicitFlags) {
  const std::string text = R"({"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
      "gradient_accumulation_steps": "auto"})";
  const LoadedConfig unresolved = check(text);
  EXPECT_TRUE(unresolved.config.batch.micro_batch_per_gpu.is_auto());
  EXPECT_FALSE(unresolved.diagnostics.has_errors()) << dump(unresolved);
  CheckOptions o;
  o.world_size = 8;
  o.micro_batch = 2;
  o.grad_accum = 16;
  const LoadedConfig lc = check(text, o);
  EXPECT_EQ(lc.config.batch.train_batch_size.value, 256);
  EXPECT_EQ(lc.config.batch.micro_batch_per_gpu.value, 2);
  EXPECT_EQ(lc.config.batch.gradient_accumulation_steps.value, 16);
  EXPECT_FALSE(lc.diagnostics.has_errors()) << dump(lc);
}

TEST(ResolveAutos, PrecisionFollowsTheTrainerFlags) {
  const std::string text = R"({"train_batch_size": 8, "fp16": {"enabled": "auto"},
                               "bf16": {"enabled": "auto"}})";
  CheckOptions o;
  o.precision = Precision::kBf16;
  EXPECT_EQ(training_precision(check(text, o).config), Precision::kBf16);
  const LoadedConfig none = check(text);
  EXPECT_EQ(training_precision(none.config), Precision::kFp32);
  EXPECT_NE(find(none, "fp32-training"), nullptr);
}

TEST(ResolveAutos, OptimizerValuesTakeTrainingArgumentDefaults) {
  const LoadedConfig lc = check(R"({"train_batch_size": 8, "optimizer": {"type": "AdamW",
      "params": {"lr": "auto", "betas": "auto", "eps": "auto", "weight_decay": "auto"}}})");
  EXPECT_EQ(lc.config.optimizer.lr.value, 5e-5);
  EXPECT_EQ(lc.config.optimizer.betas.value, (std::vector<double>{0.9, 0.999}));
  EXPECT_EQ(lc.config.optimizer.eps.value, 1e-8);
  EXPECT_EQ(lc.config.optimizer.weight_decay.value, 0.0);
}

TEST(ResolveAutos, WarnsThatDefaultWarmupIsZeroSteps) {
  const LoadedConfig lc = check(R"({"train_batch_size": 8, "scheduler": {"type": "WarmupLR",
      "params": {"warmup_num_steps": "auto"}}})");
  EXPECT_NE(find(lc, "hf-warmup-zero"), nullptr) << dump(lc);
}

struct TriadCase {
  const char* json;
  std::int64_t world;
  std::int64_t train, micro, gas;
};

TEST(Validate, FillsTheBatchTriadLikeDeepSpeed) {
  const TriadCase cases[] = {
      {R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2})", 8, 64, 2, 4},
      {R"({"train_batch_size": 64, "gradient_accumulation_steps": 2})", 8, 64, 4, 2},
      {R"({"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 3})", 8, 96, 4, 3},
      {R"({"train_batch_size": 64})", 8, 64, 8, 1},
      {R"({"train_micro_batch_size_per_gpu": 4})", 8, 32, 4, 1},
      {R"({"train_batch_size": 96, "train_micro_batch_size_per_gpu": 4,
           "gradient_accumulation_steps": 3})",
       8, 96, 4, 3},
  };
  for (const TriadCase& c : cases) {
    CheckOptions o;
    o.world_size = c.world;
    const LoadedConfig lc = check(c.json, o);
    EXPECT_FALSE(lc.diagnostics.has_errors()) << c.json << "\n" << dump(lc);
    EXPECT_EQ(lc.config.batch.train_batch_size.value, c.train) << c.json;
    EXPECT_EQ(lc.config.batch.micro_batch_per_gpu.value, c.micro) << c.json;
    EXPECT_EQ(lc.config.batch.gradient_accumulation_steps.value, c.gas) << c.json;
  }
}

TEST(Validate, IntegerDivisionThatLosesSamplesFailsTheAssertion) {
  CheckOptions o;
  o.world_size = 8;
  // 100 // 8 // 2 = 6 and 6 * 2 * 8 = 96 != 100, as DeepSpeed would find.
  const LoadedConfig lc =
      check(R"({"train_batch_size": 100, "gradient_accumulation_steps": 2})", o);
  const Diagnostic* d = find(lc, "batch-mismatch");
  ASSERT_NE(d, nullptr) << dump(lc);
  EXPECT_NE(d->message.find("100 != micro_batch_per_gpu 6 x gradient_accumulation_steps 2 x "
                            "world_size 8 = 96"),
            std::string::npos)
      << d->message;
}

TEST(Validate, NoBatchKeysIsAWarningForLauncherFilledConfigs) {
  const LoadedConfig lc = check(R"({"zero_optimization": {"stage": 2}})");
  EXPECT_NE(find(lc, "batch-missing"), nullptr);
  EXPECT_FALSE(lc.diagnostics.has_errors());
}

TEST(Validate, OneBitOptimizersAllowedWithoutZero) {
  EXPECT_FALSE(check(R"({"train_batch_size": 8, "optimizer": {"type": "OneBitAdam",
      "params": {"lr": 1e-4, "freeze_step": 100}}})")
                   .diagnostics.has_errors());
}

TEST(Validate, FusedAdamArgumentsDependOnOffload) {
  const LoadedConfig gpu = check(R"({"train_batch_size": 8, "zero_optimization": {"stage": 2},
      "optimizer": {"type": "Adam", "params": {"fp32_optimizer_states": false}}})");
  EXPECT_NE(find(gpu, "unknown-argument"), nullptr) << dump(gpu);
  const LoadedConfig cpu = check(R"({"train_batch_size": 8, "zero_optimization": {"stage": 2,
      "offload_optimizer": {"device": "cpu"}},
      "optimizer": {"type": "Adam", "params": {"fp32_optimizer_states": false}}})");
  EXPECT_EQ(find(cpu, "unknown-argument"), nullptr) << dump(cpu);
}

// zero_optimization.leaf_module (DeepSpeedZeroLeafModuleConfig): strings or lists of strings
// under three keys; anything else is DeepSpeed's start-up error, named at its path.
TEST(Validate, LeafModuleValuesDeepSpeedRejectsAreErrors) {
  const std::string head = R"({"train_batch_size": 8, "zero_optimization": {"stage": 3, )";
  struct Case {
    std::string leaf;
    std::string path;
    std::string says;
  };
  const Case cases[] = {
      {"5", "zero_optimization.leaf_module", "expected an object"},
      {R"({"classes": [1]})", "zero_optimization.leaf_module.classes[0]", "1 is not allowed"},
      {R"({"classes": 7})", "zero_optimization.leaf_module.classes", "7 is not allowed"},
      {R"({"modules": ["x"]})", "zero_optimization.leaf_module.modules", "\"name_suffixes\""},
  };
  for (const Case& c : cases) {
    const LoadedConfig lc = check(head + "\"leaf_module\": " + c.leaf + "}}");
    const Diagnostic* d = find(lc, "leaf-module");
    ASSERT_NE(d, nullptr) << c.leaf << "\n" << dump(lc);
    EXPECT_EQ(d->path, c.path) << c.leaf;
    EXPECT_NE(d->message.find(c.says), std::string::npos) << d->message;
  }
  for (const char* good : {R"({"classes": "MixtralSparseMoeBlock"})", R"({"classes": []})",
                           R"({"names": ["model.layers.0"], "name_suffixes": ["mlp"]})", "null"}) {
    const LoadedConfig lc = check(head + "\"leaf_module\": " + good + "}}");
    EXPECT_EQ(find(lc, "leaf-module"), nullptr) << good << "\n" << dump(lc);
  }
  // The key came with DeepSpeed 0.18.0.
  CheckOptions old;
  old.version = DsVersion{0, 17, 6};
  const LoadedConfig lc = check(head + R"("leaf_module": {"classes": []}}})", old);
  const Diagnostic* d = find(lc, "leaf-module");
  ASSERT_NE(d, nullptr) << dump(lc);
  EXPECT_NE(d->message.find("0.18.0"), std::string::npos) << d->message;
}

TEST(LeafModules, DefaultsFollowTheRelease) {
  EXPECT_TRUE(default_leaf_modules(DsVersion{0, 17, 6}).classes.empty());
  const LeafModules now = default_leaf_modules(kLatestDsVersion);
  ASSERT_EQ(now.classes.size(), 3u);
  EXPECT_EQ(now.classes[0], "transformers.models.mixtral.modeling_mixtral.MixtralSparseMoeBlock");
  // A key left out keeps its default; a string is a one-element list, duplicates dropped.
  const Json cfg = Json::parse(R"({"names": ["a", "a"], "name_suffixes": "mlp"})");
  LeafModules read;
  EXPECT_FALSE(read_leaf_modules(&cfg, kLatestDsVersion, &read).has_value());
  EXPECT_EQ(read.classes, now.classes);
  EXPECT_EQ(read.names, std::vector<std::string>{"a"});
  EXPECT_EQ(read.name_suffixes, std::vector<std::string>{"mlp"});
}

TEST(Lints, PriceBucketsInBytesAgainstModelAndGpu) {
  CheckOptions o;
  o.model = llama2_7b();
  o.cluster = ClusterFacts{"1 x 8", 1, 8, "A100", 80LL * kGiB, true};
  const LoadedConfig lc = check(R"({"train_batch_size": 64, "bf16": {"enabled": true},
      "zero_optimization": {"stage": 2, "overlap_comm": true, "reduce_bucket_size": 5e8}})",
                                o);
  const Diagnostic* d = find(lc, "bucket-memory");
  ASSERT_NE(d, nullptr) << dump(lc);
  // 5e8 x 2 bytes = 953.7 MiB; two buffers with overlap_comm = 1.86 GiB = 2.3% of 80 GiB.
  EXPECT_NE(d->message.find("953.7 MiB per gradient bucket"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("1.86 GiB allocated at the start of every backward"), std::string::npos)
      << d->message;
  EXPECT_NE(d->message.find("2.3%"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("12.55 GiB of gradients"), std::string::npos) << d->message;
}

TEST(Lints, BucketLargerThanTheModelCannotOverlap) {
  CheckOptions o;
  o.model = ModelFacts{"gpt2", 124'439'808, 768, 12, 38'597'376};
  const LoadedConfig lc = check(R"({"train_batch_size": 8, "bf16": {"enabled": true},
      "zero_optimization": {"stage": 1}})",
                                o);
  const Diagnostic* d = find(lc, "bucket-memory");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("one bucket holds every gradient"), std::string::npos) << d->message;
}

TEST(Lints, OverlapOffPricesTheExposedAllReduce) {
  CheckOptions o;
  o.model = llama2_7b();
  o.world_size = 8;
  const LoadedConfig lc = check(R"({"train_batch_size": 64, "bf16": {"enabled": true},
      "zero_optimization": {"stage": 1}})",
                                o);
  const Diagnostic* d = find(lc, "overlap-comm-off");
  ASSERT_NE(d, nullptr) << dump(lc);
  // Ring all-reduce: 2 (N-1)/N x 2 bytes x 6.74e9 = 23.58e9 bytes = 21.96 GiB per GPU.
  EXPECT_NE(d->message.find("21.96 GiB"), std::string::npos) << d->message;
  EXPECT_EQ(check(R"({"train_batch_size": 8, "zero_optimization": {"stage": 3}})")
                .diagnostics.find("overlap-comm-off"),
            nullptr);
}

TEST(Lints, NeverBlock) {
  const LoadedConfig lc = check(R"({"train_batch_size": 8, "steps_per_print": 2000,
      "wall_clock_breakdown": true, "zero_optimization": {"stage": 2,
      "round_robin_gradients": true}})");
  EXPECT_NE(find(lc, "steps-per-print"), nullptr);
  EXPECT_NE(find(lc, "wall-clock-breakdown"), nullptr);
  EXPECT_NE(find(lc, "round-robin-without-offload"), nullptr);
  EXPECT_FALSE(lc.diagnostics.has_errors()) << dump(lc);
}

// ZeRO++ quantization, which the Plan does not model, is named, each with its JSON path, and only
// at stage 3, where DeepSpeed reads them.
TEST(Lints, ZeroPlusPlusOptionsAreNamedAsNotModelled) {
  const LoadedConfig lc = check(R"({"train_batch_size": 8, "zero_optimization": {"stage": 3,
      "zero_quantized_weights": true, "zero_quantized_nontrainable_weights": true,
      "zero_quantized_gradients": true}})");
  int named = 0;
  for (const Diagnostic& d : lc.diagnostics.items()) {
    if (d.code != "not-modelled") continue;
    ++named;
    EXPECT_NE(d.path.find("zero_optimization.zero_"), std::string::npos) << d.path;
    EXPECT_NE(d.message.find("does not model"), std::string::npos) << d.message;
  }
  EXPECT_EQ(named, 3) << dump(lc);
  EXPECT_FALSE(lc.diagnostics.has_errors()) << dump(lc);
  const LoadedConfig stage2 = check(R"({"train_batch_size": 8, "zero_optimization": {"stage": 2,
      "zero_quantized_weights": true}})");
  EXPECT_EQ(find(stage2, "not-modelled"), nullptr) << dump(stage2);
}

}  // namespace
}  // namespace zs::configs
