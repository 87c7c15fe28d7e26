#include "configs/check_render.h"

#include "common/units.h"
#include "configs/effective.h"

namespace zs::configs {
namespace {

std::string context_line(const CheckOptions& o) {
  std::string s = "  rules of DeepSpeed " + o.version.str();
  if (o.model) {
    s += "; model " + o.model->name + " (" + format_count(static_cast<double>(o.model->params)) +
         " parameters, hidden " + std::to_string(o.model->hidden_size) + ")";
  }
  if (o.cluster) {
    s += "; cluster " + o.cluster->description;
  } else if (o.world_size) {
    s += "; data-parallel world " + std::to_string(*o.world_size);
  }
  return s + "\n";
}

void append_group(const LoadedConfig& lc, Severity s, const char* title, std::string* out) {
  const int n = lc.diagnostics.count(s);
  if (n == 0) return;
  *out += "\n" + std::string(title) + " (" + std::to_string(n) + "):\n";
  for (const Diagnostic& d : lc.diagnostics.items()) {
    if (d.severity == s) *out += "  " + format_diagnostic(d, lc.document.source) + "\n";
  }
}

}  // namespace

std::string render_check_text(const LoadedConfig& lc, const CheckOptions& options) {
  std::string out = "zerosim check " + lc.document.source + "\n" + context_line(options);
  const EffectiveConfig e = effective_config(lc.config, lc.document.root);
  out += "\nEffective config (defaults filled in; // says where each value comes from):\n";
  out += render_effective_text(e);
  if (!lc.autos.empty()) {
    out += "\n\"auto\" values (" + std::to_string(lc.autos.size()) + "):\n";
    for (const AutoLine& a : lc.autos) {
      out += "  " + a.path + " = " + (a.resolved ? a.value : "(unresolved)") + "\n";
      if (!a.rule.empty()) out += "      " + a.rule + "\n";
    }
  }
  append_group(lc, Severity::kError, "Errors", &out);
  append_group(lc, Severity::kWarning, "Warnings", &out);
  append_group(lc, Severity::kLint, "Lints", &out);
  append_group(lc, Severity::kNote, "Notes", &out);
  const int errors = lc.diagnostics.count(Severity::kError);
  out += "\n" + std::string(errors > 0 ? "INVALID" : "OK") + ": " + std::to_string(errors) +
         " error(s), " + std::to_string(lc.diagnostics.count(Severity::kWarning)) +
         " warning(s), " + std::to_string(lc.diagnostics.count(Severity::kLint)) + " lint(s)\n";
  return out;
}

json::Json render_check_json(const LoadedConfig& lc, const CheckOptions& options) {
  using json::Json;
  const EffectiveConfig e = effective_config(lc.config, lc.document.root);
  Json out = Json::object();
  out["file"] = lc.document.source;
  out["deepspeed_version"] = options.version.str();
  out["valid"] = !lc.diagnostics.has_errors();
  out["counts"] = {{"errors", lc.diagnostics.count(Severity::kError)},
                   {"warnings", lc.diagnostics.count(Severity::kWarning)},
                   {"lints", lc.diagnostics.count(Severity::kLint)},
                   {"notes", lc.diagnostics.count(Severity::kNote)}};
  if (options.world_size) out["world_size"] = *options.world_size;
  if (options.model) out["model"] = {{"name", options.model->name}, {"params", options.model->params}};
  out["effective_config"] = e.value;
  Json origins = Json::object();
  for (const auto& [path, why] : e.origins) origins[path] = why;
  out["origins"] = origins;
  Json autos = Json::array();
  for (const AutoLine& a : lc.autos) {
    autos.push_back({{"path", a.path},
                     {"resolved", a.resolved},
                     {"value", a.resolved ? Json(a.value) : Json(nullptr)},
                     {"rule", a.rule}});
  }
  out["auto"] = autos;
  Json diags = Json::array();
  for (const Diagnostic& d : lc.diagnostics.items()) {
    Json j = {{"severity", std::string(severity_name(d.severity))},
              {"code", d.code},
              {"path", d.path},
              {"message", d.message}};
    if (d.pos.known()) {
      j["line"] = d.pos.line;
      j["column"] = d.pos.column;
    }
    if (!d.hint.empty()) j["hint"] = d.hint;
    diags.push_back(j);
  }
  out["diagnostics"] = diags;
  return out;
}

}  // namespace zs::configs
