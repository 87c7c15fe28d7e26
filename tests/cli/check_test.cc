// End-to-end behaviour of `zerosim check`: bundled examples, flags, JSON output, exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/run_zerosim.h"

namespace zs {
namespace {

using testing::run_zerosim;
using testing::write_temp;

std::string example(const std::string& name) {
  return std::string(ZS_SOURCE_DIR) + "/configs/examples/" + name;
}

bool has(const testing::RunResult& r, const std::string& s) {
  return r.output.find(s) != std::string::npos;
}

TEST(CheckCli, SeedReviewConfigIsValidAndLintedWithNumbers) {
  const auto r = run_zerosim("check " + example("seed004_review_original.json") +
                             " --model llama2-7b --gpu a100-80gb --nodes 1 --gpus-per-node 8");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // The review's batch arithmetic, overlap_comm default and bucket price.
  EXPECT_TRUE(has(r, "train_batch_size 256 = micro 8 x grad_accum 4 x 8 GPUs")) << r.output;
  EXPECT_TRUE(has(r, "lint[overlap-comm-off]")) << r.output;
  EXPECT_TRUE(has(r, "\"overlap_comm\": false")) << r.output;
  EXPECT_TRUE(has(r, "reduce_bucket_size 500,000,000 elements = 953.7 MiB")) << r.output;
  EXPECT_TRUE(has(r, "warning[ignored-allgather-bucket]")) << r.output;
  EXPECT_TRUE(has(r, "warning[not-strict-json]: comments at 12 places")) << r.output;
}

TEST(CheckCli, OptimizedReviewConfigTurnsOverlapOnAndDoublesBuffers) {
  const auto r = run_zerosim("check " + example("seed004_review_optimized.json") +
                             " --model llama2-7b --world 8");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // The snippet leaves out its precision block ("// ... other settings"), so it trains in fp32:
  // 2e8 elements x 4 bytes, double-buffered by overlap_comm.
  EXPECT_TRUE(has(r, "reduce_bucket_size 200,000,000 elements = 762.9 MiB per gradient bucket; "
                     "overlap_comm double-buffers it: 1.49 GiB")) << r.output;
  EXPECT_TRUE(has(r, "lint[fp32-training]")) << r.output;
  EXPECT_FALSE(has(r, "lint[overlap-comm-off]")) << r.output;
  EXPECT_TRUE(has(r, "warning[not-strict-json]: trailing commas")) << r.output;
}

TEST(CheckCli, HighPerformanceReviewConfigIsRejectedForFusedAdam) {
  const auto r = run_zerosim("check " + example("seed004_review_high_performance.json"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r, "error[unknown-optimizer]: optimizer.type: \"FusedAdam\"")) << r.output;
}

TEST(CheckCli, ResolvesAutoAsTheHfTrainerDoes) {
  const auto r = run_zerosim("check " + example("seed000_zero3_offload_auto.json") +
                             " --model llama2-7b --world 16 --micro-batch 4 --grad-accum 2 "
                             "--precision bf16");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r, "zero_optimization.reduce_bucket_size = 16777216")) << r.output;  // 4096^2
  EXPECT_TRUE(has(r, "zero_optimization.stage3_prefetch_bucket_size = 15099494")) << r.output;
  EXPECT_TRUE(has(r, "zero_optimization.stage3_param_persistence_threshold = 40960")) << r.output;
  EXPECT_TRUE(has(r, "train_batch_size = 128")) << r.output;  // 16 x 4 x 2
  EXPECT_TRUE(has(r, "bf16.enabled = true")) << r.output;
  EXPECT_TRUE(has(r, "fp16.enabled = false")) << r.output;
  EXPECT_TRUE(has(r, "gradient_clipping = 1.0")) << r.output;
}

