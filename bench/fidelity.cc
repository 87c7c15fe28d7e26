// Fidelity: zerosim's predictions against training runs measured and published by others
// (bench/data/published_runs.tsv, copied from ../shared/calibration with its sources; its
// README there defines the columns). Every row zerosim can express is simulated and printed
// with the measured value, the prediction and the error; then the mean absolute percentage
// error per family of rows, the OOM verdicts, and, where a source measured one setting at
// several ZeRO stages, whether the predicted order of the stages is the measured one.
// A benchmark, not a test: it asserts nothing. The first increment of the fidelity work: it
// measures, it fits nothing.
//
// Expressible rows: decoder-only models with an integer layer count, a GPU with a zerosim
// preset, a stated precision and micro-batch. The model is built from the row's dimensions:
// GPT-2's architecture for GPT-2, Megatron GPT-2, llm.c and MPT (MPT has ALiBi and no biases:
// the parameter count printed beside shows the difference), Llama-2-7B's for Granite 7B.
// Peers that are not DeepSpeed (llm.c, FSDP) are simulated as DeepSpeed at the row's stage: the
// gap is the framework's, and the table says so by family.
//
// Usage: fidelity [TSV=bench/data/published_runs.tsv] (run from the source directory)
//        fidelity --fit OUT.json [TSV]: the calibration fit (scripts/calibrate_published.sh)
//        fidelity --bands FIT.json OUT.json [TSV]: the uncertainty bands by regime from the
//          fit's left-out residuals (sim/uncertainty.h; scripts/calibrate_published.sh)
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_reader.h"
#include "configs/hardware/cluster.h"
#include "models/hf_config.h"
#include "sim/simulate.h"
#include "sim/uncertainty.h"

namespace {

struct Row {
  std::map<std::string, std::string> f;  // column -> value
  const std::string& operator[](const std::string& k) const { return f.at(k); }
};

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep)) out.push_back(cell);
  return out;
}

bool is_int(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/zs_fidelity_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

// The family a row's error is summarised in.
std::string family(const Row& r) {
  const std::string id = r["id"].substr(0, 2);
  if (id == "AT" || id == "DT") return "DeepSpeed V100";
  if (id == "GR" || id == "ZF") return "DeepSpeed A100";
  if (id == "DH") return "DeepSpeed H100";
  if (id == "LC") return "llm.c A100 (peer)";
  if (id == "MF") return "FSDP A100/H100 (peer)";
  if (id == "BL") return "DeepSpeed TITAN RTX";
  return "other";
}

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
  zs::sim::KernelStyle kernels = zs::sim::KernelStyle::kEager;
  bool flash_attention = true;
};
Software software(const Row& r) {
  const std::string id = r["id"].substr(0, 2);
  if (id == "AT" || id == "DT" || id == "BL") return {zs::sim::KernelStyle::kEager, false};
  if (id == "LC" || id == "MF") return {zs::sim::KernelStyle::kFused, true};
  return {zs::sim::KernelStyle::kEager, true};
}

// Why the row cannot be simulated, or "".
std::string unsupported(const Row& r) {
  if (!is_int(r["layers"])) return "encoder-decoder (" + r["layers"] + " layers)";
  const std::string m = r["model"];
  if (m.find("bert") != std::string::npos) return "encoder-only";
  // Turing (TITAN RTX) has no bf16: a run there with unstated precision is taken as fp16.
  if (r["precision"] == "NA" && r["gpu"].find("titan") == std::string::npos) {
    return "precision not stated";
  }
  if (!is_int(r["micro_batch"]) || !is_int(r["gpus_per_node"])) return "batch or GPUs not stated";
  // An A100 of unstated memory is taken as 80 GB for a time row (memory does not enter it).
  const bool unknown_memory = r["gpu"].find("unknown") != std::string::npos &&
                              (r["metric"] == "oom" || r["metric"] == "peak_gib");
  if (unknown_memory) return "no preset for GPU " + r["gpu"];
  return "";
}

