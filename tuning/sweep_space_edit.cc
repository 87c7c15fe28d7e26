// sweep_space.h: applying variants to a config and reading axis values back.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/text.h"
#include "configs/effective.h"
#include "tuning/sweep_space.h"

namespace zs::tuning {
namespace {

using json::Json;
using json::PathStep;

std::vector<PathStep> steps(std::initializer_list<const char*> keys) {
  std::vector<PathStep> out;
  for (const char* k : keys) out.push_back(PathStep{k, false, 0});
  return out;
}

// Sets the value at `path`, creating missing objects on the way.
Status set_path(Json* root, const std::vector<PathStep>& path, const Json& value) {
  Json* cur = root;
  std::vector<PathStep> walked;
  for (const PathStep& s : path) {
    const std::string here = json::display_path(json::path_of(walked));
    if (s.is_index) {
      if (!cur->is_array() || s.index >= cur->size()) {
        return Status::invalid_argument(
            "cannot set " + json::path_of(path) + ": " + here +
            (cur->is_array() ? " has " + std::to_string(cur->size()) + " elements"
                             : " is " + std::string(json::type_name(*cur)) + ", not an array"));
      }
      cur = &(*cur)[s.index];
    } else {
      if (cur->is_null()) *cur = Json::object();
      if (!cur->is_object()) {
        return Status::invalid_argument("cannot set " + json::path_of(path) + ": " + here + " is " +
                                        std::string(json::type_name(*cur)) + " " +
                                        json::render_value(*cur) + ", not an object");
      }
      cur = &(*cur)[s.key];
    }
    walked.push_back(s);
  }
  *cur = value;
  return Status::ok();
}

// offload=...: each block's device is "cpu" when offloaded; a block the file has is switched
// off with "none" (its other keys kept), a missing one stays missing.
Status set_offload(Json* root, const std::string& mode, std::vector<std::string>* edited) {
  const auto set_block = [&](const char* block, bool on) -> Status {
    const std::vector<PathStep> block_path = steps({"zero_optimization", block});
    const Json* cur = json::find_path(*root, block_path);
    if (!on && (cur == nullptr || !cur->is_object())) {
      if (cur != nullptr && !cur->is_null())
        ZS_RETURN_IF_ERROR(set_path(root, block_path, nullptr));
      return Status::ok();
    }
    if (cur != nullptr && !cur->is_object()) {
      ZS_RETURN_IF_ERROR(set_path(root, block_path, Json::object()));
    }
    std::vector<PathStep> device = block_path;
    device.push_back(PathStep{"device", false, 0});
    ZS_RETURN_IF_ERROR(set_path(root, device, on ? "cpu" : "none"));
    if (on) edited->push_back(json::path_of(block_path));
    return Status::ok();
  };
  ZS_RETURN_IF_ERROR(set_block("offload_optimizer", mode != "none"));
  return set_block("offload_param", mode == "optimizer+param");
}

// precision=...: fp16.enabled and bf16.enabled (the legacy "bfloat16" block when the file
// uses it); a block the file lacks is created only to switch it on.
Status set_precision(Json* root, const std::string& p, std::vector<std::string>* edited) {
  const bool has_bf16 = root->is_object() && root->contains("bf16");
  const char* bf16_key =
      !has_bf16 && root->is_object() && root->contains("bfloat16") ? "bfloat16" : "bf16";
  const auto set_enabled = [&](const char* block, bool on) -> Status {
    if (!on && (!root->is_object() || !root->contains(block))) return Status::ok();
    edited->push_back(std::string(block) + ".enabled");
    return set_path(root, steps({block, "enabled"}), on);
  };
  ZS_RETURN_IF_ERROR(set_enabled("fp16", p == "fp16"));
  return set_enabled(bf16_key, p == "bf16");
}

// True when one path is the other or lies under it.
bool related(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  return b.substr(0, a.size()) == a &&
         (b.size() == a.size() || b[a.size()] == '.' || b[a.size()] == '[');
}

}  // namespace

Result<std::vector<std::string>> apply_variant(std::span<const Axis> axes, const Variant& v,
                                               Json* root, sim::SimulationRequest* request) {
  ZS_CHECK(v.values.size() == axes.size());
  std::vector<std::string> edited;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (!v.values[a]) continue;
    const Json& value = *v.values[a];
    const Axis& axis = axes[a];
    switch (axis.shorthand) {
      case Shorthand::kNone:
        ZS_RETURN_IF_ERROR(set_path(root, axis.path, value));
        edited.push_back(json::path_of(axis.path));
        break;
      case Shorthand::kStage:
        ZS_RETURN_IF_ERROR(set_path(root, steps({"zero_optimization", "stage"}), value));
        edited.push_back("zero_optimization.stage");
        break;
      case Shorthand::kOverlapComm:
        ZS_RETURN_IF_ERROR(set_path(root, steps({"zero_optimization", "overlap_comm"}), value));
        edited.push_back("zero_optimization.overlap_comm");
        break;
      case Shorthand::kMicroBatch:
        request->check.micro_batch = value.get<std::int64_t>();
        break;
      case Shorthand::kGradAccum:
        request->check.grad_accum = value.get<std::int64_t>();
        break;
      case Shorthand::kCheckpointing:
        request->activation_checkpointing = value.get<bool>();
        break;
      case Shorthand::kOffload:
        ZS_RETURN_IF_ERROR(set_offload(root, value.get<std::string>(), &edited));
        break;
      case Shorthand::kPrecision:
        ZS_RETURN_IF_ERROR(set_precision(root, value.get<std::string>(), &edited));
        break;
    }
  }
  return edited;
}

