#include "cli/options.h"

#include <algorithm>
#include <cstdio>

#include "models/hf_config.h"
#include "sim/simulate.h"

namespace zs::cli {
namespace {

// An optional integer flag: unset when empty.
Result<std::optional<std::int64_t>> optional_int(const std::string& flag, const std::string& value,
                                                 std::int64_t min, std::int64_t max) {
  if (value.empty()) return std::optional<std::int64_t>();
  ZS_ASSIGN_OR_RETURN(const std::int64_t v, parse_int_flag(flag, value, min, max));
  return std::optional<std::int64_t>(v);
}

}  // namespace

void add_common_flags(CLI::App* cmd, CommonFlags* f, bool json_flag) {
  cmd->add_option("CONFIG", f->config, "ds_config.json")->required();
  cmd->add_option("--world", f->world, "data-parallel world size (number of GPUs)");
  cmd->add_option("--model", f->model,
                  "zoo model name (e.g. llama2-7b) or a Hugging Face config.json");
  cmd->add_option("--gpu", f->cluster.gpu,
                  "GPU preset (v100-16gb, v100-32gb, v100-32gb-dgx2, a100-40gb, a100-80gb, "
                  "h100-80gb-sxm, h200)");
  cmd->add_option("--nodes", f->cluster.nodes, "number of nodes (default 1)");
  cmd->add_option("--gpus-per-node", f->cluster.gpus_per_node,
                  "GPUs per node (default: the node's size)");
  cmd->add_option("--cluster", f->cluster.cluster_file, "cluster description JSON file");
  cmd->add_option("--micro-batch", f->micro_batch,
                  "per_device_train_batch_size, to resolve \"auto\"");
  cmd->add_option("--grad-accum", f->grad_accum,
                  "gradient_accumulation_steps, to resolve \"auto\"");
  cmd->add_option("--precision", f->precision,
                  "fp32, fp16 or bf16: the trainer's --fp16/--bf16, to resolve \"auto\"");
  cmd->add_option(
      "--ds-version", f->ds_version,
      "DeepSpeed release whose rules apply (default " + configs::kLatestDsVersion.str() + ")");
  if (json_flag) cmd->add_flag("--json", f->json, "print one JSON object instead of the report");
}

Result<Inputs> read_inputs(const CommonFlags& f) {
  Inputs in;
  configs::CheckOptions& options = in.options;
  if (!f.ds_version.empty()) {
    ZS_ASSIGN_OR_RETURN(options.version, configs::parse_ds_version(f.ds_version));
  }
  ZS_ASSIGN_OR_RETURN(options.world_size, optional_int("--world", f.world, 1, 1'000'000));
  if (f.cluster.any()) {
    ZS_ASSIGN_OR_RETURN(in.cluster, cluster_from_flags(f.cluster));
    options.cluster = plan::cluster_facts(*in.cluster);
    const std::int64_t ws = in.cluster->world_size();
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
    ZS_ASSIGN_OR_RETURN(in.model, models::resolve_model(f.model));
    options.model = plan::model_facts(*in.model);
  }
  return in;
}

std::vector<std::string> assume_scenario(const CommonFlags& f, Inputs* in, std::int64_t* seq_len) {
  ZS_CHECK(in->model.has_value() && in->cluster.has_value());
  std::vector<std::string> notes;
  const std::int64_t context = in->model->max_position_embeddings;
  if (*seq_len == 0) {
    *seq_len = context > 0 ? std::min(kDefaultSeqLen, context) : kDefaultSeqLen;
    notes.push_back("sequence " + std::to_string(*seq_len) + " tokens: --seq-len not given (" +
                    in->model->name + "'s context is " + std::to_string(context) +
                    "; pass --seq-len for another)");
  }
  if (!in->options.precision) {
    // The config as written (a file that cannot be read is the simulation's error to report).
    auto doc = json::parse_file(f.config);
    const auto is_auto = [&](const char* block) {
      if (!doc.ok() || !doc->root.is_object()) return false;
      const auto b = doc->root.find(block);
      if (b == doc->root.end() || !b->is_object()) return false;
      const auto e = b->find("enabled");
      return e != b->end() && e->is_string() && *e == "auto";
    };
    if (is_auto("fp16") || is_auto("bf16")) {
      const bool bf16 = in->cluster->gpu.bf16_flops_per_s.has_value();
      in->options.precision = bf16 ? configs::Precision::kBf16 : configs::Precision::kFp16;
      notes.push_back(std::string("precision ") + (bf16 ? "bf16" : "fp16") + ": " + f.config +
                      " leaves it to \"auto\" and --precision is not given, so the common "
                      "choice on a " +
                      in->cluster->gpu.name +
                      " (the HF Trainer fills \"auto\" from --bf16/--fp16 and trains in fp32 "
                      "without either: pass --precision fp32 to predict that)");
    }
  }
  return notes;
}

std::string error_json(std::string_view code, const std::string& message, int exit_code) {
  json::Json j;
  j["error"]["code"] = code;
  j["error"]["message"] = message;
  j["error"]["exit_code"] = exit_code;
  return j.dump(2, ' ', false, json::Json::error_handler_t::replace);
}

int fail(const Status& s, bool json) {
  std::fprintf(stderr, "%s\n", s.message().c_str());
  if (json) {
    std::string_view code = "invalid_argument";
    switch (s.code()) {
      case StatusCode::kNotFound:
        code = "not_found";
        break;
      case StatusCode::kIoError:
        code = "io_error";
        break;
      case StatusCode::kParseError:
        code = "parse_error";
        break;
      default:
        break;
    }
    print(error_json(code, s.message(), 1));
  }
  return 1;
}

void print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
}

Result<plan::LoadDtype> parse_load_dtype_flag(const std::string& text) {
  if (auto d = plan::parse_load_dtype(text)) return *d;
  return Status::invalid_argument("--load-dtype: \"" + text +
                                  "\" is not allowed; expected auto, fp32, bf16 or fp16");
}

Result<std::optional<sim::CostProfile>> read_profile_flags(const std::string& profile,
                                                           const std::string& kernels,
                                                           const configs::Cluster& cluster) {
  std::optional<sim::CostProfile> p;
  if (!profile.empty()) {
    ZS_ASSIGN_OR_RETURN(p, sim::load_cost_profile(profile, sim::default_cost_profile(cluster)));
  }
  if (!kernels.empty()) {
    ZS_ASSIGN_OR_RETURN(const sim::KernelStyle style,
                        sim::parse_kernel_style("--kernels", kernels));
    if (!p) p = sim::default_cost_profile(cluster);
    p->kernel_style = style;
  }
  return p;
}

}  // namespace zs::cli
