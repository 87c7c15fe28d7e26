#include "configs/ds_config_writer.h"

#include "common/json_path.h"
#include "configs/check.h"
#include "configs/effective.h"

namespace zs::configs {
namespace {

const AutoLine* find_line(const std::vector<AutoLine>& lines, const std::string& path) {
  for (const AutoLine& line : lines) {
    if (line.path == path) return &line;
  }
  return nullptr;
}

// Replaces every "auto" under `v` (at `path`) by its resolved value, and writes an integral
// float (2e8) as the integer DeepSpeed reads it as where the effective value is an integer.
// `effective` is the same place in the effective config, or null.
void resolve_in_place(Json* v, const Json* effective, const std::string& path,
                      const LoadedConfig& lc, std::vector<KeptAuto>* kept,
                      std::vector<std::string>* resolved) {
  if (v->is_object()) {
    for (auto it = v->begin(); it != v->end(); ++it) {
      const Json* e = nullptr;
      if (effective != nullptr && effective->is_object()) {
        const auto found = effective->find(it.key());
        if (found != effective->end()) e = &*found;
      }
      resolve_in_place(&it.value(), e, json::child_path(path, it.key()), lc, kept, resolved);
    }
    return;
  }
  if (v->is_array()) {
    for (std::size_t i = 0; i < v->size(); ++i) {
      resolve_in_place(&(*v)[i], nullptr, json::index_path(path, i), lc, kept, resolved);
    }
    return;
  }
  if (v->is_number_float() && effective != nullptr && effective->is_number_integer() &&
      v->get<double>() == effective->get<double>()) {
    *v = *effective;
    return;
  }
  if (!v->is_string() || *v != "auto") return;
  const AutoLine* line = find_line(lc.autos, path);
  if (line == nullptr || !line->resolved) {
    kept->push_back({path, line != nullptr && !line->rule.empty()
                               ? line->rule
                               : "no rule of the HF Trainer resolves it here"});
    return;
  }
  // AutoLine::value is the value rendered as JSON (auto_resolve.cc, section_io.cc).
  Json parsed = Json::parse(line->value, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    kept->push_back({path, "its resolved value " + line->value + " is not JSON"});
    return;
  }
  *v = std::move(parsed);
  resolved->push_back(path);
}

// Sets the value at a path the writer itself found (it exists).
void set_at(Json* root, const std::string& path, Json value) {
  auto steps = json::parse_path(path);
  ZS_CHECK(steps.ok());
  Json* cur = root;
  for (const json::PathStep& s : *steps) cur = s.is_index ? &(*cur)[s.index] : &(*cur)[s.key];
  *cur = std::move(value);
}

}  // namespace

ResolvedConfig resolved_ds_config(const LoadedConfig& lc) {
  ResolvedConfig out;
  out.config = lc.document.root.is_object() ? lc.document.root : Json::object();
  const BatchConfig& b = lc.config.batch;
  auto put = [&](const char* key, const Knob<Int>& k) {
    if (k.is_set() && !k.is_auto()) out.config[key] = k.value;
  };
  put("train_batch_size", b.train_batch_size);
  put("train_micro_batch_size_per_gpu", b.micro_batch_per_gpu);
  put("gradient_accumulation_steps", b.gradient_accumulation_steps);
  const EffectiveConfig effective = effective_config(lc.config, lc.document.root);
  std::vector<std::string> resolved;
  resolve_in_place(&out.config, &effective.value, "", lc, &out.kept, &resolved);
  // A resolved value DeepSpeed rejects goes back to "auto" (the trainer's own flags fill it).
  CheckOptions options;
  options.version = lc.config.version;
  auto again = run_check_text(out.config.dump(), lc.document.source, options);
  if (!again.ok()) return out;
  for (const std::string& path : resolved) {
    const Diagnostic* d = again->diagnostics.find_at(path, Severity::kError);
    if (d == nullptr) continue;
    set_at(&out.config, path, "auto");
    out.kept.push_back({path, "the resolved value is rejected (" + d->message + ")"});
  }
  return out;
}

}  // namespace zs::configs