std::optional<std::string> combination_error(const configs::LoadedConfig& lc,
                                             std::span<const std::string> edited_paths) {
  for (const Diagnostic& d : lc.diagnostics.items()) {
    if (d.severity != Severity::kWarning || d.path.empty() || !d.code.starts_with("ignored-")) {
      continue;
    }
    // A bucket size DeepSpeed no longer reads is a knob that does nothing, not a combination
    // that makes no sense: its rows are simulated and show that it changes nothing.
    if (d.code == "ignored-allgather-bucket") continue;
    for (const std::string& p : edited_paths) {
      if (related(d.path, p)) return "DeepSpeed ignores " + d.path + ": " + d.message;
    }
  }
  return std::nullopt;
}

namespace {

// The value `axis` has in `lc`; `effective` is computed on first use (path axes only).
Json effective_value(const Axis& axis, const configs::LoadedConfig& lc,
                     const sim::SimulationRequest& request,
                     std::optional<configs::EffectiveConfig>* effective) {
  const configs::DsConfig& c = lc.config;
  const auto known = [](const configs::Knob<configs::Int>& k) -> Json {
    return k.is_set() && !k.is_auto() ? Json(k.value) : Json(nullptr);
  };
  switch (axis.shorthand) {
    case Shorthand::kStage:
      return c.zero.stage.value;
    case Shorthand::kMicroBatch:
      return known(c.batch.micro_batch_per_gpu);
    case Shorthand::kGradAccum:
      return known(c.batch.gradient_accumulation_steps);
    case Shorthand::kOffload:
      if (!configs::offload_optimizer_enabled(c)) return "none";
      return configs::offload_param_enabled(c) ? "optimizer+param" : "optimizer";
    case Shorthand::kOverlapComm:
      return c.zero.overlap_comm.value;
    case Shorthand::kCheckpointing:
      return request.activation_checkpointing;
    case Shorthand::kPrecision:
      return std::string(configs::precision_name(configs::training_precision(c)));
    case Shorthand::kNone:
      break;
  }
  if (!effective->has_value()) *effective = configs::effective_config(c, lc.document.root);
  if (const Json* v = json::find_path((*effective)->value, axis.path)) return *v;
  if (const Json* v = json::find_path(lc.document.root, axis.path)) return *v;
  return nullptr;
}

}  // namespace

std::vector<Json> axis_values(std::span<const Axis> axes, const Variant& v,
                              const configs::LoadedConfig& lc,
                              const sim::SimulationRequest& request) {
  ZS_CHECK(v.values.size() == axes.size());
  std::optional<configs::EffectiveConfig> effective;
  std::vector<Json> out;
  out.reserve(axes.size());
  for (std::size_t a = 0; a < axes.size(); ++a) {
    out.push_back(v.values[a] ? *v.values[a] : effective_value(axes[a], lc, request, &effective));
  }
  return out;
}

Status check_axes(std::span<const Axis> axes, const json::Document& base,
                  configs::DsVersion version) {
  // The key each axis sets; a shorthand and the path it writes are the same key.
  const auto canonical = [](const Axis& axis) -> std::string {
    switch (axis.shorthand) {
      case Shorthand::kNone:
        return json::path_of(axis.path);
      case Shorthand::kStage:
        return "zero_optimization.stage";
      case Shorthand::kOverlapComm:
        return "zero_optimization.overlap_comm";
      case Shorthand::kMicroBatch:
        return "train_micro_batch_size_per_gpu";
      case Shorthand::kGradAccum:
        return "gradient_accumulation_steps";
      default:
        return axis.key;
    }
  };
  std::map<std::string, std::string> keys;  // canonical -> as given
  for (const Axis& axis : axes) {
    const auto [it, added] = keys.emplace(canonical(axis), axis.key);
    if (!added) {
      return Status::invalid_argument("--vary " + axis.key + " and --vary " + it->second +
                                      " set the same key; give it once");
    }
  }
  const configs::LoadOptions options{version};
  using Key = std::tuple<std::string, std::string, std::string>;
  std::set<Key> base_findings;
  const configs::LoadedConfig base_lc = configs::load_ds_config_document(base, options);
  for (const Diagnostic& d : base_lc.diagnostics.items()) {
    base_findings.insert({d.code, d.path, d.message});
  }
  for (const Axis& axis : axes) {
    if (axis.shorthand != Shorthand::kNone) continue;
    const std::string path = json::path_of(axis.path);
    for (const Json& value : axis.values) {
      const std::string where = "--vary " + axis.key + "=" + value_text(value);
      json::Document doc = base;
      const Status set = set_path(&doc.root, axis.path, value);
      if (!set.is_ok()) return set.with_context(where);
      const configs::LoadedConfig lc = configs::load_ds_config_document(std::move(doc), options);
      for (const Diagnostic& d : lc.diagnostics.items()) {
        const bool bad = d.severity == Severity::kError || d.code == "unknown-key";
        if (!bad || !related(d.path, path) || base_findings.contains({d.code, d.path, d.message})) {
          continue;
        }
        std::string msg = where + ": " + json::display_path(d.path) + ": " + d.message;
        if (!d.hint.empty()) msg += " (" + d.hint + ")";
        if (d.code == "unknown-key" && axis.path.size() == 1) {
          msg += "; shorthands are " + join(shorthand_names(), ", ");
          if (auto m = closest_match(axis.key, shorthand_names())) {
            msg += " (did you mean \"" + *m + "\"?)";
          }
        }
        return Status::invalid_argument(msg);
      }
    }
  }
  return Status::ok();
}

}  // namespace zs::tuning