std::string gpu_preset(const Row& r) {
  const std::string gpu = r["gpu"];
  if (gpu == "a100-80gb-sxm" || gpu == "a100-unknown") return "a100-80gb";
  // 16 V100 32GB in one node: a DGX-2 (the rows' notes say so). A V100-SXM3 is the DGX-2's
  // module (the row's source names it), so its host is the DGX-2's too.
  if (gpu == "v100-32gb" && r["gpus_per_node"] == "16") return "v100-32gb-dgx2";
  if (gpu == "v100-32gb-sxm3") return "v100-32gb-dgx2";
  return gpu;
}

// The vocabulary the run's embedding and LM head have. Megatron-LM pads it to a multiple of
// make-vocab-size-divisible-by (default 128: megatron/arguments.py, _vocab_size_with_padding);
// llm.c to padded_vocab_size = 50304 (train_gpt2.cu). Both rows' parameter counts are those of
// 50304 words. HF models keep their own (GPT-2: 50257, which no 16-byte grid divides).
std::string vocab_as_run(const Row& r) {
  const std::string id = r["id"].substr(0, 2);
  if (id != "DT" && id != "LC") return r["vocab"];
  const long v = std::stol(r["vocab"]);
  return std::to_string((v + 127) / 128 * 128);
}

std::string model_json(const Row& r) {
  const std::string seq = r["seq_len"];
  const long positions = std::max(1024L, std::stol(seq));
  if (r["model"].find("granite") != std::string::npos) {
    return R"({"model_type":"llama","num_hidden_layers":)" + r["layers"] + R"(,"hidden_size":)" +
           r["hidden"] + R"(,"intermediate_size":11008,"num_attention_heads":)" + r["heads"] +
           R"(,"num_key_value_heads":)" + r["heads"] + R"(,"vocab_size":)" + r["vocab"] +
           R"(,"max_position_embeddings":)" + std::to_string(positions) + "}";
  }
  // Qwen2.5-1.5B's and -3B's config.json (Qwen/Qwen2.5-1.5B, -3B on the Hugging Face hub): GQA
  // with 2 KV heads, intermediate 8960 and 11008, tied embeddings, biases on q, k, v (the qwen2
  // model type has them); transformers' Qwen2 on the meta device counts the rows' parameters.
  if (r["model"] == "Qwen/Qwen2.5-1.5B" || r["model"] == "Qwen/Qwen2.5-3B") {
    const char* intermediate = r["model"] == "Qwen/Qwen2.5-3B" ? "11008" : "8960";
    return R"({"model_type":"qwen2","num_hidden_layers":)" + r["layers"] + R"(,"hidden_size":)" +
           r["hidden"] + R"(,"intermediate_size":)" + intermediate + R"(,"num_attention_heads":)" +
           r["heads"] + R"(,"num_key_value_heads":2,"vocab_size":)" + r["vocab"] +
           R"(,"max_position_embeddings":32768,"tie_word_embeddings":true})";
  }
  // BLOOM (ALiBi, no dropout) as GPT-2 without dropout: its learned position table is the
  // difference the parameter count beside shows. This project's own runs (DH) set dropout 0.
  const bool no_dropout =
      r["model"].find("bloom") != std::string::npos || r["id"].substr(0, 2) == "DH";
  const std::string dropout = no_dropout ? R"(,"resid_pdrop":0,"attn_pdrop":0,"embd_pdrop":0)" : "";
  return R"({"model_type":"gpt2","n_layer":)" + r["layers"] + R"(,"n_embd":)" + r["hidden"] +
         R"(,"n_head":)" + r["heads"] + R"(,"vocab_size":)" + vocab_as_run(r) +
         R"(,"n_positions":)" + std::to_string(positions) + dropout + "}";
}

