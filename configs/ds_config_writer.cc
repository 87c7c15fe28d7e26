#include "configs/ds_config_writer.h"

#include <algorithm>
#include <array>
#include <optional>

#include "common/json_path.h"
#include "configs/check.h"
#include "configs/effective.h"
#include "configs/hf_trainer_defaults.h"

namespace zs::configs {
namespace {

const AutoLine* find_line(const std::vector<AutoLine>& lines, const std::string& path) {
  for (const AutoLine& line : lines) {
    if (line.path == path) return &line;
  }
  return nullptr;
}

bool is_auto(const Json& v) { return v.is_string() && v == "auto"; }

// Walks `v` (at `path`): writes an integral float (2e8) as the integer DeepSpeed reads it as
// where the effective value is an integer; with `fill`, replaces every "auto" by its resolved
// value (recording the path in `filled`), else records it in `autos`. `effective` is the same
// place in the effective config, or null.
void walk(Json* v, const Json* effective, const std::string& path, const LoadedConfig& lc,
          bool fill, std::vector<std::string>* autos, std::vector<std::string>* filled) {
  if (v->is_object()) {
    for (auto it = v->begin(); it != v->end(); ++it) {
      const Json* e = nullptr;
      if (effective != nullptr && effective->is_object()) {
        const auto found = effective->find(it.key());
        if (found != effective->end()) e = &*found;
      }
      walk(&it.value(), e, json::child_path(path, it.key()), lc, fill, autos, filled);
    }
    return;
  }
  if (v->is_array()) {
    for (std::size_t i = 0; i < v->size(); ++i) {
      walk(&(*v)[i], nullptr, json::index_path(path, i), lc, fill, autos, filled);
    }
    return;
  }
  if (v->is_number_float() && effective != nullptr && effective->is_number_integer() &&
      v->get<double>() == effective->get<double>()) {
    *v = *effective;
    return;
  }
  if (!is_auto(*v)) return;
  const AutoLine* line = find_line(lc.autos, path);
  // AutoLine::value is the value rendered as JSON (auto_resolve.cc, section_io.cc).
  Json parsed = line != nullptr && line->resolved
                    ? Json::parse(line->value, nullptr, /*allow_exceptions=*/false)
                    : Json(Json::value_t::discarded);
  if (!fill || parsed.is_discarded()) {
    if (!fill) autos->push_back(path);
    return;
  }
  *v = std::move(parsed);
  filled->push_back(path);
}

const Json* at(const Json& root, const std::string& path) {
  auto steps = json::parse_path(path);
  return steps.ok() ? json::find_path(root, *steps) : nullptr;
}

// Python's rendering of a number, as TrainingArguments reads it back from a flag.
std::string flag_value(const Json& v) {
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The batch triad's keys and the checked knobs behind them.
std::array<std::pair<const char*, const Knob<Int>*>, 3> batch_triad(const BatchConfig& b) {
  return {{{"train_batch_size", &b.train_batch_size},
           {"train_micro_batch_size_per_gpu", &b.micro_batch_per_gpu},
           {"gradient_accumulation_steps", &b.gradient_accumulation_steps}}};
}

// The batch triad as the written file holds it.
void write_batch(const LoadedConfig& lc, Json* config) {
  const auto triad = batch_triad(lc.config.batch);
  bool any_auto = false;
  for (const auto& [key, knob] : triad) {
    const auto it = config->find(key);
    any_auto = any_auto || (it != config->end() && is_auto(*it));
  }
  for (const auto& [key, knob] : triad) {
    if (!knob->is_set() || knob->is_auto()) continue;
    const auto it = config->find(key);
    const bool in_file = it != config->end();
    if (in_file ? !is_auto(*it) : !any_auto) (*config)[key] = knob->value;
  }
}

class FlagList {
 public:
  explicit FlagList(std::vector<TrainerFlag>* out, std::vector<std::string>* needs)
      : out_(out), needs_(needs) {}

  void add(std::string flag, std::string value, std::string ds_path) {
    for (const TrainerFlag& f : *out_) {
      if (f.flag != flag) continue;
      if (f.value != value) {
        needs_->push_back(f.ds_path + " (" + f.value + ") and " + ds_path + " (" + value +
                          ") must both equal the Trainer's " + flag +
                          ", or it stops with its TrainingArguments mismatch: make one \"auto\"");
      }
      return;
    }
    out_->push_back({std::move(flag), std::move(value), std::move(ds_path)});
  }

 private:
  std::vector<TrainerFlag>* out_;
  std::vector<std::string>* needs_;
};

// A number in the file that HfTrainerDeepSpeedConfig matches against a TrainingArguments value
// needs that flag, unless the Trainer's default already equals it.
void matched_number(const Json& config, const std::string& path, const std::string& flag,
                    std::optional<double> hf_default, FlagList* flags) {
  const Json* v = at(config, path);
  if (v == nullptr || !v->is_number()) return;
  if (hf_default && v->get<double>() == *hf_default) return;
  flags->add(flag, flag_value(*v), path);
}

}  // namespace

std::string TunedConfig::flags_text() const {
  std::string s;
  for (const TrainerFlag& f : flags) {
    s += (s.empty() ? "" : " ") + f.flag + (f.value.empty() ? "" : " " + f.value);
  }
  return s;
}

TunedConfig tuned_ds_config(const LoadedConfig& lc, bool gradient_checkpointing) {
  TunedConfig out;
  out.config = lc.document.root.is_object() ? lc.document.root : Json::object();
  write_batch(lc, &out.config);
  const EffectiveConfig effective = effective_config(lc.config, lc.document.root);
  std::vector<std::string> filled_paths;
  walk(&out.config, &effective.value, "", lc, /*fill=*/false, &out.autos, &filled_paths);
  out.filled = out.config;
  walk(&out.filled, &effective.value, "", lc, /*fill=*/true, &out.autos, &filled_paths);
  // Batch flags that override the file (a sweep's micro-batch) leave no resolved "auto" line:
  // the checked values are what the Trainer fills from the flags below.
  const BatchConfig& batch = lc.config.batch;
  for (const auto& [key, knob] : batch_triad(batch)) {
    const auto it = out.filled.find(key);
    if (it != out.filled.end() && is_auto(*it) && knob->is_set() && !knob->is_auto()) {
      *it = knob->value;
      filled_paths.emplace_back(key);
    }
  }

  // The flags: what the prediction assumed, then what the file's numbers must match.
  FlagList flags(&out.flags, &out.needs);
  const BatchConfig& b = batch;
  if (b.micro_batch_per_gpu.is_set() && !b.micro_batch_per_gpu.is_auto()) {
    flags.add("--per_device_train_batch_size", std::to_string(b.micro_batch_per_gpu.value),
              "train_micro_batch_size_per_gpu");
  }
  if (b.gradient_accumulation_steps.is_set() && !b.gradient_accumulation_steps.is_auto()) {
    flags.add("--gradient_accumulation_steps", std::to_string(b.gradient_accumulation_steps.value),
              "gradient_accumulation_steps");
  }
  switch (training_precision(lc.config)) {
    case Precision::kBf16:
      flags.add("--bf16", "", lc.config.bf16.key + ".enabled");
      break;
    case Precision::kFp16:
      flags.add("--fp16", "", "fp16.enabled");
      break;
    case Precision::kFp32:
      break;
  }
  if (gradient_checkpointing) flags.add("--gradient_checkpointing", "", "");
  matched_number(out.config, "gradient_clipping", "--max_grad_norm", kHfMaxGradNorm, &flags);
  matched_number(out.config, "optimizer.params.lr", "--learning_rate", kHfLearningRate, &flags);
  matched_number(out.config, "scheduler.params.warmup_max_lr", "--learning_rate", kHfLearningRate,
                 &flags);
  matched_number(out.config, "optimizer.params.betas[0]", "--adam_beta1", kHfAdamBeta1, &flags);
  matched_number(out.config, "optimizer.params.betas[1]", "--adam_beta2", kHfAdamBeta2, &flags);
  matched_number(out.config, "optimizer.params.eps", "--adam_epsilon", kHfAdamEpsilon, &flags);
  matched_number(out.config, "optimizer.params.weight_decay", "--weight_decay", kHfWeightDecay,
                 &flags);
  // num_training_steps is --max_steps when that is set; get_warmup_steps() is --warmup_steps.
  matched_number(out.config, "scheduler.params.total_num_steps", "--max_steps", std::nullopt,
                 &flags);
  matched_number(out.config, "scheduler.params.warmup_num_steps", "--warmup_steps", 0.0, &flags);

  // DeepSpeed's rules on what the Trainer hands it.
  CheckOptions options;
  options.version = lc.config.version;
  auto again = run_check_text(out.filled.dump(), lc.document.source, options);
  if (!again.ok()) {
    out.needs.push_back("the filled config could not be checked: " + again.status().message());
    return out;
  }
  for (const Diagnostic& d : again->diagnostics.items()) {
    if (d.severity != Severity::kError) continue;
    const bool was_auto =
        std::find(filled_paths.begin(), filled_paths.end(), d.path) != filled_paths.end();
    const Json* v = at(out.filled, d.path);
    std::string s = d.path + ": ";
    if (was_auto && v != nullptr)
      s += "the HF Trainer fills \"auto\" with " + flag_value(*v) + ", and ";
    s += d.message;
    if (!d.hint.empty()) s += " (" + d.hint + ")";
    if (d.path == "scheduler.params.warmup_num_steps" && was_auto) {
      s += "; pass --warmup_steps N (N > 0) or --warmup_ratio to the Trainer";
    }
    out.needs.push_back(std::move(s));
  }
  return out;
}

}  // namespace zs::configs
