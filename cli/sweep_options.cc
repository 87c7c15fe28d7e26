#include "cli/sweep_options.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "common/units.h"
#include "reports/simulate_report.h"
#include "sim/uncertainty.h"
#include "tuning/ranking.h"
#include "tuning/sweep_why.h"

namespace zs::cli {
namespace {

// A sweep past either gets a warning before it starts.
constexpr std::int64_t kWarnRows = 10'000;
constexpr double kWarnSeconds = 60;

Result<double> parse_headroom(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v >= 0 && v <= 0.9)) {
    return Status::invalid_argument("--headroom: \"" + text +
                                    "\" is not allowed; expected a fraction of GPU memory kept "
                                    "free, from 0 to 0.9 (default 0.05)");
  }
  return v;
}

std::string values_text(const tuning::SweepOutcome& out, const tuning::SweepRow& r) {
  std::string s;
  for (std::size_t a = 0; a < out.axes.size(); ++a) {
    s += (s.empty() ? "" : ", ") + out.axes[a].key + "=" + tuning::value_text(r.values[a]);
  }
  return s;
}

}  // namespace

void add_sweep_flags(CLI::App* cmd, SweepFlags* f) {
  add_common_flags(cmd, &f->common, /*json_flag=*/false);
  cmd->add_option("--seq-len", f->seq_len,
                  "tokens per sequence (default 2048, or the model's context when shorter; "
                  "stated at the top of the output)");
  cmd->add_flag("--checkpointing", f->checkpointing,
                "full activation checkpointing in the config as given (HF gradient_checkpointing)");
  cmd->add_option("--attention", f->attention, "flash (default) or eager");
  cmd->add_option("--kernels", f->kernels, "eager (default) or fused, as for simulate");
  cmd->add_option("--profile", f->profile, "a calibration profile (JSON), as for simulate");
  cmd->add_option("--out", f->out,
                  "directory for results.json, results.csv and best_ds_config.json (default "
                  "zerosim-sweep)");
  cmd->add_option("--jobs", f->jobs, "threads that simulate variants (default: the CPU count)");
  cmd->add_option("--global-batch", f->global_batch,
                  "keep train_batch_size at N: each variant's gradient accumulation becomes N / "
                  "(micro-batch x world)");
  cmd->add_option("--headroom", f->headroom,
                  "fraction of GPU memory a feasible variant leaves free (default 0.05)");
  cmd->add_option("--load-dtype", f->load_dtype, kLoadDtypeHelp);
  cmd->add_flag("--progress", f->progress,
                "show a progress bar on stderr even when it is not a terminal");
}

