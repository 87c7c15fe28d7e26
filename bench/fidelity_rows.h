// bench/fidelity's rows: reading a published run (bench/data/published_runs.tsv) and simulating
// it as zerosim would the run's own config, model and cluster. fidelity.cc prints, fits and bands
// them.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "configs/hardware/cluster.h"
#include "sim/simulate.h"
#include "sim/uncertainty.h"

namespace zs::fidelity {

struct Row {
  std::map<std::string, std::string> f;  // column -> value
  const std::string& operator[](const std::string& k) const { return f.at(k); }
};

std::vector<std::string> split(const std::string& line, char sep);
bool is_int(const std::string& s);

// The family a row's error is summarised in.
std::string family(const Row& r);

// How the row's framework runs the model, from its source (the rows' notes and sources):
// - HF Trainer + DeepSpeed 2021 (AT: transformers 4.12): eager modules and eager attention (SDPA
//   came to HF in 4.36); Megatron-LM GPT-2 in DeepSpeedExamples (DT, 2020): unfused attention
//   scores and eager elementwise ops, taken as HF's eager GPT-2 modules;
// - Granite 7B with DeepSpeed (GR, 2024), Qwen2.5 with DeepSpeed 0.17-0.18 (ZF, 2025) and this
//   project's GPT-2 runs of DeepSpeed 0.19.6 (DH, 2026): HF's eager modules with SDPA attention;
// - BLOOM-560M with HF + DeepSpeed (BL, 2023): HF's BloomAttention is eager (baddbmm with the
//   ALiBi bias, softmax);
// - llm.c (LC): its own fused kernels and cuDNN flash attention;
// - llm-foundry's MPT (MF): flash attention (triton) and single-kernel GELU and LayerNorm, no
//   dropout: fused.
struct Software {
  sim::KernelStyle kernels = sim::KernelStyle::kEager;
  bool flash_attention = true;
};
Software software(const Row& r);

// Why the row cannot be simulated, or "".
std::string unsupported(const Row& r);

// The row's model as a config.json, and its ds_config.
std::string model_json(const Row& r);
std::string config_json(const Row& r);

struct Outcome {
  std::string error;  // why it was not simulated
  double predicted = 0;
  double measured = 0;
  std::int64_t params = 0;
  bool time_metric = false;
  sim::Regime regime = sim::Regime::kGpuBound;
};

// Generations the calibration fits separately: tensor cores before Ampere (V100, TITAN RTX),
// Ampere, Hopper.
constexpr std::array<std::string_view, 3> kGenerations = {"volta-turing", "ampere", "hopper"};
std::string generation(const configs::GpuSpec& g);

// Profile values that replace the defaults while fitting (empty: the defaults).
struct Overrides {
  std::map<std::string, double> gemm_sustained;  // generation -> value
  double host_python_slowdown = 0;               // 0: the default
  double host_memory_efficiency = 0;             // 0: the default
  double sync_s = 0;                             // 0: the default
};

// The row simulated with the profile's defaults replaced by `ov`; *gen gets its GPU's generation.
Outcome simulate_row(const Row& r, const Overrides& ov = {}, std::string* gen = nullptr);

// Predicted faster is negative for step_s and positive for throughputs: the error printed is
// always (predicted speed - measured speed) / measured speed, so "-30%" means 30% too slow.
double speed_error(const std::string& metric, double predicted, double measured);

}  // namespace zs::fidelity
