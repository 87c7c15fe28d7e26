// Every file of ../shared/corpus/ds_configs (real configs from public projects) is accepted or
// rejected by `zerosim check` as pinned here, with a clear message and never a crash. Skipped when
// the corpus is not next to the checkout (set ZS_SHARED_DIR to point elsewhere).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "tests/cli/run_zerosim.h"

namespace zs {
namespace {

namespace fs = std::filesystem;

fs::path corpus_dir() {
  if (const char* env = std::getenv("ZS_SHARED_DIR")) return fs::path(env) / "corpus/ds_configs";
  return fs::path(ZS_SOURCE_DIR) / "../shared/corpus/ds_configs";
}

// The files DeepSpeed 0.19.6 rejects, and the JSON paths of their errors. Every other file is
// accepted (exit 0), possibly with warnings.
const std::map<std::string, std::vector<std::string>> kRejected = {
    // bf16 became a pydantic model in 0.17.1: fp16's loss-scaler keys are not bf16 fields.
    {"hiyouga__LLaMA-Factory__examples__deepspeed__ds_z3_alst_config.json",
     {"bf16.auto_cast", "bf16.loss_scale", "bf16.initial_scale_power", "bf16.loss_scale_window",
      "bf16.hysteresis", "bf16.min_loss_scale"}},
    // A misspelt key in a pydantic section.
    {"microsoft__DeepSpeedExamples__Megatron-LM-v1.1.5-ZeRO3__examples__ds_zero_stage_infinity_"
     "config.json",
     {"zero_optimization.stage3_param_persitance_threshold"}},
    // "DeepSpeed_Adam" is an optimizer name of DeepSpeed before 0.3.
    {"microsoft__DeepSpeedExamples__Megatron-LM__scripts__ds_zero-offload_config.json",
     {"optimizer.type"}},
    // Integer fields are ge=0; "_"-prefixed keys are unknown to pydantic.
    {"microsoft__DeepSpeedExamples__inference__huggingface__ds_config_nvme.json",
     {"zero_optimization.stage3_max_reuse_distance",
      "zero_optimization._stage3_param_persistence_threshold"}},
    // "bfp16" is not a communication dtype; loss_scale is not a bf16 field.
    {"microsoft__Megatron-DeepSpeed__ds_zero2_config_bf16.json",
     {"communication_data_type", "bfloat16.loss_scale"}},
    // Unquoted placeholders that a shell script fills in: not JSON.
    {"microsoft__Megatron-DeepSpeed__examples__random_ltd__configs__ds_config_gpt_0.125B_"
     "TEMPLATE.json",
     {"train_batch_size"}},
};

TEST(Corpus, EveryFileIsAcceptedOrRejectedAsPinned) {
  const fs::path dir = corpus_dir();
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no corpus at " << dir;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 40u);
  std::set<std::string> seen;
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    seen.insert(name);
    const testing::RunResult r = testing::run_zerosim("check '" + file.string() + "'");
    EXPECT_EQ(r.output.find("internal error"), std::string::npos) << name << "\n" << r.output;
    const auto it = kRejected.find(name);
    if (it == kRejected.end()) {
      EXPECT_EQ(r.exit_code, 0) << name << "\n" << r.output;
      continue;
    }
    EXPECT_EQ(r.exit_code, 1) << name << "\n" << r.output;
    EXPECT_NE(r.output.find(file.string()), std::string::npos) << name << "\n" << r.output;
    for (const std::string& path : it->second) {
      EXPECT_NE(r.output.find(": " + path + ": "), std::string::npos)
          << name << " should name " << path << "\n" << r.output;
    }
  }
  for (const auto& [name, paths] : kRejected) EXPECT_TRUE(seen.count(name)) << name;
}

TEST(Corpus, OlderDeepSpeedOnlyWarnsAboutUnknownBf16Keys) {
  const fs::path file = corpus_dir() / "hiyouga__LLaMA-Factory__examples__deepspeed__ds_z3_alst_config.json";
  if (!fs::exists(file)) GTEST_SKIP() << "no corpus";
  // Before 0.17.1 bf16 was a plain dict: unknown keys were ignored.
  const testing::RunResult r = testing::run_zerosim("check '" + file.string() + "' --ds-version 0.16.4");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("warning[unknown-key]: bf16.loss_scale:"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace zs