std::string config_json(const Row& r) {
  const std::string prec = r["precision"] == "NA" ? "fp16" : r["precision"];
  const std::string p = prec.find("fp16") != std::string::npos   ? "fp16"
                        : prec.find("bf16") != std::string::npos ? "bf16"
                                                                 : "";
  std::string zero = R"("stage": )" + r["stage"];
  if (r["overlap_comm"] == "true" || r["overlap_comm"] == "false") {
    zero += R"(, "overlap_comm": )" + r["overlap_comm"];
  }
  if (r["reduce_bucket_size"] != "default" && r["reduce_bucket_size"] != "NA") {
    zero += R"(, "reduce_bucket_size": )" + r["reduce_bucket_size"];
  }
  if (r["offload_optimizer"] == "cpu") zero += R"(, "offload_optimizer": {"device": "cpu"})";
  if (r["offload_param"] == "cpu") zero += R"(, "offload_param": {"device": "cpu"})";
  const std::string ga = is_int(r["grad_accum"]) ? r["grad_accum"] : "1";
  // A client torch.optim.AdamW (the row's notes say so) is what DeepSpeed's torch_adam builds: the
  // unfused optimizer wrappers, not FusedAdam.
  const bool torch_adam = r["notes"].find("client torch.optim.AdamW") != std::string::npos;
  const bool clipping = r["notes"].find("gradient_clipping 1.0") != std::string::npos;
  return R"({"train_micro_batch_size_per_gpu": )" + r["micro_batch"] +
         R"(, "gradient_accumulation_steps": )" + ga +
         (p.empty() ? "" : R"(, ")" + p + R"(": {"enabled": true})") +
         (clipping ? R"(, "gradient_clipping": 1.0)" : "") +
         R"(, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4)" +
         (torch_adam ? R"(, "torch_adam": true)" : "") + R"(}}, "zero_optimization": {)" + zero +
         "}}";
}

struct Outcome {
  std::string error;  // why it was not simulated
  double predicted = 0;
  double measured = 0;
  std::int64_t params = 0;
  bool time_metric = false;
  zs::sim::Regime regime = zs::sim::Regime::kGpuBound;
};

// Generations the calibration fits separately: tensor cores before Ampere (V100, TITAN RTX),
// Ampere, Hopper.
constexpr std::array<std::string_view, 3> kGenerations = {"volta-turing", "ampere", "hopper"};
std::string generation(const zs::configs::GpuSpec& g) {
  if (g.fp8_flops_per_s.has_value()) return "hopper";
  if (g.bf16_flops_per_s.has_value()) return "ampere";
  return "volta-turing";
}

// Profile values that replace the defaults while fitting (empty: the defaults).
struct Overrides {
  std::map<std::string, double> gemm_sustained;  // generation -> value
  double host_python_slowdown = 0;               // 0: the default
  double host_memory_efficiency = 0;             // 0: the default
  double sync_s = 0;                             // 0: the default
};

