#include "cli/check_command.h"

#include <cstdio>
#include <memory>

#include "cli/flags.h"
#include "configs/check_render.h"

namespace zs::cli {
namespace {

struct CheckFlags {
  std::string config;
  std::string world;
  std::string model;
  std::string micro_batch;
  std::string grad_accum;
  std::string precision;
  std::string ds_version;
  ClusterFlags cluster;
  bool json = false;
};

int fail(const Status& s) {
  std::fprintf(stderr, "%s\n", s.message().c_str());
  return 1;
}

// An optional integer flag: unset when empty.
Result<std::optional<std::int64_t>> optional_int(const std::string& flag, const std::string& value,
                                                 std::int64_t min, std::int64_t max) {
  if (value.empty()) return std::optional<std::int64_t>();
  ZS_ASSIGN_OR_RETURN(const std::int64_t v, parse_int_flag(flag, value, min, max));
  return std::optional<std::int64_t>(v);
}

Result<configs::CheckOptions> build_options(const CheckFlags& f) {
  configs::CheckOptions options;
  if (!f.ds_version.empty()) {
    ZS_ASSIGN_OR_RETURN(options.version, configs::parse_ds_version(f.ds_version));
  }
  ZS_ASSIGN_OR_RETURN(options.world_size, optional_int("--world", f.world, 1, 1'000'000));
  if (f.cluster.any()) {
    ZS_ASSIGN_OR_RETURN(const configs::Cluster cluster, cluster_from_flags(f.cluster));
    options.cluster = cluster_facts(cluster);
    const std::int64_t ws = cluster.world_size();
    if (options.world_size && *options.world_size != ws) {
      return Status::invalid_argument("--world " + f.world + " disagrees with the cluster's " +
                                      std::to_string(ws) + " GPUs; drop one of them");
    }
    options.world_size = ws;
  }
  ZS_ASSIGN_OR_RETURN(options.micro_batch,
                      optional_int("--micro-batch", f.micro_batch, 1, 1'000'000));
  ZS_ASSIGN_OR_RETURN(options.grad_accum, optional_int("--grad-accum", f.grad_accum, 1, 1'000'000));
  if (!f.precision.empty()) {
    ZS_ASSIGN_OR_RETURN(options.precision, parse_precision_flag(f.precision));
  }
  if (!f.model.empty()) {
    ZS_ASSIGN_OR_RETURN(options.model, model_facts(f.model));
  }
  return options;
}

int run_check(const CheckFlags& f) {
  auto built = build_options(f);
  if (!built.ok()) return fail(built.status());
  const configs::CheckOptions& options = *built;
  auto lc = configs::run_check(f.config, options);
  if (!lc.ok()) return fail(lc.status());
  if (f.json) {
    const std::string out = configs::render_check_json(*lc, options)
                                .dump(2, ' ', false, json::Json::error_handler_t::replace);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fputc('\n', stdout);
  } else {
    const std::string out = configs::render_check_text(*lc, options);
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  return lc->diagnostics.has_errors() ? 1 : 0;
}

}  // namespace

std::function<int()> add_check_command(CLI::App& app) {
  auto flags = std::make_shared<CheckFlags>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Validate a DeepSpeed config as DeepSpeed would, resolve \"auto\" as the HF "
               "Trainer would, and explain what its settings cost");
  cmd->add_option("CONFIG", flags->config, "ds_config.json to check")->required();
  cmd->add_option("--world", flags->world, "data-parallel world size (number of GPUs)");
  cmd->add_option("--model", flags->model,
                  "zoo model name (e.g. llama2-7b) or a Hugging Face config.json");
  cmd->add_option("--gpu", flags->cluster.gpu, "GPU preset (v100-32gb, a100-40gb, a100-80gb, "
                                               "h100-80gb-sxm, h200)");
  cmd->add_option("--nodes", flags->cluster.nodes, "number of nodes (default 1)");
  cmd->add_option("--gpus-per-node", flags->cluster.gpus_per_node,
                  "GPUs per node (default: the node's size)");
  cmd->add_option("--cluster", flags->cluster.cluster_file, "cluster description JSON file");
  cmd->add_option("--micro-batch", flags->micro_batch,
                  "per_device_train_batch_size, to resolve \"auto\"");
  cmd->add_option("--grad-accum", flags->grad_accum,
                  "gradient_accumulation_steps, to resolve \"auto\"");
  cmd->add_option("--precision", flags->precision,
                  "fp32, fp16 or bf16: the trainer's --fp16/--bf16, to resolve \"auto\"");
  cmd->add_option("--ds-version", flags->ds_version,
                  "DeepSpeed release whose rules apply (default " +
                      configs::kLatestDsVersion.str() + ")");
  cmd->add_flag("--json", flags->json, "print one JSON object instead of the report");
  return [flags] { return run_check(*flags); };
}

}  // namespace zs::cli
