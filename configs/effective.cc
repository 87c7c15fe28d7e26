#include "configs/effective.h"

#include "common/json_fields.h"
#include "common/json_path.h"
#include "common/units.h"
#include "configs/params_spec.h"
#include "configs/sections.h"

namespace zs::configs {
namespace {

using Origins = std::map<std::string, std::string>;

template <class S, class Visit>
void write_section(Json* out, const std::string& key, const S& s, Origins* origins,
                   Visit visit) {
  Json& obj = (*out)[key];
  SectionWriter w(&obj, key, origins);
  visit(w, s);
}

// Keys zerosim checks but passes through as written (apex amp arguments, sparse_attention's).
void write_params_as_written(Json* obj, const std::string& path,
                             const std::vector<std::pair<std::string, Json>>& params,
                             Origins* origins, const std::string& why) {
  for (const auto& [key, value] : params) {
    (*obj)[key] = value;
    (*origins)[json::child_path(path, key)] = why;
  }
}

void write_as_written(Json* out, const std::string& key, const Json& value, Origins* origins,
                      const std::string& why) {
  (*out)[key] = value;
  (*origins)[json::child_path("", key)] = why;
}

// Parameters in the constructor's order (the file's value, else the default), then any the
// constructor list does not know, in file order: the same output whatever the file's order.
Json write_params(const std::string& path, std::span<const ParamSpec> specs,
                  const std::vector<std::pair<std::string, Json>>& given, Origins* origins) {
  Json params = Json::object();
  auto find_given = [&](std::string_view name) -> const Json* {
    for (const auto& [key, value] : given) {
      if (key == name) return &value;
    }
    return nullptr;
  };
  for (const ParamSpec& spec : specs) {
    const std::string key(spec.name);
    if (const Json* v = find_given(key)) {
      params[key] = *v;
      (*origins)[json::child_path(path, key)] = *v == "auto" ? "auto (unresolved)" : "file";
    } else if (!spec.default_json.empty()) {
      params[key] = Json::parse(spec.default_json);
      (*origins)[json::child_path(path, key)] = "default";
    }
  }
  for (const auto& [key, value] : given) {
    if (params.contains(key)) continue;
    params[key] = value;
    (*origins)[json::child_path(path, key)] = value == "auto" ? "auto (unresolved)" : "file";
  }
  return params;
}

void write_optimizer(const DsConfig& c, Json* out, Origins* origins) {
  const OptimizerConfig& o = c.optimizer;
  if (!o.present) return;  // the training script supplies the optimizer
  Json& obj = (*out)["optimizer"];
  obj = Json::object();
  SectionWriter w(&obj, "optimizer", origins);
  w.field("type", o.type);
  std::vector<std::pair<std::string, Json>> given;
  std::vector<std::pair<std::string, std::string>> typed_origins;
  auto add = [&](const char* key, const auto& knob) {
    if (!knob.is_set()) return;
    given.emplace_back(key, knob.is_auto() ? Json("auto") : Json(knob.value));
    typed_origins.emplace_back(key, describe_origin(knob.origin, knob.note));
  };
  add("lr", o.lr);
  add("betas", o.betas);
  add("eps", o.eps);
  add("weight_decay", o.weight_decay);
  if (o.torch_adam.in_file()) add("torch_adam", o.torch_adam);
  if (o.adam_w_mode.in_file()) add("adam_w_mode", o.adam_w_mode);
  for (const auto& p : o.other_params) given.push_back(p);
  obj["params"] = write_params("optimizer.params", optimizer_params(o.kind), given, origins);
  for (const auto& [key, why] : typed_origins) (*origins)["optimizer.params." + key] = why;
  w.field("legacy_fusion", o.legacy_fusion);
}

void write_scheduler(const DsConfig& c, Json* out, Origins* origins) {
  const SchedulerConfig& s = c.scheduler;
  if (!s.present) return;
  Json& obj = (*out)["scheduler"];
  obj = Json::object();
  SectionWriter w(&obj, "scheduler", origins);
  w.field("type", s.type);
  std::vector<std::pair<std::string, Json>> given;
  for (const auto& [key, knob] : s.params) {
    given.emplace_back(key, knob.is_auto() ? Json("auto") : knob.value);
  }
  obj["params"] = write_params("scheduler.params", scheduler_params(s.type.value, c.version),
                               given, origins);
  for (const auto& [key, knob] : s.params) {
    (*origins)["scheduler.params." + key] = describe_origin(knob.origin, knob.note);
  }
}

void write_zero(const DsConfig& c, Json* out, Origins* origins) {
  const ZeroConfig& z = c.zero;
  Json& obj = (*out)["zero_optimization"];
  obj = Json::object();
  SectionWriter w(&obj, "zero_optimization", origins);
  visit_zero(w, z);
  auto offload = [&](const char* key, bool present, const auto& block, auto visit) {
    const std::string path = std::string("zero_optimization.") + key;
    if (!present) {
      obj[key] = nullptr;
      (*origins)[path] = "default: no offload";
      return;
    }
    SectionWriter bw(&obj[key], path, origins);
    visit(bw, block);
  };
  offload("offload_param", z.offload_param.present, z.offload_param,
          [](SectionWriter& v, const OffloadParamConfig& o) { visit_offload_param(v, o); });
  offload("offload_optimizer", z.offload_optimizer.present, z.offload_optimizer,
          [](SectionWriter& v, const OffloadOptimizerConfig& o) { visit_offload_optimizer(v, o); });
}

}  // namespace

EffectiveConfig effective_config(const DsConfig& c, const Json& root) {
  EffectiveConfig e;
  e.value = Json::object();
  Origins* origins = &e.origins;
  SectionWriter top(&e.value, "", origins);
  visit_top_level(top, c);
  write_optimizer(c, &e.value, origins);
  write_scheduler(c, &e.value, origins);
  write_section(&e.value, "fp16", c.fp16, origins,
                [](SectionWriter& w, const Fp16Config& f) { visit_fp16(w, f); });
  const DsVersion version = c.version;
  write_section(&e.value, "bf16", c.bf16, origins,
                [version](SectionWriter& w, const Bf16Config& b) { visit_bf16(w, b, version); });
  if (c.amp.present) {
    Json& amp = e.value["amp"];
    SectionWriter w(&amp, "amp", origins);
    w.field("enabled", c.amp.enabled);
    write_params_as_written(&amp, "amp", c.amp.params, origins,
                            "file (passed to apex amp.initialize)");
  }
  write_zero(c, &e.value, origins);
  const bool nvme = c.zero.offload_param.device.value == "nvme" ||
                    c.zero.offload_optimizer.device.value == "nvme";
  if (c.aio.present || nvme) {
    write_section(&e.value, "aio", c.aio, origins,
                  [](SectionWriter& w, const AioConfig& a) { visit_aio(w, a); });
  }
  if (c.activation_checkpointing.present) {
    write_section(&e.value, "activation_checkpointing", c.activation_checkpointing, origins,
                  [](SectionWriter& w, const ActivationCheckpointingConfig& a) {
                    visit_activation_checkpointing(w, a);
                  });
  }
  if (c.flops_profiler.present) {
    write_section(&e.value, "flops_profiler", c.flops_profiler, origins,
                  [](SectionWriter& w, const FlopsProfilerConfig& f) { visit_flops_profiler(w, f); });
  }
  if (c.checkpoint.present) {
    write_section(&e.value, "checkpoint", c.checkpoint, origins,
                  [](SectionWriter& w, const CheckpointConfig& k) { visit_checkpoint(w, k); });
    Json& pw = e.value["checkpoint"]["parallel_write"];
    SectionWriter w(&pw, "checkpoint.parallel_write", origins);
    w.field("pipeline_stage", c.checkpoint.parallel_write_pipeline_stage);
  }
  if (c.data_types.present) {
    write_section(&e.value, "data_types", c.data_types, origins,
                  [](SectionWriter& w, const DataTypesConfig& d) { visit_data_types(w, d); });
  }
  {
    Json& t = e.value["timers"]["throughput"];
    SectionWriter w(&t, "timers.throughput", origins);
    w.field("enabled", c.logging.throughput_timer_enabled);
    w.field("synchronized", c.logging.throughput_timer_synchronized);
  }
  if (c.sparse_attention.present) {
    Json& sa = e.value["sparse_attention"];
    SectionWriter w(&sa, "sparse_attention", origins);
    w.field("mode", c.sparse_attention.mode);
    write_params_as_written(&sa, "sparse_attention", c.sparse_attention.params, origins, "file");
  }
  if (root.is_object()) {
    for (const char* key : {"compression_training", "tensorboard", "wandb", "csv_monitor",
                            "comet", "comms_logger"}) {
      if (root.contains(key)) {
        write_as_written(&e.value, key, root[key], origins, "file (checked, not modelled)");
      }
    }
  }
  for (const auto& [key, value] : c.unmodelled) {
    write_as_written(&e.value, key, value, origins, "file (not modelled)");
  }
  return e;
}

namespace {

constexpr std::size_t kCommentColumn = 60;

void render(const Json& v, const std::string& path, int indent, const Origins& origins,
            bool last, std::string* out, std::string_view key) {
  const std::string pad(indent * 2, ' ');
  std::string line = pad;
  if (!key.empty()) line += Json(std::string(key)).dump() + ": ";
  if (v.is_object() && !v.empty()) {
    *out += line + "{\n";
    std::size_t i = 0;
    for (auto it = v.begin(); it != v.end(); ++it, ++i) {
      render(it.value(), json::child_path(path, it.key()), indent + 1, origins,
             i + 1 == v.size(), out, it.key());
    }
    *out += pad + "}" + (last ? "" : ",") + "\n";
    return;
  }
  line += v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (!last) line += ",";
  const auto it = origins.find(path);
  if (it != origins.end()) {
    if (line.size() < kCommentColumn) line.append(kCommentColumn - line.size(), ' ');
    line += "  // " + it->second;
  }
  *out += line + "\n";
}

}  // namespace

std::string render_effective_text(const EffectiveConfig& e) {
  std::string out;
  render(e.value, "", 0, e.origins, true, &out, "");
  return out;
}

}  // namespace zs::configs