Outcome simulate_row(const Row& r, const Overrides& ov = {}, std::string* gen = nullptr) {
  Outcome o;
  o.error = unsupported(r);
  if (!o.error.empty()) return o;
  const std::string id = r["id"];
  auto model = zs::models::load_hf_config(temp_file(id + "_model.json", model_json(r)));
  if (!model.ok()) return o.error = model.status().message(), o;
  // TITAN RTX has no preset: bench/data/titan_rtx_workstation.json describes it.
  auto cluster = r["gpu"].find("titan") != std::string::npos
                     ? zs::configs::load_cluster_file("bench/data/titan_rtx_workstation.json")
                     : zs::configs::make_cluster(gpu_preset(r), std::stoi(r["nodes"]),
                                                 std::stoi(r["gpus_per_node"]));
  if (!cluster.ok()) return o.error = cluster.status().message(), o;
  zs::sim::SimulationRequest q;
  q.config_path = temp_file(id + "_ds.json", config_json(r));
  const Software sw = software(r);
  q.flash_attention = sw.flash_attention;
  q.profile = zs::sim::default_cost_profile(*cluster);
  q.profile->kernel_style = sw.kernels;
  const std::string g = generation(cluster->gpu);
  if (gen != nullptr) *gen = g;
  if (auto it = ov.gemm_sustained.find(g); it != ov.gemm_sustained.end()) {
    q.profile->gemm_sustained = it->second;
  }
  if (ov.host_python_slowdown > 0) q.profile->host_python_slowdown = ov.host_python_slowdown;
  if (ov.host_memory_efficiency > 0) {
    q.profile->host_memory_efficiency = ov.host_memory_efficiency;
  }
  if (ov.sync_s > 0) q.profile->sync_s = ov.sync_s;
  q.model = *model;
  q.cluster = *cluster;
  q.seq_len = std::stol(r["seq_len"]);
  q.activation_checkpointing = r["checkpointing"] == "1";
  auto result = zs::sim::simulate(q);
  if (!result.ok()) return o.error = result.status().message(), o;
  const zs::sim::SimulationResult& s = *result;
  o.params = s.params;
  o.regime = zs::sim::classify_regime(s.time, s.built.layout);
  o.measured = std::stod(r["value"]);
  const std::string metric = r["metric"];
  o.time_metric = metric != "oom" && metric != "peak_gib";
  if (metric == "step_s") {
    o.predicted = s.time.step_s;
  } else if (metric == "samples_per_s") {
    o.predicted = s.time.samples_per_s;
  } else if (metric == "tokens_per_s") {
    o.predicted = s.time.tokens_per_s;
  } else if (metric == "tflops_per_gpu") {
    o.predicted = s.time.tflops_per_gpu;
  } else if (metric == "oom") {
    o.predicted = s.memory.gpu_oom ? 1 : 0;
  } else if (metric == "peak_gib") {
    // nvidia-smi shows what the caching allocator reserves, context and NCCL included.
    o.predicted = static_cast<double>(s.memory.gpu_reserved_peak_bytes) / (1 << 30);
  } else {
    o.error = "unknown metric " + metric;
  }
  return o;
}

// Predicted faster is negative for step_s and positive for throughputs: the error printed is
// always (predicted speed - measured speed) / measured speed, so "-30%" means 30% too slow.
double speed_error(const std::string& metric, double predicted, double measured) {
  if (metric == "step_s") return measured / predicted - 1;
  return predicted / measured - 1;
}

}  // namespace

