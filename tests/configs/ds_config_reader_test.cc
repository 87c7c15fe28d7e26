#include "configs/ds_config_reader.h"

#include <gtest/gtest.h>

#include "tests/configs/config_test_util.h"

namespace zs::configs {
namespace {

TEST(DsConfigReader, FillsDeepSpeedCodeDefaults) {
  const LoadedConfig lc = load(R"({"train_batch_size": 8})");
  const DsConfig& c = lc.config;
  EXPECT_TRUE(lc.diagnostics.items().empty()) << dump(lc);
  EXPECT_EQ(c.zero.stage.value, 0);
  EXPECT_EQ(c.zero.reduce_bucket_size.value, 500'000'000);
  EXPECT_EQ(c.zero.prefetch_bucket_size.value, 50'000'000);  // code 5e7, docs say 5e8
  EXPECT_EQ(c.zero.param_persistence_threshold.value, 100'000);
  EXPECT_EQ(c.zero.sub_group_size.value, 1'000'000'000);
  EXPECT_FALSE(c.zero.overlap_comm.value);
  EXPECT_EQ(c.zero.overlap_comm.origin, Origin::kDerived);
  EXPECT_EQ(c.gradient_clipping.value, 1.0);  // 0.19.3 and later
  EXPECT_TRUE(c.zero.offload_optimizer.pin_memory.value);  // 0.19.5 and later
  EXPECT_EQ(c.fp16.initial_scale_power.value, 16);
  EXPECT_EQ(c.fp16.hysteresis.value, 2);
  EXPECT_EQ(c.batch.train_batch_size.origin, Origin::kFile);
  EXPECT_FALSE(c.batch.micro_batch_per_gpu.is_set());
}

TEST(DsConfigReader, AnUncheckedOptimizersParamsOfAnyTypeAreKeptNotCast) {
  // Found by the config fuzzer: an optimizer zerosim does not check, with "lr" a string (or
  // "betas" not a pair), aborted the reader with a JSON type error.
  for (const char* type : {"ZAdamW", "SGD"}) {
    const LoadedConfig lc = load(std::string(R"({"optimizer": {"type": ")") + type +
                                 R"(", "params": {"lr": "fast", "betas": [1], "eps": null,
                                  "torch_adam": "yes"}}})");
    EXPECT_FALSE(lc.config.optimizer.lr.is_set()) << type;
    EXPECT_EQ(lc.config.optimizer.other_params.size(), 4u) << type;
  }
}

TEST(DsConfigReader, OlderReleasesHaveOlderDefaults) {
  const LoadedConfig lc = load(R"({"train_batch_size": 8})", DsVersion{0, 16, 4});
  EXPECT_EQ(lc.config.gradient_clipping.value, 0.0);
  EXPECT_FALSE(lc.config.zero.offload_optimizer.pin_memory.value);
}

TEST(DsConfigReader, OverlapCommDefaultsOnAtStageThree) {
  EXPECT_TRUE(load(R"({"zero_optimization": {"stage": 3}})").config.zero.overlap_comm.value);
  const LoadedConfig lc = load(R"({"zero_optimization": {"stage": 3, "overlap_comm": "auto"}})");
  EXPECT_TRUE(lc.config.zero.overlap_comm.value);
  ASSERT_EQ(lc.autos.size(), 1u);
  EXPECT_EQ(lc.autos[0].value, "true");
  EXPECT_FALSE(load(R"({"zero_optimization": {"stage": 3, "overlap_comm": false}})")
                   .config.zero.overlap_comm.value);
}

TEST(DsConfigReader, ReadsScientificNotationAsIntegers) {
  const LoadedConfig lc =
      load(R"({"zero_optimization": {"stage": 2, "reduce_bucket_size": 2e8, "sub_group_size": 1e9}})");
  EXPECT_EQ(lc.config.zero.reduce_bucket_size.value, 200'000'000);
  EXPECT_EQ(lc.config.zero.sub_group_size.value, 1'000'000'000);
  EXPECT_TRUE(lc.diagnostics.items().empty()) << dump(lc);
}

TEST(DsConfigReader, UnknownKeysAreErrorsInPydanticSectionsAndWarningsElsewhere) {
  const LoadedConfig lc = load(R"({"train_batch_sise": 8, "zero_optimization": {"stag": 2},
                                   "activation_checkpointing": {"partitioned_activations": true}})");
  const Diagnostic* top = lc.diagnostics.find_at("train_batch_sise", Severity::kWarning);
  ASSERT_NE(top, nullptr) << dump(lc);
  EXPECT_EQ(top->hint, "did you mean \"train_batch_size\"?");
  const Diagnostic* zero = lc.diagnostics.find_at("zero_optimization.stag", Severity::kError);
  ASSERT_NE(zero, nullptr) << dump(lc);
  EXPECT_EQ(zero->hint, "did you mean \"stage\"?");
  const Diagnostic* ac = lc.diagnostics.find_at(
      "activation_checkpointing.partitioned_activations", Severity::kWarning);
  ASSERT_NE(ac, nullptr) << dump(lc);
  EXPECT_EQ(ac->hint, "did you mean \"partition_activations\"?");
}

TEST(DsConfigReader, PrecisionBlocksArePydanticFromRelease0171) {
  const std::string text = R"({"bf16": {"enabled": true, "loss_scale": 0}})";
  EXPECT_NE(load(text).diagnostics.find_at("bf16.loss_scale", Severity::kError), nullptr);
  EXPECT_NE(load(text, DsVersion{0, 17, 0}).diagnostics.find_at("bf16.loss_scale",
                                                                Severity::kWarning),
            nullptr);
}

TEST(DsConfigReader, AutoIsDroppedInPydanticSectionsAndAnErrorInPlainOnes) {
  const LoadedConfig lc = load(R"({"zero_optimization": {"stage": 3, "sub_group_size": "auto"},
                                   "wall_clock_breakdown": "auto"})");
  EXPECT_EQ(lc.config.zero.sub_group_size.value, 1'000'000'000);
  EXPECT_EQ(lc.config.zero.sub_group_size.origin, Origin::kResolved);
  EXPECT_EQ(lc.diagnostics.find_at("zero_optimization.sub_group_size", Severity::kError), nullptr);
  const Diagnostic* d = lc.diagnostics.find_at("wall_clock_breakdown", Severity::kError);
  ASSERT_NE(d, nullptr) << dump(lc);
  EXPECT_EQ(d->code, "unresolvable-auto");
}

TEST(DsConfigReader, BooleansFollowEachSectionsCoercion) {
  // pydantic coerces 1 and "yes" with a warning; a plain dict tests truthiness, so "false" there
  // would switch the feature on: an error.
  const LoadedConfig lc = load(R"({"zero_optimization": {"stage": 2, "overlap_comm": 1,
                                   "contiguous_gradients": "yes"}, "prescale_gradients": "false"})");
  EXPECT_TRUE(lc.config.zero.overlap_comm.value);
  EXPECT_TRUE(lc.config.zero.contiguous_gradients.value);
  EXPECT_EQ(lc.diagnostics.count(Severity::kWarning), 2) << dump(lc);
  const Diagnostic* d = lc.diagnostics.find_at("prescale_gradients", Severity::kError);
  ASSERT_NE(d, nullptr) << dump(lc);
  EXPECT_NE(d->message.find("would mean true"), std::string::npos) << d->message;
}

