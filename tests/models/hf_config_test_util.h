// Helpers of the Hugging Face config.json tests: the shipped files, and files written for a test.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "models/hf_config.h"

namespace zs::models::hf_test {

// models/hf_configs/`file` in the source tree.
inline std::string shipped(std::string_view file) {
  return std::string(ZS_SOURCE_DIR) + "/models/hf_configs/" + std::string(file);
}

// Writes `text` to a fresh file under the test's temp directory (one per test process); returns
// its path.
inline std::string write_temp(const std::string& name, std::string_view text) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("zs_models_hf_config_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

// Loads `text` as a config.json and returns the error message (empty if it loaded).
inline std::string load_error(const std::string& name, std::string_view text) {
  const Result<ModelSpec> r = load_hf_config(write_temp(name, text));
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

}  // namespace zs::models::hf_test