// The fit (--fit): host_python_slowdown, host_memory_efficiency and, per generation,
// gemm_sustained that minimise the mean absolute speed error over the time rows, by coordinate
// descent over a grid for each (three rounds from the defaults; a parameter keeps its value
// unless another on its grid does strictly better). Each row is then predicted by a fit to the
// others (two rounds from the full fit). Writes the parameters with every row's residual as JSON
// to `out`.
int fit(const std::vector<Row>& rows, const std::string& out_path) {
  const std::vector<double> slowdowns = {0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25,
                                         2.5, 2.75, 3, 3.5,  4,   5,    6};
  const std::vector<double> memory = {0.05, 0.075, 0.1,   0.125, 0.15, 0.2, 0.25,
                                      0.3,  0.35,  0.426, 0.5,   0.6,  0.8, 1.0};
  // A sync's round trip past the work it waits for: the launch latency of the kernel it waits
  // on, the scalar's copy and the host's wake-up, 5-50 us on the GPUs of the table (the range
  // stops where one round trip would be longer than all three together). The profile the fit
  // writes shows how little the rows constrain it.
  const std::vector<double> syncs = {5e-6, 7e-6, 10e-6, 15e-6, 20e-6, 30e-6, 40e-6, 50e-6};
  std::vector<double> scales;
  for (int k = 0; k <= 10; ++k) scales.push_back(0.5 + 0.05 * k);
  // The time rows and their generations.
  std::vector<const Row*> time_rows;
  std::vector<std::string> gens;
  for (const Row& r : rows) {
    std::string g;
    const Outcome o = simulate_row(r, {}, &g);
    if (o.error.empty() && o.time_metric) {
      time_rows.push_back(&r);
      gens.push_back(g);
    }
  }
  auto error_of = [&](std::size_t i, const Overrides& ov) {
    const Outcome o = simulate_row(*time_rows[i], ov);
    return std::abs(speed_error((*time_rows[i])["metric"], o.predicted, o.measured));
  };
  // Total error over the rows but `left_out`, restricted to generation `g` when not empty.
  auto total = [&](const Overrides& ov, int left_out, const std::string& g) {
    double sum = 0;
    for (std::size_t i = 0; i < time_rows.size(); ++i) {
      if (static_cast<int>(i) == left_out || (!g.empty() && gens[i] != g)) continue;
      sum += error_of(i, ov);
    }
    return sum;
  };
  auto descend = [&](Overrides ov, int left_out, int rounds, bool verbose) {
    auto try_values = [&](const std::vector<double>& grid, double* value, const std::string& g) {
      double best = total(ov, left_out, g);
      double best_v = *value;
      for (double v : grid) {
        *value = v;
        const double e = total(ov, left_out, g);
        if (e < best - 1e-12) {
          best = e;
          best_v = v;
        }
      }
      *value = best_v;
    };
    for (int round = 0; round < rounds; ++round) {
      try_values(slowdowns, &ov.host_python_slowdown, "");
      try_values(memory, &ov.host_memory_efficiency, "");
      try_values(syncs, &ov.sync_s, "");
      for (const std::string_view gv : kGenerations) {
        const std::string g(gv);
        try_values(scales, &ov.gemm_sustained[g], g);
      }
      if (verbose) {
        std::fprintf(stderr,
                     "fit: round %d: host_python_slowdown %.2f, host_memory_efficiency %.3f, "
                     "sync_s %.0f us -> mean abs error %.1f%%\n",
                     round + 1, ov.host_python_slowdown, ov.host_memory_efficiency, ov.sync_s * 1e6,
                     100 * total(ov, left_out, "") / time_rows.size());
      }
    }
    return ov;
  };
  Overrides start;
  start.host_python_slowdown = 3.0;
  start.host_memory_efficiency = 109.0 / 256.0;
  start.sync_s = 7e-6;
  for (const std::string_view gv : kGenerations) start.gemm_sustained[std::string(gv)] = 1.0;
  const Overrides best = descend(start, -1, 3, true);
  // Leave-one-out: each row predicted by the fit to the others, the error a new run of a kind
  // already in the table would see.
  std::vector<double> loo(time_rows.size());
  double loo_sum = 0;
  for (std::size_t i = 0; i < time_rows.size(); ++i) {
    const Outcome o = simulate_row(*time_rows[i], descend(best, static_cast<int>(i), 2, false));
    loo[i] = speed_error((*time_rows[i])["metric"], o.predicted, o.measured);
    loo_sum += std::abs(loo[i]);
  }
  // Residuals at the optimum and with the parameters at 1.
  std::string json =
      "{\n  \"parameters\": {\n    \"host_python_slowdown\": " +
      std::to_string(best.host_python_slowdown) +
      ",\n    \"host_memory_efficiency\": " + std::to_string(best.host_memory_efficiency) +
      ",\n    \"sync_s\": " + std::to_string(best.sync_s) + ",\n    \"gemm_sustained\": {";
  bool first = true;
  for (const auto& [g, v] : best.gemm_sustained) {
    json += (first ? "" : ", ") + std::string("\"") + g + "\": " + std::to_string(v);
    first = false;
  }
  // The ranges searched: each grid's ends.
  auto range = [](const char* name, const std::vector<double>& grid) {
    char cell[96];
    std::snprintf(cell, sizeof cell, "\"%s\": [%.6g, %.6g]", name, grid.front(), grid.back());
    return std::string(cell);
  };
  json += "}\n  },\n  \"ranges\": {" + range("host_python_slowdown", slowdowns) + ", " +
          range("host_memory_efficiency", memory) + ", " + range("sync_s", syncs) + ", " +
          range("gemm_sustained", scales) + "},\n";
  // How well the data pin each global parameter: the mean absolute error along its grid with
  // the others at the optimum. A flat profile means the rows barely constrain that parameter.
  auto profile = [&](const std::string& name, const std::vector<double>& grid,
                     double Overrides::*field) {
    std::string out = "    \"" + name + "\": [";
    for (std::size_t k = 0; k < grid.size(); ++k) {
      Overrides ov = best;
      ov.*field = grid[k];
      char cell[64];
      std::snprintf(cell, sizeof cell, "%s[%.6g, %.4f]", k ? ", " : "", grid[k],
                    total(ov, -1, "") / time_rows.size());
      out += cell;
    }
    return out + "]";
  };
  json += "  \"mean_abs_speed_error_along\": {\n" +
          profile("host_python_slowdown", slowdowns, &Overrides::host_python_slowdown) + ",\n" +
          profile("host_memory_efficiency", memory, &Overrides::host_memory_efficiency) + ",\n" +
          profile("sync_s", syncs, &Overrides::sync_s) + "\n  },\n  \"residuals\": [\n";
  Overrides ones;
  ones.host_python_slowdown = 1;
  ones.host_memory_efficiency = 1;
  ones.sync_s = 7e-6;
  for (const std::string_view gv : kGenerations) {
    const std::string g(gv);
    ones.gemm_sustained[g] = 1;
  }
  double sum_before = 0, sum_after = 0;
  for (std::size_t i = 0; i < time_rows.size(); ++i) {
    const Row& r = *time_rows[i];
    const Outcome a = simulate_row(r, best);
    const Outcome b = simulate_row(r, ones);
    const double ea = speed_error(r["metric"], a.predicted, a.measured);
    const double eb = speed_error(r["metric"], b.predicted, b.measured);
    sum_before += std::abs(eb);
    sum_after += std::abs(ea);
    char line[320];
    std::snprintf(line, sizeof line,
                  "    {\"id\": \"%s\", \"generation\": \"%s\", \"measured\": %.6g, "
                  "\"predicted\": %.6g, \"speed_error\": %.4f, \"speed_error_unfitted\": %.4f, "
                  "\"speed_error_left_out\": %.4f}%s\n",
                  r["id"].c_str(), gens[i].c_str(), a.measured, a.predicted, ea, eb, loo[i],
                  i + 1 < time_rows.size() ? "," : "");
    json += line;
  }
  char tail[320];
  std::snprintf(tail, sizeof tail,
                "  ],\n  \"mean_abs_speed_error\": %.4f,\n  \"mean_abs_speed_error_unfitted\": "
                "%.4f,\n  \"mean_abs_speed_error_left_out\": %.4f,\n  \"rows\": %zu\n}\n",
                sum_after / time_rows.size(), sum_before / time_rows.size(),
                loo_sum / time_rows.size(), time_rows.size());
  json += tail;
  std::ofstream(out_path) << json;
  std::printf("%s", json.c_str());
  return 0;
}

