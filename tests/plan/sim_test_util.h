// Helpers for plan/ tests: simulate a config given as text.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <string>

#include "configs/hardware/cluster.h"
#include "models/hf_config.h"
#include "sim/simulate.h"

namespace zs::plan {

struct SimSetup {
  std::string model = "gpt2";
  std::optional<models::ModelSpec> spec;  // simulated instead of `model` when set
  std::string gpu = "a100-80gb";
  int nodes = 1;
  int gpus_per_node = 8;
  std::int64_t seq_len = 1024;
  bool checkpointing = false;
  bool flash = true;
  configs::DsVersion version = configs::kLatestDsVersion;  // --ds-version
  sim::KernelStyle kernels = sim::KernelStyle::kEager;     // --kernels
  std::optional<plan::LoadDtype> load_dtype;               // --load-dtype; unset: not counted
};

inline sim::SimulationResult simulate_text(const std::string& config, const SimSetup& s = {}) {
  // Unique across the test processes ctest runs in parallel.
  static int counter = 0;
  const std::string path = ::testing::TempDir() + "zs_plan_" + std::to_string(getpid()) + "_" +
                           std::to_string(counter++) + ".json";
  std::ofstream(path) << config;
  sim::SimulationRequest r;
  r.config_path = path;
  auto model = s.spec ? Result<models::ModelSpec>(*s.spec) : models::resolve_model(s.model);
  EXPECT_TRUE(model.ok()) << model.status().message();
  auto cluster = configs::make_cluster(s.gpu, s.nodes, s.gpus_per_node);
  EXPECT_TRUE(cluster.ok()) << cluster.status().message();
  r.model = *model;
  r.cluster = *cluster;
  r.seq_len = s.seq_len;
  r.activation_checkpointing = s.checkpointing;
  r.flash_attention = s.flash;
  r.check.version = s.version;
  r.load_dtype = s.load_dtype;
  if (s.kernels != sim::KernelStyle::kEager) {
    r.profile = sim::default_cost_profile(r.cluster);
    r.profile->kernel_style = s.kernels;
  }
  auto result = sim::simulate(r);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? std::move(result).value() : sim::SimulationResult{};
}

inline std::string data_path(const std::string& name) {
  return std::string(ZS_SOURCE_DIR) + "/tests/plan/data/" + name;
}

}  // namespace zs::plan