Result<tuning::SweepSetup> read_sweep_setup(const SweepFlags& f,
                                            std::vector<std::string>* assumed) {
  ZS_ASSIGN_OR_RETURN(Inputs in, read_inputs(f.common));
  if (!in.model)
    return Status::invalid_argument("--model is required (a zoo name or a config.json)");
  if (!in.cluster) {
    return Status::invalid_argument(
        "a cluster is required: --gpu PRESET [--nodes N] [--gpus-per-node K], or --cluster FILE");
  }
  tuning::SweepSetup setup;
  sim::SimulationRequest& r = setup.base;
  if (!f.seq_len.empty()) {
    ZS_ASSIGN_OR_RETURN(r.seq_len, parse_int_flag("--seq-len", f.seq_len, 1, 10'000'000));
  }
  *assumed = assume_scenario(f.common, &in, &r.seq_len);
  r.config_path = f.common.config;
  r.check = in.options;
  r.model = *in.model;
  r.cluster = *in.cluster;
  r.op_names = false;
  r.activation_checkpointing = f.checkpointing;
  ZS_ASSIGN_OR_RETURN(r.load_dtype, parse_load_dtype_flag(f.load_dtype));
  if (f.attention != "flash" && f.attention != "eager") {
    return Status::invalid_argument("--attention: \"" + f.attention +
                                    "\" is not allowed; expected flash or eager");
  }
  r.flash_attention = f.attention == "flash";
  ZS_ASSIGN_OR_RETURN(r.profile, read_profile_flags(f.profile, f.kernels, r.cluster));
  ZS_ASSIGN_OR_RETURN(json::Document doc, json::parse_file(f.common.config));
  r.config_document = std::make_shared<const json::Document>(std::move(doc));
  ZS_ASSIGN_OR_RETURN(setup.headroom, parse_headroom(f.headroom));
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  setup.jobs = static_cast<int>(cpus);
  if (!f.jobs.empty()) {
    ZS_ASSIGN_OR_RETURN(const std::int64_t jobs, parse_int_flag("--jobs", f.jobs, 1, 1024));
    setup.jobs = static_cast<int>(jobs);
  }
  if (!f.global_batch.empty()) {
    if (!f.common.grad_accum.empty()) {
      return Status::invalid_argument(
          "--global-batch sets each variant's gradient accumulation; drop --grad-accum");
    }
    ZS_ASSIGN_OR_RETURN(setup.global_batch,
                        parse_int_flag("--global-batch", f.global_batch, 1, 1'000'000'000));
    const std::int64_t world = r.cluster.world_size();
    if (*setup.global_batch % world != 0) {
      return Status::invalid_argument(
          "--global-batch " + f.global_batch + ": is not a multiple of the cluster's " +
          std::to_string(world) + " GPUs, so no micro-batch x gradient accumulation x " +
          std::to_string(world) + " makes it; expected a multiple of " + std::to_string(world));
    }
  }
  setup.render = [](const sim::SimulationResult& result, const sim::SimulationRequest& request) {
    return reports::render_simulation_json_text(result, request);
  };
  return setup;
}

reports::SweepInfo sweep_info(const SweepFlags& f, const tuning::SweepSetup& setup,
                              std::string command) {
  const sim::SimulationRequest& r = setup.base;
  reports::SweepInfo info;
  info.command = std::move(command);
  info.config_path = f.common.config;
  info.model = r.model.name;
  info.cluster = plan::cluster_facts(r.cluster).description;
  info.gpu = r.cluster.preset;
  info.world_size = r.cluster.world_size();
  info.gpu_memory_bytes = r.cluster.gpu_memory_bytes();
  info.seq_len = r.seq_len > 0 ? r.seq_len : r.model.max_position_embeddings;
  info.headroom = setup.headroom;
  info.out_dir = f.out;
  return info;
}

Result<std::unique_ptr<reports::SweepWriter>> open_outputs(const SweepFlags& f,
                                                           const reports::SweepInfo& info,
                                                           const std::vector<tuning::Axis>& axes,
                                                           tuning::SweepSetup* setup) {
  ZS_ASSIGN_OR_RETURN(std::unique_ptr<reports::SweepWriter> writer,
                      reports::SweepWriter::begin(f.out, info, axes));
  reports::SweepWriter* w = writer.get();
  setup->row_sink = [w](const tuning::SweepRow& r) { return w->add_row(r); };
  const int jobs = setup->jobs;
  const std::size_t n_axes = axes.size();
  setup->on_start = [w, jobs, n_axes, info](std::int64_t rows, double seconds_per_row) {
    const double est_s = seconds_per_row * static_cast<double>(rows);
    if (rows <= kWarnRows && est_s <= kWarnSeconds) return;
    const auto memory = static_cast<Bytes>(rows) * tuning::held_bytes_per_row(n_axes);
    const auto disk =
        static_cast<Bytes>(rows) * w->bytes_written() / std::max(1, w->rows_written());
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "zerosim %s: warning: %s rows: about %s on %d thread(s) (%s a row so far), "
                  "at least %s of memory and about %s of results in %s; Ctrl-C stops it and "
                  "leaves the files there as they were\n",
                  info.command.c_str(), format_grouped(rows).c_str(),
                  tuning::format_seconds(est_s).c_str(), jobs,
                  tuning::format_seconds(seconds_per_row).c_str(), format_bytes(memory).c_str(),
                  format_bytes(disk).c_str(), info.out_dir.c_str());
    std::fputs(buf, stderr);
  };
  return writer;
}

namespace {

// How to train with best_ds_config.json: the HF Trainer's flags, the "auto" it keeps, and
// whether it is ready to use.
std::string tuned_config_text(const configs::TunedConfig& t) {
  std::string s;
  if (!t.flags.empty()) s += "  HF Trainer flags it needs: " + t.flags_text() + "\n";
  if (!t.autos.empty()) {
    s += "  it keeps \"auto\" at " + std::to_string(t.autos.size()) +
         " key(s) for the HF Trainer to fill from those flags (";
    for (std::size_t i = 0; i < t.autos.size(); ++i) s += (i > 0 ? ", " : "") + t.autos[i];
    s += ")\n";
  }
  if (t.ready()) {
    s += "  best_ds_config.json is ready to use with those flags: checked as the HF Trainer "
         "fills it (HfTrainerDeepSpeedConfig) and as DeepSpeed reads it\n";
  } else {
    s += "  best_ds_config.json is NOT ready to use as it is:\n";
    for (const std::string& n : t.needs) s += "    " + n + "\n";
  }
  return s;
}

}  // namespace

int finish_and_summarize(const reports::SweepInfo& info, reports::SweepWriter& writer,
                         const tuning::SweepOutcome& out) {
  const sim::SimulationResult* best = out.best_result ? &*out.best_result : nullptr;
  auto written = writer.finish(out, best);
  if (!written.ok()) return fail(written.status());
  int invalid = 0;
  for (const tuning::SweepRow& r : out.rows) invalid += r.ok ? 0 : 1;
  std::string s;
  for (const std::string& a : info.assumed) s += "assumed: " + a + "\n";
  s += "zerosim " + info.command + ": " + std::to_string(out.rows.size()) +
       " rows (row 0: the config as given) for " + info.model + " on " + info.cluster + "\n";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "  %d invalid, %zu feasible (peak within %g%% of %s), %zu on the Pareto front\n",
                invalid, out.ranking.size(), 100.0 * (1.0 - info.headroom),
                format_bytes(info.gpu_memory_bytes).c_str(), out.pareto.size());
  s += buf;
  if (out.best) {
    const tuning::SweepRow& b = out.rows[static_cast<std::size_t>(*out.best)];
    std::snprintf(buf, sizeof buf, ": %.0f tokens/s, step %s (both %s), peak %s %s\n",
                  b.metrics.tokens_per_s, tuning::format_seconds(b.metrics.step_s).c_str(),
                  format_band(b.metrics.band).c_str(),
                  format_bytes(b.metrics.gpu_peak_bytes).c_str(),
                  format_band(sim::memory_band().fraction).c_str());
    s += "  best: row " + std::to_string(b.id) + " (" + values_text(out, b) + ")" + buf;
  } else {
    s += "  no variant fits, so no best_ds_config.json was written\n";
  }
  s += "why:\n";
  for (const std::string& line : out.why) s += "  " + line + "\n";
  s += "wrote";
  for (const std::string& p : written->paths) s += " " + p;
  s += "\n";
  if (written->tuned) s += tuned_config_text(*written->tuned);
  print(s);
  return 0;
}

}  // namespace zs::cli
