// Helpers for plan/ tests: a config planned (plan/plan_step.h) and its memory replayed
// (plan/step_memory.h), which is what simulate returns without timing; no test here goes
// through sim/.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <string>

#include "configs/hardware/cluster.h"
#include "models/hf_config.h"
#include "plan/plan_step.h"
#include "plan/step_memory.h"

namespace zs::plan {

struct PlanSetup {
  std::string model = "gpt2";
  std::optional<models::ModelSpec> spec;  // planned instead of `model` when set
  std::string gpu = "a100-80gb";
  int nodes = 1;
  int gpus_per_node = 8;
  std::int64_t seq_len = 1024;
  bool checkpointing = false;
  bool flash = true;
  configs::DsVersion version = configs::kLatestDsVersion;  // --ds-version
  std::optional<LoadDtype> load_dtype;                     // --load-dtype; unset: not counted
};

// A step's plan and its memory.
struct PlannedText {
  configs::LoadedConfig config;  // as checked
  BuiltPlan built;
  MemoryReport memory;
  std::optional<ModelLoad> load;  // set when the memory request's load_dtype is
  std::int64_t params = 0;        // the graph's trainable parameters
  std::int64_t seq_len = 0;       // the one planned
};

// plan_step, then step_memory. Fails as plan_step does (a config with errors lists them).
inline Result<PlannedText> plan_with_memory(const StepRequest& request,
                                            const MemoryRequest& memory = {}) {
  ZS_ASSIGN_OR_RETURN(PlannedStep step, plan_step(request));
  StepMemory m = step_memory(step.built, request.model, request.cluster, memory);
  PlannedText out;
  out.memory = std::move(m.memory);
  out.load = std::move(m.load);
  out.params = step.built.layout.psi;
  out.seq_len = step.seq_len;
  out.config = std::move(step.config);
  out.built = std::move(step.built);
  return out;
}

// The request for a config given as text (written to a temporary file) and setup `s`.
inline StepRequest step_request(const std::string& config, const PlanSetup& s) {
  // Unique across the test processes ctest runs in parallel.
  static int counter = 0;
  const std::string path = ::testing::TempDir() + "zs_plan_" + std::to_string(getpid()) + "_" +
                           std::to_string(counter++) + ".json";
  std::ofstream(path) << config;
  StepRequest r;
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
  return r;
}

// The plan of a config given as text.
inline PlannedText plan_text(const std::string& config, const PlanSetup& s = {}) {
  auto result =
      plan_with_memory(step_request(config, s), MemoryRequest{.load_dtype = s.load_dtype});
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? std::move(result).value() : PlannedText{};
}

inline std::string data_path(const std::string& name) {
  return std::string(ZS_SOURCE_DIR) + "/tests/plan/data/" + name;
}

}  // namespace zs::plan
