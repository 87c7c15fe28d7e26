// Sections zerosim checks as DeepSpeed does but does not model in detail: sparse_attention,
// compression_training, the monitors, and the recognised sections it passes through.
#include "common/json_fields.h"
#include "common/json_path.h"
#include "common/text.h"
#include "configs/read_context.h"
#include "configs/sections.h"

namespace zs::configs {
namespace {

constexpr std::string_view kSparseModes[] = {"dense", "fixed", "variable", "bigbird",
                                             "bslongformer"};
constexpr std::string_view kAttentionKinds[] = {"unidirectional", "bidirectional"};

// runtime/config.py get_sparse_*_config: the keys each mode reads.
std::vector<std::string_view> sparse_mode_keys(std::string_view mode) {
  if (mode == "dense") return {"block"};
  if (mode == "fixed") {
    return {"block", "different_layout_per_head", "num_local_blocks", "num_global_blocks",
            "attention", "horizontal_global_attention", "num_different_global_patterns"};
  }
  if (mode == "variable") {
    return {"block", "different_layout_per_head", "num_random_blocks", "local_window_blocks",
            "global_block_indices", "global_block_end_indices", "attention",
            "horizontal_global_attention"};
  }
  if (mode == "bigbird") {
    return {"block", "different_layout_per_head", "num_random_blocks",
            "num_sliding_window_blocks", "num_global_blocks"};
  }
  return {"block", "different_layout_per_head", "num_sliding_window_blocks",
          "global_block_indices", "global_block_end_indices"};
}

// The value check of one sparse_attention key (ops/sparse_attention/sparsity_config.py).
void check_sparse_key(json::ObjectReader& r, std::string_view key) {
  if (key == "different_layout_per_head" || key == "horizontal_global_attention") {
    r.get_bool(key);
  } else if (key == "attention") {
    r.get_enum(key, kAttentionKinds);
  } else if (key == "local_window_blocks" || key == "global_block_indices" ||
             key == "global_block_end_indices") {
    const Json* v = r.raw(key);
    if (key == "global_block_end_indices" && v->is_null()) return;
    bool ok = v->is_array();
    for (std::size_t i = 0; ok && i < v->size(); ++i) ok = (*v)[i].is_number_integer();
    if (!ok) {
      r.report(key, Severity::kError, "wrong-type",
               "expected a list of integers, got " + json::render_value(*v));
    }
  } else {
    r.get_int(key, {.min = key == "block" ? 1 : 0});
  }
}

// Reports and returns whether the sub-block is "enabled" per its shared_parameters.
bool read_compression_technique(const ReadContext& ctx, const Json& block, const std::string& path) {
  json::ObjectReader r(ctx.doc, block, path, ctx.diags);
  if (!r.valid()) return false;
  if (path == "compression_training.layer_reduction") {
    for (auto m = block.begin(); m != block.end(); ++m) r.raw(m.key());
    return r.get_bool("enabled").value_or(false);
  }
  const Json* shared = r.get_object("shared_parameters");
  const Json* groups = r.raw("different_groups");
  r.report_unknown(Severity::kWarning, {}, "DeepSpeed does not read it");
  if (shared == nullptr) return false;
  json::ObjectReader sr(ctx.doc, *shared, json::child_path(path, "shared_parameters"), ctx.diags);
  const bool enabled = sr.get_bool("enabled").value_or(false);
  static constexpr std::string_view kQuantTypes[] = {"symmetric", "asymmetric"};
  static constexpr std::string_view kRounding[] = {"nearest", "stochastic"};
  static constexpr std::string_view kCalibration[] = {"dynamic", "static"};
  if (sr.has("quantization_type")) sr.get_enum("quantization_type", kQuantTypes);
  if (sr.has("rounding")) sr.get_enum("rounding", kRounding);
  if (sr.has("range_calibration")) sr.get_enum("range_calibration", kCalibration);
  if (sr.has("method")) {
    static constexpr std::string_view kSparse[] = {"l1", "topk", "snip_momentum"};
    static constexpr std::string_view kStructured[] = {"l1", "topk"};
    sr.get_enum("method", path.ends_with("sparse_pruning")
                              ? std::span<const std::string_view>(kSparse)
                              : std::span<const std::string_view>(kStructured));
  }
  if (enabled && (groups == nullptr || !groups->is_object() || groups->empty())) {
    ctx.report(path, Severity::kError, "missing-key",
               "shared_parameters.enabled is true, so DeepSpeed requires \"different_groups\" "
               "(compression/config.py: \"different_groups must be specified\")");
  }
  if (enabled && path.ends_with("head_pruning") && !sr.has("num_heads")) {
    ctx.report(json::child_path(path, "shared_parameters"), Severity::kError, "missing-key",
               "head_pruning requires \"num_heads\" in shared_parameters");
  }
  return enabled;
}

struct MonitorSpec {
  std::string_view key;
  std::span<const std::string_view> string_keys;
  std::span<const std::string_view> other_keys;
};

// Recognised top-level keys that zerosim passes through, with what they mean for a prediction.
struct Unmodelled {
  std::string_view key;
  std::string_view effect;  // empty: no effect on memory or step time
};
constexpr Unmodelled kUnmodelled[] = {
    {"autotuning", ""},
    {"elasticity", "elastic training overrides the batch triad"},
    {"data_efficiency", "curriculum learning / random-LTD change tokens per step"},
    {"curriculum_learning", "curriculum learning changes the sequence length per step"},
    {"pipeline", ""},
    {"tensor_parallel", "tensor parallelism splits every layer's memory and compute"},
    {"sequence_parallel_size", "sequence parallelism divides the data-parallel world size"},
    {"data_parallel_size", ""},
    {"compile", "torch.compile / DeepCompile change kernels and may free activations"},
    {"nebula", ""},
    {"datastates_ckpt", ""},
    {"expert_parallel", "expert parallelism changes which parameters each rank holds"},
    {"weight_quantization", "quantized weights change parameter memory"},
    {"hybrid_engine", ""},
    {"progressive_layer_drop", "dropped layers change compute per step"},
    {"quantize_training", ""},
    {"torch_autocast", "autocast changes which ops run in low precision"},
    {"graph_harvesting", ""},
    {"use_data_before_expert_parallelism", ""},
    {"dataloader_drop_last", ""},
    {"vocabulary_size", ""},
    {"managed_gradient_accumulation", ""},
    {"zenflow", ""},
    {"eigenvalue", ""},
    {"load_universal_checkpoint", ""},
    {"seq_parallel_comm_data_type", ""},
};

// True when the block is switched on (an object with "enabled": true, or a positive size).
bool switched_on(const Json& v) {
  if (v.is_object()) {
    const auto e = v.find("enabled");
    if (e != v.end()) return e->is_boolean() && e->get<bool>();
    const auto tp = v.find("autotp_size");
    if (tp != v.end()) return tp->is_number() && tp->get<double>() > 1;
    return !v.empty();
  }
  if (v.is_number()) return v.get<double>() > 1;
  return v.is_boolean() && v.get<bool>();
}

}  // namespace

void read_sparse_attention(const ReadContext& ctx, const Json& root, DsConfig* cfg) {
  const auto it = root.find("sparse_attention");
  if (it == root.end()) return;
  SparseAttentionConfig& sa = cfg->sparse_attention;
  sa.present = true;
  SectionReader r = ctx.section(*it, "sparse_attention", SectionKind::kDict);
  if (!r.valid()) return;
  r.field("mode", sa.mode, EnumRule{kSparseModes});
  const std::vector<std::string_view> keys = sparse_mode_keys(sa.mode.value);
  for (std::string_view key : keys) {
    if (!r.object().has(key)) continue;
    check_sparse_key(r.object(), key);
    sa.params.emplace_back(std::string(key), (*it)[std::string(key)]);
  }
  // Keys of other modes are ignored by DeepSpeed in this mode; unknown ones are typos.
  std::vector<std::string_view> all_keys;
  for (std::string_view mode : kSparseModes) {
    for (std::string_view k : sparse_mode_keys(mode)) all_keys.push_back(k);
  }
  for (auto m = it->begin(); m != it->end(); ++m) {
    if (m.key() == "mode" || std::find(keys.begin(), keys.end(), m.key()) != keys.end()) continue;
    if (std::find(all_keys.begin(), all_keys.end(), m.key()) != all_keys.end()) {
      r.object().raw(m.key());
      r.object().report(m.key(), Severity::kWarning, "ignored-key",
                        "mode \"" + sa.mode.value + "\" does not read \"" + m.key() + "\"");
    }
  }
  r.finish();
}

void read_compression(const ReadContext& ctx, const Json& root, DsConfig* cfg) {
  const auto it = root.find("compression_training");
  if (it == root.end()) return;
  cfg->compression.present = true;
  json::ObjectReader r(ctx.doc, *it, "compression_training", ctx.diags);
  if (!r.valid()) return;
  constexpr std::string_view kTechniques[] = {
      "weight_quantization", "activation_quantization", "sparse_pruning", "row_pruning",
      "head_pruning",        "channel_pruning",         "layer_reduction"};
  for (std::string_view t : kTechniques) {
    const Json* block = r.get_object(t);
    if (block == nullptr) continue;
    if (read_compression_technique(ctx, *block, json::child_path("compression_training", t))) {
      cfg->compression.enabled_techniques.emplace_back(t);
    }
  }
  r.report_unknown(Severity::kWarning, kTechniques, "DeepSpeed does not read it");
}

void read_monitors(const ReadContext& ctx, const Json& root, DsConfig* cfg) {
  // monitor/config.py and comm/config.py: pydantic models, unknown keys rejected.
  static constexpr std::string_view kPathKeys[] = {"output_path", "job_name"};
  static constexpr std::string_view kWandbStrings[] = {"group", "team", "project"};
  static constexpr std::string_view kCometStrings[] = {
      "project", "workspace", "api_key", "experiment_name", "experiment_key", "mode"};
  static constexpr std::string_view kCometOther[] = {"samples_log_interval", "online"};
  static constexpr std::string_view kCommsOther[] = {"prof_all", "prof_ops", "verbose", "debug"};
  const MonitorSpec specs[] = {{"tensorboard", kPathKeys, {}},
                               {"csv_monitor", kPathKeys, {}},
                               {"wandb", kWandbStrings, {}},
                               {"comet", kCometStrings, kCometOther},
                               {"comms_logger", {}, kCommsOther}};
  Knob<bool>* flags[] = {&cfg->logging.tensorboard_enabled, &cfg->logging.csv_monitor_enabled,
                         &cfg->logging.wandb_enabled, &cfg->logging.comet_enabled,
                         &cfg->logging.comms_logger_enabled};
  for (std::size_t i = 0; i < std::size(specs); ++i) {
    const auto it = root.find(specs[i].key);
    if (it == root.end()) continue;
    SectionReader r = ctx.section(*it, std::string(specs[i].key), SectionKind::kPydantic);
    if (!r.valid()) continue;
    r.field("enabled", *flags[i]);
    for (std::string_view k : specs[i].string_keys) {
      Knob<std::string> s = unset_knob<std::string>();
      r.field(k, s, StringRule{}, {.nullable = k != "output_path" && k != "job_name"});
    }
    for (std::string_view k : specs[i].other_keys) r.object().raw(k);
    r.finish(specs[i].other_keys);
  }
}

void read_timers(const ReadContext& ctx, const Json& root, DsConfig* cfg) {
  // utils/config.py get_timers_config: only timers.throughput is read, as a pydantic model.
  const auto it = root.find("timers");
  if (it == root.end()) return;
  json::ObjectReader outer(ctx.doc, *it, "timers", ctx.diags);
  if (!outer.valid()) return;
  constexpr std::string_view kKeys[] = {"throughput"};
  if (const Json* t = outer.get_object("throughput")) {
    SectionReader r = ctx.section(*t, "timers.throughput", SectionKind::kPydantic);
    if (r.valid()) {
      r.field("enabled", cfg->logging.throughput_timer_enabled);
      r.field("synchronized", cfg->logging.throughput_timer_synchronized);
      r.finish();
    }
  }
  outer.report_unknown(Severity::kWarning, kKeys, "DeepSpeed does not read it");
}

void read_unmodelled(const ReadContext& ctx, const Json& root, DsConfig* cfg) {
  for (const Unmodelled& u : kUnmodelled) {
    const auto it = root.find(u.key);
    if (it == root.end()) continue;
    const std::string path(u.key);
    if (u.key == "eigenvalue" || u.key == "load_universal_checkpoint" ||
        u.key == "seq_parallel_comm_data_type" || u.key == "zenflow") {
      const char* instead = u.key == "eigenvalue"                  ? "quantize_training.eigenvalue"
                            : u.key == "load_universal_checkpoint" ? "checkpoint.load_universal"
                            : u.key == "zenflow" ? "zero_optimization.zenflow"
                                                 : "seq_parallel_communication_data_type";
      ctx.report(path, Severity::kWarning, "ignored-key",
                 "DeepSpeed does not read a top-level \"" + path + "\"",
                 std::string("did you mean \"") + instead + "\"?");
      continue;
    }
    cfg->unmodelled.emplace_back(path, *it);
    if ((u.key == "progressive_layer_drop" || u.key == "curriculum_learning") &&
        it->is_object() && !it->contains("enabled")) {
      ctx.report(path, Severity::kError, "missing-key",
                 "DeepSpeed pops \"enabled\" from this block and fails with KeyError without it",
                 "add \"enabled\": false or remove the block");
    }
    if (!u.effect.empty() && switched_on(*it)) {
      ctx.report(path, Severity::kWarning, "not-modelled",
                 "zerosim does not model this (" + std::string(u.effect) +
                     "); its memory and time predictions assume it is off");
    }
  }
}

std::span<const std::string_view> unmodelled_section_keys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> out;
    for (const Unmodelled& u : kUnmodelled) out.push_back(u.key);
    return out;
  }();
  return keys;
}

}  // namespace zs::configs
