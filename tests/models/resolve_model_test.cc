// resolve_model (models/hf_config.h, models/resolve_model.cc): zoo names, files, directories and
// hub ids in the local cache.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/hf_config.h"
#include "models/parameters.h"
#include "tests/models/hf_config_test_util.h"

namespace zs::models {
namespace {

namespace fs = std::filesystem;
using hf_test::shipped;
using hf_test::write_temp;

TEST(HfConfig, AHubIdIsReadFromTheLocalCacheOrNamesWhereToPutIt) {
  const fs::path cache = fs::path(::testing::TempDir()) / ("zs_hub_" + std::to_string(getpid()));
  setenv("HF_HUB_CACHE", cache.c_str(), 1);
  const Result<ModelSpec> missing = resolve_model("meta-llama/Meta-Llama-3.1-8B");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  const std::string m = missing.status().message();
  EXPECT_NE(m.find("not in the local cache"), std::string::npos) << m;
  EXPECT_NE(m.find((cache / "models--meta-llama--Meta-Llama-3.1-8B").string()), std::string::npos)
      << m;
  EXPECT_NE(m.find("huggingface-cli download meta-llama/Meta-Llama-3.1-8B config.json"),
            std::string::npos)
      << m;
  // Cached as huggingface_hub lays it out: refs/main names the snapshot.
  const fs::path repo = cache / "models--meta-llama--Meta-Llama-3.1-8B";
  fs::create_directories(repo / "refs");
  fs::create_directories(repo / "snapshots" / "abc123");
  std::ofstream(repo / "refs" / "main") << "abc123";
  std::ofstream(repo / "snapshots" / "abc123" / "config.json")
      << R"({"model_type": "gpt2", "vocab_size": 256, "n_embd": 64, "n_layer": 2, "n_head": 4,
             "n_positions": 64})";
  const Result<ModelSpec> cached = resolve_model("meta-llama/Meta-Llama-3.1-8B");
  ASSERT_TRUE(cached.ok()) << cached.status().message();
  EXPECT_EQ(parameter_count(*cached), 120'576);
  unsetenv("HF_HUB_CACHE");
  fs::remove_all(cache);
}

TEST(HfConfig, ResolveModelTakesZooNamesFilesAndDirectories) {
  EXPECT_EQ(resolve_model("GPT2-medium")->name, "gpt2-medium");
  EXPECT_EQ(resolve_model("meta-llama/Llama-2-7b-hf")->hf_repo, "meta-llama/Llama-2-7b-hf");
  EXPECT_EQ(parameter_count(resolve_model(shipped("Qwen2-7B.json")).value()), 7'615'616'512);

  const std::string path = write_temp("config.json", R"({"model_type": "gpt2", "vocab_size": 256,
      "n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 64})");
  const Result<ModelSpec> dir = resolve_model(fs::path(path).parent_path().string());
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  EXPECT_EQ(parameter_count(*dir), 120'576);  // tiny-gpt's shape

  const Result<ModelSpec> missing = resolve_model("no/such/config.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no/such/config.json"), std::string::npos);

  const Result<ModelSpec> typo = resolve_model("gtp2");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().code(), StatusCode::kNotFound);
  EXPECT_NE(typo.status().message().find("did you mean \"gpt2\""), std::string::npos);
}

}  // namespace
}  // namespace zs::models
