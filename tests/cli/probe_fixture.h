// The fixture of the end-to-end probe tests (reliability_test.cc, reliability3_test.cc): a fresh
// directory per test (ctest runs the tests in parallel processes), kept when the test fails, and
// the issues' c.json in it (bf16, ZeRO-2, micro-batch 1).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace zs::testing {

class ProbeFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::path(::testing::TempDir()) /
            ("zs_probe_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    c_ = write("c.json", R"({"train_micro_batch_size_per_gpu":1,"bf16":{"enabled":true},)"
                         R"("zero_optimization":{"stage":2}})");
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = dir_ + "/" + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  std::string dir_;
  std::string c_;
};

}  // namespace zs::testing