TEST(CheckCli, LeavesAutoUnresolvedWithoutTheFlags) {
  const auto r = run_zerosim("check " + example("seed000_zero3_offload_auto.json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r, "train_micro_batch_size_per_gpu = (unresolved)")) << r.output;
  EXPECT_TRUE(has(r, "pass --micro-batch to resolve it")) << r.output;
  EXPECT_TRUE(has(r, "zero_optimization.reduce_bucket_size = (unresolved)")) << r.output;
  EXPECT_TRUE(has(r, "lint[auto-needs-trainer]")) << r.output;
}

TEST(CheckCli, WarnsAboutTheOldDefaultLossScaler) {
  const std::string path = write_temp(
      "fp16_only_enabled.json",
      R"({"train_batch_size": 8, "fp16": {"enabled": true}, "zero_optimization": {"stage": 2}})");
  const auto old = run_zerosim("check " + path + " --ds-version 0.16.4");
  EXPECT_EQ(old.exit_code, 0) << old.output;
  EXPECT_TRUE(has(old, "warning[fp16-default-scaler]")) << old.output;
  EXPECT_TRUE(has(old, "2^32")) << old.output;
  const auto now = run_zerosim("check " + path);
  EXPECT_FALSE(has(now, "warning[fp16-default-scaler]")) << now.output;
}

TEST(CheckCli, WarnsWhereDeepSpeedSilentlyIgnoresSettings) {
  const std::string path = write_temp("silent.json", R"({
    "train_batch_size": 8,
    "zero_optimization": {"stage": 2, "offload_param": {"device": "cpu"},
                          "offload_optimizer": {"device": "nvme", "nvme_path": "/nvme"}},
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}})");
  const auto r = run_zerosim("check " + path);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r, "warning[ignored-offload]: zero_optimization.offload_param:")) << r.output;
  EXPECT_TRUE(has(r, "warning[nvme-as-cpu]: zero_optimization.offload_optimizer.device:"))
      << r.output;
}

TEST(CheckCli, JsonOutputIsOneObjectAndDeterministic) {
  const std::string args = "check " + example("seed002_zero2_offload_auto.json") +
                           " --model gpt2 --world 8 --micro-batch 8 --grad-accum 1 --json";
  const auto a = run_zerosim(args);
  const auto b = run_zerosim(args);
  EXPECT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(a.output, b.output);
  const auto j = nlohmann::json::parse(a.output);
  EXPECT_EQ(j["valid"], true);
  EXPECT_EQ(j["effective_config"]["zero_optimization"]["stage"], 2);
  EXPECT_EQ(j["effective_config"]["zero_optimization"]["reduce_bucket_size"], 200000000);
  EXPECT_EQ(j["effective_config"]["train_batch_size"], 64);
  EXPECT_EQ(j["origins"]["zero_optimization.overlap_comm"], "file");
  ASSERT_TRUE(j["auto"].is_array());
  EXPECT_GE(j["auto"].size(), 10u);
  EXPECT_TRUE(j["diagnostics"].is_array());
}

TEST(CheckCli, LegacyAndDeprecatedSpellingsAreReadWithWarnings) {
  const std::string path = write_temp("legacy.json", R"({
    "train_batch_size": 16,
    "zero_optimization": {"stage": 3, "cpu_offload": true, "cpu_offload_param": true,
                          "cpu_offload_use_pin_memory": true,
                          "stage3_gather_fp16_weights_on_model_save": true,
                          "max_live_parameters": 2e8},
    "bfloat16": {"enabled": true},
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}})");
  const auto r = run_zerosim("check " + path + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  const auto& z = j["effective_config"]["zero_optimization"];
  EXPECT_EQ(z["offload_optimizer"]["device"], "cpu");
  EXPECT_EQ(z["offload_param"]["device"], "cpu");
  EXPECT_EQ(z["stage3_gather_16bit_weights_on_model_save"], true);
  EXPECT_EQ(z["stage3_max_live_parameters"], 200000000);
  EXPECT_EQ(j["effective_config"]["bf16"]["enabled"], true);
  int deprecated = 0;
  for (const auto& d : j["diagnostics"]) deprecated += d["code"] == "deprecated-key";
  EXPECT_EQ(deprecated, 4);
}

TEST(CheckCli, LegacyBooleanZeroIsStageOne) {
  const std::string path = write_temp(
      "zero_true.json", R"({"train_batch_size": 8, "zero_optimization": true, "allgather_size": 2e8})");
  const auto r = run_zerosim("check " + path + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["effective_config"]["zero_optimization"]["stage"], 1);
  EXPECT_EQ(j["effective_config"]["zero_optimization"]["allgather_bucket_size"], 200000000);
}