// The bands (--bands): each time row of the fit's table classified by its regime as simulated
// with the defaults (= the fit), and per regime the 68th percentile (nearest rank) of the rows'
// absolute left-out speed errors, rounded up to a whole percent: 2 in 3 of the regime's rows
// stay within it (sim/uncertainty.h). The root mean square and the mean are written beside it.
// Writes them as JSON to `out_path`.
int bands(const std::vector<Row>& rows, const std::string& fit_path, const std::string& out_path) {
  auto fit = zs::json::parse_file(fit_path);
  if (!fit.ok()) {
    std::fprintf(stderr, "fidelity: %s\n", fit.status().message().c_str());
    return 1;
  }
  std::map<std::string, double> left_out;  // id -> speed error
  for (const auto& r : fit->root.at("residuals")) {
    left_out[r.at("id").get<std::string>()] = r.at("speed_error_left_out").get<double>();
  }
  struct Group {
    std::vector<std::string> ids;
    std::vector<double> abs_errors;
    double sum_sq = 0, sum_abs = 0;
  };
  std::map<zs::sim::Regime, Group> groups;
  for (const Row& r : rows) {
    const auto it = left_out.find(r["id"]);
    if (it == left_out.end()) continue;
    const Outcome o = simulate_row(r);
    if (!o.error.empty()) continue;
    Group& g = groups[o.regime];
    g.ids.push_back(r["id"]);
    g.sum_sq += it->second * it->second;
    g.sum_abs += std::abs(it->second);
    g.abs_errors.push_back(std::abs(it->second));
  }
  std::string json =
      "{\n  \"what\": \"the step-time band of each regime: the 68th percentile "
      "(nearest rank) of its published rows' absolute left-out speed errors, "
      "rounded up to a whole percent\",\n  \"command\": \"scripts/calibrate_published.sh "
                     "(fidelity --bands)\",\n  \"fit\": \"" +
      fit_path + "\",\n  \"regimes\": {\n";
  bool first = true;
  for (const auto& [regime, g] : groups) {
    const double n = static_cast<double>(g.ids.size());
    const double rms = std::sqrt(g.sum_sq / n);
    std::vector<double> sorted = g.abs_errors;
    std::sort(sorted.begin(), sorted.end());
    const auto rank = static_cast<std::size_t>(std::ceil(0.68 * n));
    const double p68 = sorted[rank - 1];
    std::string ids;
    for (const std::string& id : g.ids) ids += (ids.empty() ? "\"" : ", \"") + id + "\"";
    char line[256];
    std::snprintf(line, sizeof line,
                  "    \"%s\": {\"rows\": %zu, \"p68_left_out\": %.4f, \"rms_left_out\": %.4f, "
                  "\"mean_abs_left_out\": %.4f, \"band\": %.2f, \"ids\": [",
                  std::string(zs::sim::regime_name(regime)).c_str(), g.ids.size(), p68, rms,
                  g.sum_abs / n, std::ceil(100 * p68 - 1e-9) / 100);
    json += (first ? "" : ",\n") + std::string(line) + ids + "]}";
    first = false;
  }
  json += "\n  }\n}\n";
  std::ofstream(out_path) << json;
  std::printf("%s", json.c_str());
  return 0;
}