TEST(DsConfigReader, DeprecatedCpuOffloadBecomesAnOffloadBlock) {
  const LoadedConfig lc = load(R"({"zero_optimization": {"stage": 2, "cpu_offload": true}})");
  EXPECT_EQ(lc.config.zero.offload_optimizer.device.value, "cpu");
  EXPECT_EQ(lc.config.zero.offload_optimizer.device.origin, Origin::kAlias);
  EXPECT_TRUE(offload_optimizer_enabled(lc.config));
  EXPECT_NE(find(lc, "deprecated-key"), nullptr);
}

TEST(DsConfigReader, LegacyBfloat16BlockIsReadAndBf16Wins) {
  const LoadedConfig legacy = load(R"({"bfloat16": {"enabled": true}})");
  EXPECT_TRUE(legacy.config.bf16.enabled.value);
  EXPECT_EQ(legacy.config.bf16.key, "bfloat16");
  EXPECT_NE(find(legacy, "legacy-key"), nullptr);
  const LoadedConfig both = load(R"({"bf16": {"enabled": false}, "bfloat16": {"enabled": true}})");
  EXPECT_FALSE(both.config.bf16.enabled.value);
  EXPECT_NE(both.diagnostics.find_at("bfloat16", Severity::kWarning), nullptr);
}

