#include "cli/simulate_command.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <thread>

#include "cli/exit_codes.h"
#include "cli/options.h"
#include "plan/plan.h"
#include "reports/fit_advice_report.h"
#include "reports/simulate_report.h"
#include "sim/simulate.h"
#include "sim/trace.h"
#include "sim/uncertainty.h"
#include "tuning/fit_advice.h"

namespace zs::cli {
namespace {

struct SimulateFlags {
  CommonFlags common;
  std::string seq_len;
  std::string target_len;
  bool checkpointing = false;
  std::string attention = "flash";
  std::string kernels;
  std::string fragmentation;
  bool print_plan = false;
  std::string trace;
  std::string profile;
  std::string straggler;
  bool fail_on_oom = false;
  std::string load_dtype = "auto";
};

// A number in [lo, hi] given as a flag's text.
Result<double> parse_number_flag(const char* flag, const std::string& text, double lo, double hi,
                                 const char* expected) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(v >= lo && v <= hi)) {
    return Status::invalid_argument(std::string(flag) + ": \"" + text +
                                    "\" is not allowed; expected " + expected);
  }
  return v;
}

// When the prediction is out of memory: the changes that would fit (tuning/fit_advice.h), kept
// clear of the memory band.
Result<tuning::FitAdvice> fit_advice(const sim::SimulationRequest& request) {
  tuning::SweepSetup setup;
  setup.base = request;
  setup.base.op_names = false;
  ZS_ASSIGN_OR_RETURN(json::Document doc, json::parse_file(request.config_path));
  setup.base.config_document = std::make_shared<const json::Document>(std::move(doc));
  setup.headroom = sim::memory_band().fraction;
  setup.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return tuning::changes_that_fit(std::move(setup), 3);
}

int run_simulate(const SimulateFlags& f) {
  const auto failed = [&f](const Status& s) { return fail(s, f.common.json); };
  auto in = read_inputs(f.common);
  if (!in.ok()) return failed(in.status());
  if (!in->model) {
    return failed(Status::invalid_argument("simulate needs --model (a zoo name or a config.json)"));
  }
  if (!in->cluster) {
    return failed(Status::invalid_argument(
        "simulate needs a cluster: --gpu PRESET [--nodes N] [--gpus-per-node K], or --cluster "
        "FILE"));
  }
  sim::SimulationRequest request;
  if (!f.seq_len.empty()) {
    auto s = parse_int_flag("--seq-len", f.seq_len, 1, 10'000'000);
    if (!s.ok()) return failed(s.status());
    request.seq_len = *s;
  }
  if (!f.target_len.empty()) {
    auto t = parse_int_flag("--target-len", f.target_len, 1, 10'000'000);
    if (!t.ok()) return failed(t.status());
    if (!models::is_encoder_decoder(*in->model)) {
      return failed(Status::invalid_argument(
          "--target-len " + f.target_len + " is not allowed for model \"" + in->model->name +
          "\": only an encoder-decoder (t5) has a decoder sequence of its own"));
    }
    request.target_len = *t;
  }
  const std::vector<std::string> assumed = assume_scenario(f.common, &*in, &request.seq_len);
  request.config_path = f.common.config;
  request.check = in->options;
  request.model = *in->model;
  request.cluster = *in->cluster;
  if (f.attention != "flash" && f.attention != "eager") {
    return failed(Status::invalid_argument("--attention: \"" + f.attention +
                                           "\" is not allowed; expected flash or eager"));
  }
  request.flash_attention = f.attention == "flash";
  if (!f.fragmentation.empty()) {
    auto v = parse_number_flag("--fragmentation", f.fragmentation, 0, 1, "a fraction from 0 to 1");
    if (!v.ok()) return failed(v.status());
    request.fragmentation = *v;
  }
  if (!f.straggler.empty()) {
    auto v = parse_number_flag("--straggler", f.straggler, 1, 100, "a factor from 1 to 100");
    if (!v.ok()) return failed(v.status());
    request.collective_slowdown = *v;
  }
  auto profile = read_profile_flags(f.profile, f.kernels, request.cluster);
  if (!profile.ok()) return failed(profile.status());
  request.profile = *profile;
  request.activation_checkpointing = f.checkpointing;
  auto load_dtype = parse_load_dtype_flag(f.load_dtype);
  if (!load_dtype.ok()) return failed(load_dtype.status());
  request.load_dtype = *load_dtype;
  auto result = sim::simulate(request);
  if (!result.ok()) return failed(result.status());
  if (!f.trace.empty()) {
    const Status s = sim::write_trace(f.trace, result->built.plan, result->time);
    if (!s.is_ok()) return failed(s);
  }
  const bool oom = result->memory.gpu_oom || result->memory.host_oom;
  std::optional<tuning::FitAdvice> advice;
  if (oom && !f.print_plan) {
    auto a = fit_advice(request);
    if (!a.ok()) return failed(a.status());
    advice = std::move(*a);
  }
  // What the prediction assumed goes first, where it is read.
  std::string assumed_text;
  for (const std::string& a : assumed) assumed_text += "assumed: " + a + "\n";
  if (f.print_plan) {
    std::fputs(assumed_text.c_str(), stderr);
    print(plan::to_text(result->built.plan));
  } else if (f.common.json) {
    json::Json j = reports::render_simulation_json(*result, request);
    j["assumed"] = assumed;
    if (advice) j["fit_advice"] = reports::render_fit_advice_json(*advice);
    print(j.dump(2, ' ', false, json::Json::error_handler_t::replace));
  } else {
    std::string text = assumed_text + reports::render_simulation_text(*result, request);
    if (advice) text += reports::render_fit_advice_text(*advice, result->time.tokens_per_s);
    print(text);
  }
  return f.fail_on_oom && oom ? kExitPredictedOom : kExitOk;
}

}  // namespace

