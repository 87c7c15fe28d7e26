// Helpers for sweep and tune tests: a setup for a config given as text.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "configs/hardware/cluster.h"
#include "models/hf_config.h"
#include "tuning/sweep.h"

namespace zs::tuning {

// A ZeRO-2 config whose bucket size the HF Trainer fills ("auto").
inline constexpr const char* kZero2 = R"({
  "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 1,
  "bf16": {"enabled": true},
  "zero_optimization": {"stage": 2, "reduce_bucket_size": "auto"}})";

inline SweepSetup sweep_setup(const std::string& config_text, const std::string& model = "tiny-gpt",
                              int gpus = 8, std::int64_t seq_len = 64) {
  SweepSetup s;
  auto doc = json::parse_text(config_text, "test_config.json");
  EXPECT_TRUE(doc.ok()) << (doc.ok() ? "" : doc.status().message());
  auto spec = models::resolve_model(model);
  EXPECT_TRUE(spec.ok());
  auto cluster = configs::make_cluster("a100-80gb", 1, gpus);
  EXPECT_TRUE(cluster.ok());
  if (!doc.ok() || !spec.ok() || !cluster.ok()) return s;
  s.base.config_path = "test_config.json";
  s.base.config_document = std::make_shared<const json::Document>(std::move(*doc));
  s.base.model = *spec;
  s.base.cluster = *cluster;
  s.base.seq_len = seq_len;
  s.base.op_names = false;
  s.render = [](const sim::SimulationResult& r, const sim::SimulationRequest&) {
    // Enough of a rendering to compare runs: the figures rows are ranked by.
    return std::to_string(r.memory.gpu_peak_bytes) + "/" + std::to_string(r.time.step_s) + "/" +
           std::to_string(r.time.tokens_per_s);
  };
  return s;
}

inline Axis axis(const std::string& spec) {
  auto a = parse_vary(spec);
  EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.status().message());
  return a.ok() ? *a : Axis{};
}

}  // namespace zs::tuning
