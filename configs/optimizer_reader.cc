// Reading "optimizer" and "scheduler": their params are constructor keyword arguments, so the
// accepted names depend on the type (configs/params_spec.h).
#include <cmath>

#include "common/json_fields.h"
#include "common/json_path.h"
#include "common/text.h"
#include "configs/params_spec.h"
#include "configs/read_context.h"

namespace zs::configs {
namespace {

std::string describe(ParamType t) {
  switch (t) {
    case ParamType::kNumber:
      return "a number";
    case ParamType::kInt:
      return "an integer";
    case ParamType::kPositiveInt:
      return "a positive integer";
    case ParamType::kBool:
      return "true or false";
    case ParamType::kString:
      return "a string";
    case ParamType::kBetas:
      return "a list of two numbers in [0, 1)";
    case ParamType::kNumberOrList:
      return "a number or a list of numbers (one per parameter group)";
    case ParamType::kAny:
      return "any value";
  }
  return "a value";
}

bool is_number_list(const Json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const Json& e : v) {
    if (!e.is_number()) return false;
  }
  return true;
}

// True when `v` has the type `t` asks for.
bool type_ok(ParamType t, const Json& v) {
  std::int64_t i = 0;
  std::string unused;
  switch (t) {
    case ParamType::kNumber:
      return v.is_number() && std::isfinite(v.get<double>());
    case ParamType::kInt:
      return !v.is_boolean() && v.is_number() && !json::to_int(v, &i, &unused).has_value();
    case ParamType::kPositiveInt:
      return !v.is_boolean() && v.is_number() && !json::to_int(v, &i, &unused).has_value() && i > 0;
    case ParamType::kBool:
      return v.is_boolean();
    case ParamType::kString:
      return v.is_string();
    case ParamType::kBetas:
      return v.is_array() && v.size() == 2 && is_number_list(v) && v[0] >= 0.0 && v[0] < 1.0 &&
             v[1] >= 0.0 && v[1] < 1.0;
    case ParamType::kNumberOrList:
      return (v.is_number() && std::isfinite(v.get<double>())) || is_number_list(v);
    case ParamType::kAny:
      return true;
  }
  return false;
}

// Checks one constructor argument. Returns true when it is usable as written.
bool check_param(const ReadContext& ctx, const std::string& path, const Json& v,
                 ParamSpec spec) {
  // Before 0.19.3 the schedules took any integer and clamped it (max(2, n)).
  if (spec.type == ParamType::kPositiveInt && ctx.version < kSchedulerStepChecks) {
    spec.type = ParamType::kInt;
  }
  if (v.is_string() && v == "auto") {
    if (spec.hf_auto) {
      ctx.autos->push_back(AutoLine{path, "", "", false});
      return true;
    }
    ctx.report(path, Severity::kError, "unresolvable-auto",
               "\"auto\" is not allowed here: the HF Trainer does not fill this argument and the "
               "constructor would receive the string \"auto\"; expected " + describe(spec.type),
               "write a value");
    return false;
  }
  if (v.is_null() && spec.nullable) return true;
  if (type_ok(spec.type, v)) return true;
  ctx.report(path, Severity::kError, "wrong-type",
             json::render_value(v) + " is not allowed; expected " + describe(spec.type));
  return false;
}

const ParamSpec* find_spec(std::span<const ParamSpec> specs, std::string_view name) {
  for (const ParamSpec& s : specs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

void suggest_unknown(const ReadContext& ctx, const std::string& path, std::string_view name,
                     std::span<const ParamSpec> specs, const std::string& owner) {
  std::vector<std::string_view> names;
  for (const ParamSpec& s : specs) names.push_back(s.name);
  std::string hint;
  if (auto m = closest_match(name, names)) hint = "did you mean \"" + *m + "\"?";
  ctx.report(path, Severity::kError, "unknown-argument",
             "\"" + std::string(name) + "\" is not an argument of " + owner +
                 "; DeepSpeed passes params as keyword arguments, so this fails with TypeError "
                 "(accepted: " + join(names, ", ") + ")",
             hint);
}

OptimizerKind resolve_optimizer_kind(const ReadContext& ctx, const std::string& type) {
  const std::string lower = to_lower(type);
  for (const OptimizerName& n : deepspeed_optimizer_names()) {
    if (n.name == lower) return n.kind;
  }
  for (std::string_view t : torch_optimizer_names()) {
    if (t == type) return OptimizerKind::kTorch;
  }
  std::vector<std::string> candidates;
  for (const OptimizerName& n : deepspeed_optimizer_names()) candidates.emplace_back(n.name);
  for (std::string_view t : torch_optimizer_names()) candidates.emplace_back(t);
  std::string hint;
  if (lower == "deepspeed_adam") {
    hint = "an optimizer name of DeepSpeed releases before 0.3; write \"Adam\"";
  } else if (lower == "fusedadam" || lower == "cpuadam" || lower == "deepspeedcpuadam") {
    hint = "write \"Adam\" or \"AdamW\": DeepSpeed runs them as FusedAdam on GPU and "
           "DeepSpeedCPUAdam with offload";
  } else if (auto m = closest_match(type, candidates)) {
    hint = "did you mean \"" + *m + "\"?";
  }
  ctx.report("optimizer.type", Severity::kError, "unknown-optimizer",
             "\"" + type + "\" is neither a DeepSpeed optimizer nor a torch.optim class; "
             "DeepSpeed fails with \"" + type + " is not a supported DeepSpeed Optimizer\" "
             "(DeepSpeed's names are case-insensitive: adam, adamw, lamb, onebitadam, "
             "zerooneadam, onebitlamb, adagrad, lion, muon, muadam, muadamw, musgd; torch.optim "
             "names are exact, e.g. SGD)",
             hint);
  return OptimizerKind::kNone;
}

// Sets the knob `name` reads into when `v` has its type; anything else (a value of an
// optimizer zerosim does not check, which no ParamSpec typed) is kept as an other parameter.
void set_typed_param(OptimizerConfig* o, std::string_view name, const Json& v, Origin origin) {
  const bool is_auto = origin == Origin::kAuto;
  auto set_number = [&](Knob<double>& k) {
    if (is_auto) {
      k.origin = Origin::kAuto;
    } else {
      k.set(v.get<double>(), origin);
    }
  };
  const bool number = is_auto || v.is_number();
  const bool pair = is_auto || (v.is_array() && v.size() == 2 && v[0].is_number() &&
                                v[1].is_number());
  if (name == "lr" && number) {
    set_number(o->lr);
  } else if (name == "eps" && number) {
    set_number(o->eps);
  } else if (name == "weight_decay" && number) {
    set_number(o->weight_decay);
  } else if (name == "betas" && pair) {
    if (is_auto) {
      o->betas.origin = Origin::kAuto;
    } else {
      o->betas.set({v[0].get<double>(), v[1].get<double>()}, origin);
    }
  } else if (name == "torch_adam" && !is_auto && v.is_boolean()) {
    o->torch_adam.set(v.get<bool>(), origin);
  } else if (name == "adam_w_mode" && !is_auto && v.is_boolean()) {
    o->adam_w_mode.set(v.get<bool>(), origin);
  } else {
    o->other_params.emplace_back(std::string(name), v);
  }
}

}  // namespace

void read_optimizer(const ReadContext& ctx, const Json& root, DsConfig* cfg) {
  const auto it = root.find("optimizer");
  if (it == root.end()) return;
  OptimizerConfig& o = cfg->optimizer;
  o.present = true;
  SectionReader r = ctx.section(*it, "optimizer", SectionKind::kDict);
  if (!r.valid()) return;
  r.field("type", o.type, StringRule{}, {.nullable = true});
  r.field("legacy_fusion", o.legacy_fusion);
  const Json* params = r.object().raw("params");
  constexpr std::string_view kKnown[] = {"type", "params", "legacy_fusion"};
  r.finish(kKnown);
  if (!o.type.is_set()) {
    if (params != nullptr && !params->is_null()) {
      ctx.report("optimizer.params", Severity::kWarning, "ignored-key",
                 "optimizer.params without optimizer.type: DeepSpeed builds no optimizer and "
                 "ignores them");
    }
    return;
  }
  o.kind = resolve_optimizer_kind(ctx, o.type.value);
  if (params == nullptr || params->is_null()) return;  // engine.py: None -> {}
  if (!params->is_object()) {
    ctx.report("optimizer.params", Severity::kError, "wrong-type",
               "expected an object of constructor arguments, got " +
                   std::string(json::type_name(*params)));
    return;
  }
  const std::span<const ParamSpec> specs = optimizer_params(o.kind);
  const bool checked = !specs.empty();
  for (auto m = params->begin(); m != params->end(); ++m) {
    const std::string path = json::child_path("optimizer.params", m.key());
    if (m.key() == "max_grad_norm") {
      // engine.py _configure_basic_optimizer raises for every optimizer type.
      ctx.report(path, Severity::kError, "max-grad-norm",
                 "DeepSpeed rejects max_grad_norm as an optimizer parameter (\"'max_grad_norm' "
                 "is not supported as an optimizer parameter\")",
                 "use the top-level \"gradient_clipping\" instead");
      continue;
    }
    const ParamSpec* spec = find_spec(specs, m.key());
    if (spec == nullptr && checked) {
      if (o.kind == OptimizerKind::kMuon) {
        ctx.report(path, Severity::kWarning, "ignored-key",
                   "the Muon optimizer takes only lr, momentum, weight_decay, muon_lr, betas, "
                   "eps and adam_lr; DeepSpeed drops \"" + m.key() + "\" silently");
        continue;
      }
      suggest_unknown(ctx, path, m.key(), specs, o.type.value);
      continue;
    }
    const ParamSpec fallback{m.key(), ParamType::kAny, "", true};
    if (!check_param(ctx, path, m.value(), spec != nullptr ? *spec : fallback)) continue;
    const bool is_auto = m.value().is_string() && m.value() == "auto";
    set_typed_param(&o, m.key(), m.value(), is_auto ? Origin::kAuto : Origin::kFile);
  }
  if (!checked && o.kind != OptimizerKind::kNone) {
    ctx.report("optimizer.params", Severity::kNote, "unchecked-params",
               "zerosim does not check the constructor arguments of \"" + o.type.value +
                   "\"; the optimizer must accept every key given here");
  }
}

void read_scheduler(const ReadContext& ctx, const Json& root, DsConfig* cfg) {
  const auto it = root.find("scheduler");
  if (it == root.end()) return;
  SchedulerConfig& s = cfg->scheduler;
  s.present = true;
  SectionReader r = ctx.section(*it, "scheduler", SectionKind::kDict);
  if (!r.valid()) return;
  r.field("type", s.type, StringRule{}, {.nullable = true});
  const Json* params = r.object().raw("params");
  constexpr std::string_view kKnown[] = {"type", "params"};
  r.finish(kKnown);
  if (!s.type.is_set()) return;
  const std::string& type = s.type.value;
  std::span<const ParamSpec> specs = scheduler_params(type, ctx.version);
  bool is_torch = false;
  for (std::string_view t : torch_scheduler_names()) is_torch |= t == type;
  if (specs.empty() && !is_torch) {
    std::vector<std::string> candidates;
    for (std::string_view n : deepspeed_scheduler_names()) candidates.emplace_back(n);
    for (std::string_view n : torch_scheduler_names()) candidates.emplace_back(n);
    std::string hint;
    if (auto m = closest_match(type, candidates)) hint = "did you mean \"" + *m + "\"?";
    ctx.report("scheduler.type", Severity::kError, "unknown-scheduler",
               "\"" + type + "\" is not a DeepSpeed LR schedule (LRRangeTest, OneCycle, "
               "WarmupLR, WarmupDecayLR, WarmupCosineLR) nor a torch.optim.lr_scheduler class; "
               "DeepSpeed fails with \"DeepSpeed does not recognize LR scheduler " + type + "\"",
               hint);
    return;
  }
  if (params == nullptr || params->is_null()) {
    ctx.report("scheduler", Severity::kError, "missing-key",
               "scheduler.type is given without scheduler.params: DeepSpeed calls "
               "scheduler(optimizer, **params) and fails with TypeError",
               "add \"params\": {}");
    return;
  }
  if (!params->is_object()) {
    ctx.report("scheduler.params", Severity::kError, "wrong-type",
               "expected an object of constructor arguments, got " +
                   std::string(json::type_name(*params)));
    return;
  }
  s.has_params = true;
  for (auto m = params->begin(); m != params->end(); ++m) {
    const std::string path = json::child_path("scheduler.params", m.key());
    const ParamSpec* spec = find_spec(specs, m.key());
    if (spec == nullptr && !is_torch) {
      suggest_unknown(ctx, path, m.key(), specs, type);
      continue;
    }
    const ParamSpec fallback{m.key(), ParamType::kAny, "", false};
    if (!check_param(ctx, path, m.value(), spec != nullptr ? *spec : fallback)) continue;
    if (m.key() == "warmup_type" && m.value() != "log" && m.value() != "linear") {
      ctx.report(path, Severity::kWarning, "rewritten-value",
                 json::render_value(m.value()) + " is not \"log\" or \"linear\"; DeepSpeed logs "
                 "a warning and uses \"log\"");
    }
    const bool is_auto = m.value().is_string() && m.value() == "auto";
    Knob<Json> k(m.value(), is_auto ? Origin::kAuto : Origin::kFile);
    s.params.emplace_back(m.key(), std::move(k));
  }
  for (const ParamSpec& spec : specs) {  // required arguments and defaults
    const bool given = params->contains(spec.name);
    if (!given && spec.default_json.empty()) {
      ctx.report("scheduler.params", Severity::kError, "missing-key",
                 type + " requires \"" + std::string(spec.name) + "\" (a required constructor "
                 "argument); DeepSpeed fails with TypeError without it");
    }
  }
  if (is_torch) {
    ctx.report("scheduler.type", Severity::kNote, "unchecked-params",
               "\"" + type + "\" is a torch.optim.lr_scheduler class; zerosim does not check "
               "its arguments");
  }
}

}  // namespace zs::configs
