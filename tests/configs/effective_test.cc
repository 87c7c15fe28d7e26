#include "configs/effective.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/configs/config_test_util.h"

namespace zs::configs {
namespace {

TEST(Effective, ListsDefaultsWithOrigins) {
  const LoadedConfig lc = load(R"({"train_batch_size": 8, "zero_optimization": {"stage": 2}})");
  const EffectiveConfig e = effective_config(lc.config, lc.document.root);
  EXPECT_EQ(e.value["zero_optimization"]["stage"], 2);
  EXPECT_EQ(e.value["zero_optimization"]["reduce_bucket_size"], 500000000);
  EXPECT_EQ(e.origins.at("zero_optimization.stage"), "file");
  EXPECT_EQ(e.origins.at("zero_optimization.reduce_bucket_size"), "default");
  EXPECT_EQ(e.origins.at("zero_optimization.overlap_comm").rfind("derived", 0), 0u);
  const std::string text = render_effective_text(e);
  EXPECT_NE(text.find("\"stage\": 2,"), std::string::npos) << text;
  EXPECT_NE(text.find("// file"), std::string::npos) << text;
}

TEST(Effective, FillsOptimizerAndSchedulerDefaults) {
  const LoadedConfig lc = load(R"({"optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
      "scheduler": {"type": "WarmupDecayLR", "params": {"total_num_steps": 1000}}})");
  const EffectiveConfig e = effective_config(lc.config, lc.document.root);
  EXPECT_EQ(e.value["optimizer"]["params"]["eps"], 1e-8);
  EXPECT_EQ(e.value["optimizer"]["params"]["betas"], Json::parse("[0.9, 0.999]"));
  EXPECT_EQ(e.value["scheduler"]["params"]["warmup_num_steps"], 1000);
  EXPECT_EQ(e.origins.at("scheduler.params.total_num_steps"), "file");
  EXPECT_EQ(e.origins.at("scheduler.params.warmup_type"), "default");
}

// The effective config of a valid file is itself a valid config with the same effective config.
TEST(Effective, RoundTripsEveryValidExample) {
  const std::filesystem::path dir = std::filesystem::path(ZS_SOURCE_DIR) / "configs/examples";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    auto first = load_ds_config_file(entry.path().string(), {});
    if (!first.ok() || first->diagnostics.has_errors()) continue;
    const EffectiveConfig e1 = effective_config(first->config, first->document.root);
    const std::string text = e1.value.dump();
    auto second = load_ds_config_text(text, "effective.json", {});
    ASSERT_TRUE(second.ok()) << entry.path();
    EXPECT_FALSE(second->diagnostics.has_errors()) << entry.path() << "\n" << dump(*second);
    const EffectiveConfig e2 = effective_config(second->config, second->document.root);
    EXPECT_EQ(e1.value, e2.value) << entry.path();
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

}  // namespace
}  // namespace zs::configs
