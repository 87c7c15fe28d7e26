#include "configs/ds_config_reader.h"

#include <array>

#include "common/json_path.h"
#include "configs/read_context.h"
#include "configs/sections.h"

namespace zs::configs {
namespace {

// Top-level sections read here or by the section readers (read_context.h).
constexpr std::string_view kModelledSections[] = {
    "zero_optimization", "optimizer",      "scheduler",       "fp16",
    "bf16",              "bfloat16",       "amp",             "aio",
    "activation_checkpointing", "sparse_attention", "flops_profiler", "compression_training",
    "checkpoint",        "data_types",     "tensorboard",     "wandb",
    "csv_monitor",       "comet",          "comms_logger",    "allgather_size",
    "timers"};

// The HF Trainer and Accelerate read ds_config files with Python's json.load.
void report_relaxations(const ReadContext& ctx) {
  const json::Relaxations& r = ctx.doc.relaxations;
  auto warn = [&](const std::vector<SourcePos>& where, const char* what) {
    if (where.empty()) return;
    Diagnostic d;
    d.severity = Severity::kWarning;
    d.code = "not-strict-json";
    d.pos = where.front();
    d.message = std::string(what) + " at " + std::to_string(where.size()) +
                (where.size() == 1 ? " place" : " places") +
                ": deepspeed.initialize(config=PATH) reads the file with hjson, which accepts "
                "them, but the HF Trainer and Accelerate load it with json.load, which does not";
    d.hint = "strip them, or pass `zerosim check --json` output's effective config instead";
    ctx.diags->add(std::move(d));
  };
  warn(r.comments, "comments");
  warn(r.trailing_commas, "trailing commas");
  if (r.byte_order_mark) {
    ctx.report("", Severity::kWarning, "not-strict-json",
               "the file starts with a UTF-8 byte order mark, which json.load rejects "
               "(\"Unexpected UTF-8 BOM\")",
               "save the file as UTF-8 without BOM");
  }
}

// Defaults that differ in older releases (configs/ds_version.h).
void apply_version_defaults(DsConfig* cfg) {
  const DsVersion v = cfg->version;
  if (v < kClippingDefaultOne) cfg->gradient_clipping.value = 0.0;
  if (v < kPinMemoryDefaultTrue) {
    cfg->zero.offload_param.pin_memory.value = false;
    cfg->zero.offload_optimizer.pin_memory.value = false;
  }
}

// A section that must be an object, read with its visit_* function.
template <class S, class Visit>
void read_object_section(const ReadContext& ctx, const Json& root, std::string_view key,
                         SectionKind kind, S* section, Visit visit, bool null_is_default,
                         std::span<const std::string_view> extra_known = {}) {
  const auto it = root.find(key);
  if (it == root.end()) return;
  section->present = true;
  if (it->is_null() && null_is_default) return;
  SectionReader r = ctx.section(*it, std::string(key), kind);
  if (!r.valid()) return;
  visit(r, *section);
  r.finish(extra_known);
}

// Replaces the "auto" report line of `path` once the value is known.
void update_auto_line(const ReadContext& ctx, const std::string& path, const std::string& value,
                      const std::string& rule) {
  for (AutoLine& line : *ctx.autos) {
    if (line.path == path) {
      line.value = value;
      line.rule = rule;
      line.resolved = true;
    }
  }
}

// DeepSpeed's overlap_comm is Optional: None (absent, null or "auto") becomes stage == 3
// (zero/config.py overlap_comm_valid).
void derive_overlap_comm(const ReadContext& ctx, ZeroConfig* z) {
  if (z->overlap_comm.origin == Origin::kFile || z->overlap_comm.origin == Origin::kAlias) return;
  const bool on = z->stage.value == 3;
  z->overlap_comm.set(on, Origin::kDerived, "unset: DeepSpeed turns it on only at stage 3");
  update_auto_line(ctx, "zero_optimization.overlap_comm", on ? "true" : "false",
                   "DeepSpeed drops \"auto\"; unset overlap_comm becomes (stage == 3)");
}

template <class O, class Visit>
void read_offload_block(const ReadContext& ctx, SectionReader& zr, std::string_view key, O* o,
                        Visit visit) {
  const Json* v = zr.object().raw(key);
  if (v == nullptr || v->is_null()) return;
  const std::string path = json::child_path(zr.path(), key);
  if (v->is_string() && *v == "auto") {  // dropped by DeepSpeed: the block stays None
    ctx.autos->push_back(AutoLine{path, "null",
                                  "DeepSpeed drops \"auto\" in pydantic sections: no offload",
                                  true});
    return;
  }
  o->present = true;
  SectionReader r = ctx.section(*v, path, SectionKind::kPydantic);
  if (!r.valid()) return;
  visit(r, *o);
  r.finish();
}

// cpu_offload / cpu_offload_param / cpu_offload_use_pin_memory: deprecated booleans that
// DeepSpeedZeroConfig rewrites into offload blocks (zero/config.py, config_utils.py
// _process_deprecated_field).
void read_deprecated_offload(const ReadContext& ctx, SectionReader& zr, ZeroConfig* z) {
  struct Dep {
    std::string_view key;
    std::string_view replacement;
  };
  constexpr Dep kDeps[] = {{"cpu_offload", "offload_optimizer"},
                           {"cpu_offload_param", "offload_param"},
                           {"cpu_offload_use_pin_memory", ""}};
  for (const Dep& dep : kDeps) {
    Knob<bool> flag{false};
    zr.field(dep.key, flag, {.nullable = true});
    if (!flag.in_file()) continue;
    const std::string path = json::child_path(zr.path(), dep.key);
    if (dep.replacement.empty()) {
      ctx.report(path, Severity::kWarning, "deprecated-key",
                 "\"cpu_offload_use_pin_memory\" is deprecated and DeepSpeed discards its value",
                 "set pin_memory inside offload_optimizer / offload_param");
      continue;
    }
    if (zr.object().has(dep.replacement)) {
      ctx.report(path, Severity::kError, "deprecated-conflict",
                 "DeepSpeed rejects the deprecated \"" + std::string(dep.key) +
                     "\" together with \"" + std::string(dep.replacement) +
                     "\" (\"Cannot provide deprecated parameter ... together\")",
                 "remove \"" + std::string(dep.key) + "\"");
      continue;
    }
    ctx.report(path, Severity::kWarning, "deprecated-key",
               "\"" + std::string(dep.key) + "\" is deprecated; DeepSpeed rewrites it to \"" +
                   std::string(dep.replacement) + "\": {\"device\": \"" +
                   (flag.value ? "cpu" : "none") + "\"} with every other offload default",
               "write the " + std::string(dep.replacement) + " block instead");
    if (!flag.value) continue;
    const std::string note = "from the deprecated \"" + std::string(dep.key) + "\": true";
    if (dep.replacement == "offload_optimizer") {
      z->offload_optimizer.present = true;
      z->offload_optimizer.device.set("cpu", Origin::kAlias, note);
    } else {
      z->offload_param.present = true;
      z->offload_param.device.set("cpu", Origin::kAlias, note);
    }
  }
}

void read_zero(const ReadContext& ctx, const Json& root, DsConfig* cfg) {
  ZeroConfig& z = cfg->zero;
  const auto it = root.find("zero_optimization");
  if (it != root.end()) z.present = true;
  if (it != root.end() && it->is_boolean()) {
    // Legacy form (zero/config.py read_zero_config_deprecated).
    z.legacy_bool_form = true;
    z.stage.set(it->get<bool>() ? 1 : 0, Origin::kAlias, "from \"zero_optimization\": " +
                                                           std::string(*it ? "true" : "false"));
    ctx.report("zero_optimization", Severity::kWarning, "deprecated-key",
               "the boolean form of zero_optimization is deprecated; DeepSpeed reads it as "
               "{\"stage\": " + std::to_string(z.stage.value) +
                   "} and takes allgather_bucket_size from the top-level \"allgather_size\"",
               "write {\"stage\": " + std::to_string(z.stage.value) + "}");
    SectionReader top = ctx.section(root, "", SectionKind::kDict);
    top.field("allgather_size", z.allgather_bucket_size, kElements);
  } else if (it != root.end()) {
    SectionReader r = ctx.section(*it, "zero_optimization", SectionKind::kPydantic);
    if (r.valid()) {
      visit_zero(r, z);
      read_deprecated_offload(ctx, r, &z);
      read_offload_block(ctx, r, "offload_param", &z.offload_param,
                         [](SectionReader& v, OffloadParamConfig& o) { visit_offload_param(v, o); });
      read_offload_block(ctx, r, "offload_optimizer", &z.offload_optimizer,
                         [](SectionReader& v, OffloadOptimizerConfig& o) {
                           visit_offload_optimizer(v, o);
                         });
      constexpr std::string_view kNested[] = {"offload_param", "offload_optimizer"};
      r.finish(kNested);
    }
  } else if (root.contains("allgather_size")) {
    ctx.report("allgather_size", Severity::kWarning, "ignored-key",
               "DeepSpeed reads \"allgather_size\" only with the legacy "
               "\"zero_optimization\": true form");
  }
  derive_overlap_comm(ctx, &z);
}

void read_precision(const ReadContext& ctx, const Json& root, DsConfig* cfg) {
  const SectionKind kind =
      ctx.version >= kPydanticPrecision ? SectionKind::kPydantic : SectionKind::kDict;
  read_object_section(ctx, root, "fp16", kind, &cfg->fp16,
                      [](SectionReader& r, Fp16Config& f) { visit_fp16(r, f); }, false);
  if (const auto it = root.find("fp16"); it != root.end() && it->is_object()) {
    for (const char* k : {"initial_scale_power", "loss_scale_window", "min_loss_scale",
                          "hysteresis", "consecutive_hysteresis"}) {
      cfg->fp16.scaler_keys_given |= it->contains(k);
    }
  }
  // runtime/precision_config.py get_bfloat16_config: "bf16", else the legacy "bfloat16".
  const bool has_bf16 = root.contains("bf16") && !root["bf16"].is_null();
  const bool has_legacy = root.contains("bfloat16");
  const std::string_view key = has_bf16 || !has_legacy ? "bf16" : "bfloat16";
  if (has_bf16 && has_legacy) {
    ctx.report("bfloat16", Severity::kWarning, "ignored-key",
               "DeepSpeed ignores \"bfloat16\" because \"bf16\" is also present",
               "remove \"bfloat16\"");
  } else if (has_legacy) {
    ctx.report("bfloat16", Severity::kWarning, "legacy-key",
               "DeepSpeed reads the legacy \"bfloat16\" block, but the HF Trainer looks only at "
               "\"bf16\": it will neither fill \"auto\" here nor load the model in bf16",
               "rename it to \"bf16\"");
  }
  cfg->bf16.key = std::string(key);
  const DsVersion version = ctx.version;
  read_object_section(ctx, root, key, kind, &cfg->bf16,
                      [version](SectionReader& r, Bf16Config& b) { visit_bf16(r, b, version); },
                      false);
  if (key == "bfloat16") {  // path and knob notes name the spelling used
    for (AutoLine& line : *ctx.autos) {
      if (line.path == "bfloat16.enabled") line.rule = "the HF Trainer does not fill \"bfloat16\"";
    }
  }
}

// amp: "enabled" is required (config.py get_amp_params pops it); the rest goes to apex.
void read_amp(const ReadContext& ctx, const Json& root, DsConfig* cfg) {
  const auto it = root.find("amp");
  if (it == root.end()) return;
  AmpConfig& amp = cfg->amp;
  amp.present = true;
  SectionReader r = ctx.section(*it, "amp", SectionKind::kDict);
  if (!r.valid()) return;
  if (!r.object().has("enabled")) {
    ctx.report("amp", Severity::kError, "missing-key",
               "the amp block needs \"enabled\": DeepSpeed pops it and fails with KeyError",
               "add \"enabled\": false or remove the block");
  }
  r.field("enabled", amp.enabled, {.hf_auto = true});
  for (auto m = it->begin(); m != it->end(); ++m) {
    if (m.key() == "enabled") continue;
    r.object().raw(m.key());
    if (m.key() == "opt_level" && m.value() == "auto") {
      ctx.autos->push_back(AutoLine{"amp.opt_level", "", "", false});
    }
    amp.params.emplace_back(m.key(), m.value());
  }
  r.finish();
}

void read_checkpoint(const ReadContext& ctx, const Json& root, DsConfig* cfg) {
  constexpr std::string_view kNested[] = {"parallel_write"};
  read_object_section(ctx, root, "checkpoint", SectionKind::kDict, &cfg->checkpoint,
                      [](SectionReader& r, CheckpointConfig& c) { visit_checkpoint(r, c); },
                      false, kNested);
  const auto it = root.find("checkpoint");
  if (it == root.end() || !it->is_object()) return;
  const auto pw = it->find("parallel_write");
  if (pw == it->end()) return;
  SectionReader r = ctx.section(*pw, "checkpoint.parallel_write", SectionKind::kDict);
  if (!r.valid()) return;
  r.field("pipeline_stage", cfg->checkpoint.parallel_write_pipeline_stage);
  r.finish();
}

void read_sections(const ReadContext& ctx, const Json& root, DsConfig* cfg) {
  SectionReader top = ctx.section(root, "", SectionKind::kDict);
  visit_top_level(top, *cfg);
  read_zero(ctx, root, cfg);
  read_precision(ctx, root, cfg);
  read_amp(ctx, root, cfg);
  read_optimizer(ctx, root, cfg);
  read_scheduler(ctx, root, cfg);
  read_object_section(ctx, root, "aio", SectionKind::kDict, &cfg->aio,
                      [](SectionReader& r, AioConfig& a) {
                        if (r.object().has("thread_count")) {
                          r.object().raw("thread_count");
                          r.object().report("thread_count", Severity::kWarning, "ignored-key",
                                            "DeepSpeed no longer reads \"thread_count\" (renamed "
                                            "\"intra_op_parallelism\" in 0.16.4)",
                                            "rename it to \"intra_op_parallelism\"");
                        }
                        visit_aio(r, a);
                      },
                      true);
  read_object_section(ctx, root, "activation_checkpointing", SectionKind::kDict,
                      &cfg->activation_checkpointing,
                      [](SectionReader& r, ActivationCheckpointingConfig& a) {
                        visit_activation_checkpointing(r, a);
                      },
                      false);
  read_object_section(ctx, root, "flops_profiler", SectionKind::kDict, &cfg->flops_profiler,
                      [](SectionReader& r, FlopsProfilerConfig& f) { visit_flops_profiler(r, f); },
                      false);
  read_object_section(ctx, root, "data_types", SectionKind::kDict, &cfg->data_types,
                      [](SectionReader& r, DataTypesConfig& d) { visit_data_types(r, d); }, false);
  read_checkpoint(ctx, root, cfg);
  read_sparse_attention(ctx, root, cfg);
  read_compression(ctx, root, cfg);
  read_monitors(ctx, root, cfg);
  read_timers(ctx, root, cfg);
  read_unmodelled(ctx, root, cfg);

  std::vector<std::string_view> known(std::begin(kModelledSections), std::end(kModelledSections));
  for (std::string_view k : unmodelled_section_keys()) known.push_back(k);
  // Keys starting with "_" are a common way to comment a key out or annotate a file.
  for (auto m = root.begin(); m != root.end(); ++m) {
    if (!m.key().empty() && m.key().front() == '_') {
      top.object().raw(m.key());
      top.object().report(m.key(), Severity::kNote, "ignored-key",
                          "DeepSpeed ignores \"" + m.key() + "\" (a comment or disabled key?)");
    }
  }
  top.finish(known);
}

LoadedConfig read_document(json::Document doc, const LoadOptions& options) {
  LoadedConfig out;
  out.document = std::move(doc);
  out.config.version = options.version;
  apply_version_defaults(&out.config);
  const ReadContext ctx{out.document, &out.diagnostics, &out.autos, options.version};
  report_relaxations(ctx);
  if (!out.document.root.is_object()) {
    ctx.report("", Severity::kError, "wrong-type",
               "a ds_config must be a JSON object, got " +
                   std::string(json::type_name(out.document.root)));
    return out;
  }
  read_sections(ctx, out.document.root, &out.config);
  return out;
}

}  // namespace

Result<LoadedConfig> load_ds_config_text(std::string_view text, std::string source_name,
                                         const LoadOptions& options) {
  ZS_ASSIGN_OR_RETURN(json::Document doc, json::parse_text(text, std::move(source_name)));
  return read_document(std::move(doc), options);
}

LoadedConfig load_ds_config_document(json::Document doc, const LoadOptions& options) {
  return read_document(std::move(doc), options);
}

Result<LoadedConfig> load_ds_config_file(const std::string& path, const LoadOptions& options) {
  ZS_ASSIGN_OR_RETURN(json::Document doc, json::parse_file(path));
  return read_document(std::move(doc), options);
}

}  // namespace zs::configs