std::function<int()> add_simulate_command(CLI::App& app) {
  auto flags = std::make_shared<SimulateFlags>();
  CLI::App* cmd =
      app.add_subcommand("simulate",
                         "Predict per-GPU and host peak memory and the step time of one optimizer "
                         "step of a DeepSpeed config on a model and a cluster");
  document_exit_codes(cmd, "  3  --fail-on-oom and the prediction is out of GPU or host memory\n");
  add_common_flags(cmd, &flags->common);
  cmd->add_option("--seq-len", flags->seq_len,
                  "tokens per sequence (default 2048, or the model's context when shorter; "
                  "stated at the top of the output)");
  cmd->add_option("--target-len", flags->target_len,
                  "an encoder-decoder's (t5's) decoder tokens per sequence, its labels' length "
                  "(default: --seq-len)");
  cmd->add_flag("--checkpointing", flags->checkpointing,
                "full activation checkpointing, one checkpoint per layer (HF "
                "gradient_checkpointing)");
  cmd->add_option("--attention", flags->attention,
                  "flash (fused, the HF SDPA default) or eager (materialises the scores)");
  cmd->add_option("--kernels", flags->kernels,
                  "eager (HF modules in eager PyTorch, the default) or fused (one kernel per op, "
                  "as llm.c or torch.compile)");
  cmd->add_option("--fragmentation", flags->fragmentation,
                  "caching-allocator overhead as a fraction of allocated memory (default 0)");
  cmd->add_flag("--plan", flags->print_plan, "print the plan of the step instead");
  cmd->add_option("--trace", flags->trace,
                  "write a Chrome/Perfetto trace of the simulated step to FILE "
                  "(ui.perfetto.dev, chrome://tracing)");
  cmd->add_option("--profile", flags->profile,
                  "a calibration profile (JSON) replacing the preset's effective rates "
                  "(sim/cost_profile.h lists the keys)");
  cmd->add_option("--straggler", flags->straggler,
                  "slowest rank's factor on every collective (default 1: no straggler)");
  cmd->add_option("--load-dtype", flags->load_dtype, kLoadDtypeHelp);
  cmd->add_flag("--fail-on-oom", flags->fail_on_oom,
                "exit 3 when the prediction is out of GPU or host memory (the output is printed "
                "as usual), for CI gates");
  return [flags] { return run_simulate(*flags); };
}

}  // namespace zs::cli