TEST(DsConfigReader, Fp16ScalerKeysAreTracked) {
  EXPECT_FALSE(load(R"({"fp16": {"enabled": true, "loss_scale": 0}})").config.fp16.scaler_keys_given);
  EXPECT_TRUE(load(R"({"fp16": {"enabled": true, "hysteresis": 2}})").config.fp16.scaler_keys_given);
}

TEST(DsConfigReader, OptimizerTypeIsCaseInsensitiveForDeepSpeedNamesOnly) {
  EXPECT_EQ(load(R"({"optimizer": {"type": "ADAMW"}})").config.optimizer.kind, OptimizerKind::kAdamW);
  EXPECT_EQ(load(R"({"optimizer": {"type": "SGD"}})").config.optimizer.kind, OptimizerKind::kTorch);
  const LoadedConfig lc = load(R"({"optimizer": {"type": "sgd"}})");
  const Diagnostic* d = find(lc, "unknown-optimizer");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->hint, "did you mean \"SGD\"?");
}

TEST(DsConfigReader, OptimizerParamsAreTyped) {
  const LoadedConfig lc = load(R"({"optimizer": {"type": "AdamW", "params": {"lr": 3e-4,
      "betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.1, "bias_correction": false}}})");
  const OptimizerConfig& o = lc.config.optimizer;
  EXPECT_TRUE(lc.diagnostics.items().empty()) << dump(lc);
  EXPECT_EQ(o.lr.value, 3e-4);
  ASSERT_EQ(o.betas.value.size(), 2u);
  EXPECT_EQ(o.betas.value[1], 0.95);
  EXPECT_EQ(o.weight_decay.value, 0.1);
  ASSERT_EQ(o.other_params.size(), 1u);
  EXPECT_EQ(o.other_params[0].first, "bias_correction");
}

TEST(DsConfigReader, SparseAttentionReadsOnlyTheModesKeys) {
  const LoadedConfig lc = load(R"({"sparse_attention": {"mode": "fixed", "block": 16,
      "num_random_blocks": 2, "attention": "sideways"}})");
  EXPECT_NE(lc.diagnostics.find_at("sparse_attention.num_random_blocks", Severity::kWarning),
            nullptr) << dump(lc);
  EXPECT_NE(lc.diagnostics.find_at("sparse_attention.attention", Severity::kError), nullptr);
}

TEST(DsConfigReader, StrictKeyIsSwallowedNotUnknown) {
  const LoadedConfig lc = load(R"({"zero_optimization": {"stage": 1, "strict": true}})");
  EXPECT_NE(find(lc, "swallowed-key"), nullptr);
  EXPECT_FALSE(lc.diagnostics.has_errors()) << dump(lc);
}

TEST(DsConfigReader, NonObjectRootIsAnError) {
  const LoadedConfig lc = load("[1, 2]");
  EXPECT_TRUE(lc.diagnostics.has_errors());
}

TEST(DsConfigReader, MalformedJsonIsAParseStatus) {
  auto r = load_ds_config_text("{\"a\": }", "bad.json", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kParseError);
  EXPECT_NE(r.status().message().find("bad.json:1:7"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace zs::configs