TEST(CheckCli, BadFlagValuesExitOneNamingTheFlag) {
  const std::string cfg = example("seed004_review_original.json");
  struct FlagCase {
    std::string args;
    std::string expect;
  };
  const FlagCase cases[] = {
      {"--world abc", "--world: \"abc\" is not an integer"},
      {"--world 0", "--world: 0 is out of range"},
      {"--micro-batch -3", "--micro-batch: -3 is out of range"},
      {"--precision fp8", "--precision: \"fp8\" is not allowed; expected fp32, fp16 or bf16"},
      {"--ds-version 0.9.0", "--ds-version: 0.9.0 is outside"},
      {"--ds-version latest", "--ds-version: \"latest\" is not a version"},
      {"--model llama-9b", "llama-9b"},
      {"--gpu h300", "h300"},
      {"--gpu a100", "a100"},
      {"--gpu h100 --gpus-per-node 9", "--gpus-per-node: 9 is out of range"},
      {"--nodes 2", "--nodes and --gpus-per-node need --gpu"},
      {"--gpu h100 --world 4", "--world 4 disagrees with the cluster's 8 GPUs"},
      {"--model /nonexistent/config.json", "/nonexistent/config.json"},
  };
  for (const FlagCase& c : cases) {
    const auto r = run_zerosim("check " + cfg + " " + c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_TRUE(has(r, c.expect)) << c.args << "\n" << r.output;
  }
}

TEST(CheckCli, MissingFileIsBadInputAndUsageErrorsExitTwo) {
  const auto missing = run_zerosim("check /nonexistent/ds.json");
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_TRUE(has(missing, "/nonexistent/ds.json")) << missing.output;
  EXPECT_EQ(run_zerosim("check").exit_code, 2);
  EXPECT_EQ(run_zerosim("check x.json --no-such-flag").exit_code, 2);
  EXPECT_EQ(run_zerosim("").exit_code, 2);
  EXPECT_EQ(run_zerosim("frobnicate").exit_code, 2);
}

}  // namespace
}  // namespace zs

namespace zs {
namespace {

// What configs/examples/README.md promises for each bundled example.
TEST(CheckCli, BundledExamplesAreAcceptedOrRejectedAsDocumented) {
  struct Expect {
    const char* file;
    int exit_code;
    const char* text;  // must appear in the output
  };
  const Expect expects[] = {
      {"seed000_zero3_offload_auto.json", 0, "\"auto\" values (9)"},
      {"seed001_reference_fp16_adam.json", 0, "OK: 0 error(s)"},
      {"seed001_offload_placeholders.json", 1, "placeholder such as [true|false]"},
      {"seed001_sparse_attention.json", 1, "'None' is Python"},
      {"seed001_flops_profiler.json", 0, "trailing commas at 1 place"},
      {"seed001_checkpoint_data_types.json", 1, "not '='"},
      {"seed001_amp.json", 1, "amp: expected a key in double quotes, found '...'"},
      {"seed002_zero2_offload_auto.json", 0, "OK: 0 error(s)"},
      {"seed003_bfloat16_legacy.json", 1, "'True' is Python"},
      {"seed004_review_original.json", 0, "lint[overlap-comm-off]"},
      {"seed004_review_optimized.json", 0, "lint[fp32-training]"},
      {"seed004_review_high_performance.json", 1, "\"FusedAdam\""},
      {"seed004_zero3_offload_advice.json", 0, "warning[batch-missing]"},
      {"seed004_cpu_offload_advice.json", 0, "warning[ignored-offload]"},
  };
  for (const Expect& e : expects) {
    const auto r = run_zerosim("check " + example(e.file));
    EXPECT_EQ(r.exit_code, e.exit_code) << e.file << "\n" << r.output;
    EXPECT_TRUE(has(r, e.text)) << e.file << " should say " << e.text << "\n" << r.output;
  }
}

}  // namespace
}  // namespace zs
