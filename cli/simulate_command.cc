#include "cli/simulate_command.h"

#include <cstdlib>
#include <memory>

#include "cli/options.h"
#include "plan/plan.h"
#include "reports/simulate_report.h"
#include "sim/simulate.h"

namespace zs::cli {
namespace {

struct SimulateFlags {
  CommonFlags common;
  std::string seq_len;
  bool checkpointing = false;
  std::string attention = "flash";
  std::string fragmentation;
  bool print_plan = false;
};

int run_simulate(const SimulateFlags& f) {
  auto in = read_inputs(f.common);
  if (!in.ok()) return fail(in.status());
  if (!in->model) {
    return fail(Status::invalid_argument("simulate needs --model (a zoo name or a config.json)"));
  }
  if (!in->cluster) {
    return fail(Status::invalid_argument(
        "simulate needs a cluster: --gpu PRESET [--nodes N] [--gpus-per-node K], or --cluster "
        "FILE"));
  }
  sim::SimulationRequest request;
  request.config_path = f.common.config;
  request.check = in->options;
  request.model = *in->model;
  request.cluster = *in->cluster;
  if (!f.seq_len.empty()) {
    auto s = parse_int_flag("--seq-len", f.seq_len, 1, 10'000'000);
    if (!s.ok()) return fail(s.status());
    request.seq_len = *s;
  }
  if (f.attention != "flash" && f.attention != "eager") {
    return fail(Status::invalid_argument("--attention: \"" + f.attention +
                                         "\" is not allowed; expected flash or eager"));
  }
  request.flash_attention = f.attention == "flash";
  if (!f.fragmentation.empty()) {
    char* end = nullptr;
    const double v = std::strtod(f.fragmentation.c_str(), &end);
    if (end == f.fragmentation.c_str() || *end != '\0' || !(v >= 0 && v <= 1)) {
      return fail(Status::invalid_argument("--fragmentation: \"" + f.fragmentation +
                                           "\" is not allowed; expected a fraction from 0 to 1"));
    }
    request.fragmentation = v;
  }
  request.activation_checkpointing = f.checkpointing;
  auto result = sim::simulate(request);
  if (!result.ok()) return fail(result.status());
  if (f.print_plan) {
    print(plan::to_text(result->built.plan));
  } else if (f.common.json) {
    print(reports::render_simulation_json(*result, request)
              .dump(2, ' ', false, json::Json::error_handler_t::replace));
  } else {
    print(reports::render_simulation_text(*result, request));
  }
  return 0;
}

}  // namespace

std::function<int()> add_simulate_command(CLI::App& app) {
  auto flags = std::make_shared<SimulateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Predict per-GPU and host peak memory of one optimizer step of a DeepSpeed "
                  "config on a model and a cluster");
  add_common_flags(cmd, &flags->common);
  cmd->add_option("--seq-len", flags->seq_len,
                  "tokens per sequence (default: the model's max_position_embeddings)");
  cmd->add_flag("--checkpointing", flags->checkpointing,
                "full activation checkpointing, one checkpoint per layer (HF "
                "gradient_checkpointing)");
  cmd->add_option("--attention", flags->attention,
                  "flash (fused, the HF SDPA default) or eager (materialises the scores)");
  cmd->add_option("--fragmentation", flags->fragmentation,
                  "caching-allocator overhead as a fraction of allocated memory (default 0)");
  cmd->add_flag("--plan", flags->print_plan, "print the plan of the step instead");
  return [flags] { return run_simulate(*flags); };
}

}  // namespace zs::cli