int main(int argc, char** argv) {
  std::string path = "bench/data/published_runs.tsv";
  std::string fit_out, bands_fit, bands_out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--fit" && i + 1 < argc) {
      fit_out = argv[++i];
    } else if (a == "--bands" && i + 2 < argc) {
      bands_fit = argv[++i];
      bands_out = argv[++i];
    } else {
      path = a;
    }
  }
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "fidelity: cannot read %s (run from the source directory)\n",
                 path.c_str());
    return 1;
  }
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line, '\t');
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line, '\t');
    if (cells.size() < header.size()) continue;
    Row r;
    for (std::size_t i = 0; i < header.size(); ++i) r.f[header[i]] = cells[i];
    rows.push_back(std::move(r));
  }
  if (!fit_out.empty()) return fit(rows, fit_out);
  if (!bands_out.empty()) return bands(rows, bands_fit, bands_out);
  std::printf("%-5s %-28s %-14s %6s %12s %12s %9s  %s\n", "id", "model", "metric", "stage",
              "measured", "predicted", "speed err", "params (row / simulated)");
  std::map<std::string, std::vector<double>> errors;                      // family -> |speed error|
  std::map<std::string, std::vector<std::pair<int, double>>> by_setting;  // stage -> speed
  int oom_right = 0, oom_rows = 0;
  std::vector<double> memory_errors;  // |predicted / measured - 1| of peak_gib rows
  for (const Row& r : rows) {
    const Outcome o = simulate_row(r);
    if (!o.error.empty()) {
      std::printf("%-5s %-28s %-14s %6s %12s   not simulated: %s\n", r["id"].c_str(),
                  r["model"].substr(0, 28).c_str(), r["metric"].c_str(), r["stage"].c_str(),
                  r["value"].c_str(), o.error.c_str());
      continue;
    }
    const std::string metric = r["metric"];
    std::string err = "-";
    if (o.time_metric) {
      const double e = speed_error(metric, o.predicted, o.measured);
      errors[family(r)].push_back(std::abs(e));
      char buf[32];
      std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * e);
      err = buf;
      // One setting measured at several stages: the same source, model, GPUs, batch,
      // precision and metric.
      // The autotuner's metric (fwd + bwd + step timers) is not the end-to-end one.
      const bool caveat = r["notes"].find("metric caveat") != std::string::npos;
      const std::string key = r["model"] + " " + r["gpu"] + " x" + r["gpus_per_node"] + " mb " +
                              r["micro_batch"] + " ga " + r["grad_accum"] + " " + r["precision"] +
                              " " + metric + (caveat ? " (autotuner metric)" : "") + " (" +
                              r["source"].substr(0, r["source"].find(':')) + ")";
      const double speed = metric == "step_s" ? 1 / o.predicted : o.predicted;
      const double measured_speed = metric == "step_s" ? 1 / o.measured : o.measured;
      by_setting[key + "|pred"].push_back({std::stoi(r["stage"]), speed});
      by_setting[key + "|meas"].push_back({std::stoi(r["stage"]), measured_speed});
    } else if (metric == "peak_gib") {
      const double e = o.predicted / o.measured - 1;
      memory_errors.push_back(std::abs(e));
      char buf[32];
      std::snprintf(buf, sizeof buf, "%+.1f%% mem", 100 * e);
      err = buf;
    } else if (metric == "oom") {
      ++oom_rows;
      oom_right += static_cast<int>(o.predicted) == static_cast<int>(o.measured);
      err = static_cast<int>(o.predicted) == static_cast<int>(o.measured) ? "right" : "WRONG";
    }
    std::printf("%-5s %-28s %-14s %6s %12.4g %12.4g %9s  %s / %lld\n", r["id"].c_str(),
                r["model"].substr(0, 28).c_str(), metric.c_str(), r["stage"].c_str(), o.measured,
                o.predicted, err.c_str(), r["params"].c_str(), static_cast<long long>(o.params));
  }
  std::printf("\nMean absolute speed error per family (time and throughput rows):\n");
  std::vector<double> all;
  for (const auto& [fam, e] : errors) {
    double sum = 0;
    for (double x : e) sum += x;
    all.insert(all.end(), e.begin(), e.end());
    std::printf("  %-24s %5.1f%% over %zu rows\n", fam.c_str(), 100 * sum / e.size(), e.size());
  }
  double sum = 0;
  for (double x : all) sum += x;
  if (!all.empty())
    std::printf("  %-24s %5.1f%% over %zu rows\n", "all", 100 * sum / all.size(), all.size());
  std::printf("OOM verdicts: %d of %d right\n", oom_right, oom_rows);
  if (!memory_errors.empty()) {
    double m = 0;
    for (double x : memory_errors) m += x;
    std::printf(
        "Peak memory (nvidia-smi: allocator cache and CUDA context included) against the "
        "predicted peak: mean absolute error %.1f%% over %zu rows\n",
        100 * m / memory_errors.size(), memory_errors.size());
  }
  std::printf("Stage order (fastest first) where one setting was measured at several stages:\n");
  for (const auto& [key, pred] : by_setting) {
    if (key.size() < 5 || key.substr(key.size() - 5) != "|pred") continue;
    std::vector<int> stages;
    for (const auto& [stage, speed] : pred) stages.push_back(stage);
    std::sort(stages.begin(), stages.end());
    if (std::unique(stages.begin(), stages.end()) - stages.begin() < 2) continue;
    std::vector<std::pair<int, double>> p = pred;
    std::vector<std::pair<int, double>> m = by_setting.at(key.substr(0, key.size() - 5) + "|meas");
    auto order = [](std::vector<std::pair<int, double>> v) {
      std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second > b.second; });
      std::string s;
      for (auto& [stage, speed] : v) s += (s.empty() ? "" : " > ") + std::to_string(stage);
      return s;
    };
    const std::string po = order(p), mo = order(m);
    std::printf("  %s: measured %s, predicted %s%s\n", key.substr(0, key.size() - 5).c_str(),
                mo.c_str(), po.c_str(), po == mo ? "" : "  (WRONG)");
  }
  return 0;
}
