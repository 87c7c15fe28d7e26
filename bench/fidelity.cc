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

#include "bench/fidelity_rows.h"
#include "common/json_reader.h"
#include "configs/hardware/cluster.h"
#include "models/hf_config.h"
#include "sim/simulate.h"
#include "sim/uncertainty.h"

namespace zs::fidelity {

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

int run(int argc, char** argv) {
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

}  // namespace zs::fidelity

int main(int argc, char** argv) { return zs::fidelity::run(argc, argv); }
