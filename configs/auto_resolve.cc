// "auto" resolution as the HF Trainer does it (transformers integrations/deepspeed.py,
// HfTrainerDeepSpeedConfig.trainer_config_process and trainer_config_finalize): batch keys and
// precision from TrainingArguments (here: explicit flags), bucket sizes from the model's
// hidden size, optimizer and scheduler values from TrainingArguments' defaults.
#include <cmath>

#include "common/json_fields.h"
#include "common/units.h"
#include "configs/check.h"
#include "configs/hf_trainer_defaults.h"
#include "configs/reporter.h"

namespace zs::configs {
namespace {

AutoLine* find_line(LoadedConfig* lc, std::string_view path) {
  for (AutoLine& line : lc->autos) {
    if (line.path == path) return &line;
  }
  return nullptr;
}

void set_line(LoadedConfig* lc, std::string_view path, std::string value, std::string rule,
              bool resolved) {
  if (AutoLine* line = find_line(lc, path)) {
    line->value = std::move(value);
    line->rule = std::move(rule);
    line->resolved = resolved;
  }
}

// Floats keep their point ("1.0"), as Python prints them.
std::string render(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::replace); }

template <class T>
void resolve(LoadedConfig* lc, std::string_view path, Knob<T>& k, T value, std::string rule) {
  if (!k.is_auto()) return;
  set_line(lc, path, render(Json(value)), rule, true);
  k.set(std::move(value), Origin::kResolved, std::move(rule));
}

template <class T>
void leave_unresolved(LoadedConfig* lc, std::string_view path, Knob<T>& k, std::string rule) {
  if (!k.is_auto()) return;
  k.note = rule;
  set_line(lc, path, "", std::move(rule), false);
}

// One batch key: from its flag, checking the file against it as fill_match does.
void resolve_batch_key(LoadedConfig* lc, std::string_view path, Knob<Int>& k,
                       std::optional<Int> flag, std::string_view flag_name,
                       std::string_view hf_arg) {
  if (flag && k.in_file() && !k.is_auto() && k.value != *flag) {
    Reporter(lc).error("hf-mismatch", std::string(path),
                       "the file says " + std::to_string(k.value) + " but " +
                           std::string(flag_name) + " (" + std::string(hf_arg) + ") is " +
                           std::to_string(*flag) +
                           "; the HF Trainer stops with \"Please correct the following "
                           "DeepSpeed config values that mismatch TrainingArguments\"",
                       "set it to \"auto\" or make them agree");
    return;
  }
  if (!k.is_auto()) return;
  if (flag) {
    resolve(lc, path, k, *flag,
            "HF Trainer: " + std::string(hf_arg) + " = " + std::string(flag_name) + " " +
                std::to_string(*flag));
  } else {
    leave_unresolved(lc, path, k,
                     "HF Trainer fills it from " + std::string(hf_arg) + "; pass " +
                         std::string(flag_name) + " to resolve it");
  }
}

// simulate's "what if": --micro-batch / --grad-accum replace the file's values, and an explicit
// train_batch_size is recomputed from them.
void override_batch(const CheckOptions& o, LoadedConfig* lc) {
  BatchConfig& b = lc->config.batch;
  bool changed = false;
  auto apply = [&](Knob<Int>& k, std::optional<Int> flag, const char* name) {
    if (!flag || (k.is_set() && !k.is_auto() && k.value == *flag)) return;
    const std::string note =
        std::string("set by ") + name +
        (k.in_file() && !k.is_auto() ? " (the file says " + std::to_string(k.value) + ")" : "");
    k.set(*flag, Origin::kDerived, note);
    changed = true;
  };
  apply(b.micro_batch_per_gpu, o.micro_batch, "--micro-batch");
  apply(b.gradient_accumulation_steps, o.grad_accum, "--grad-accum");
  if (changed && b.train_batch_size.is_set() && !b.train_batch_size.is_auto() &&
      b.micro_batch_per_gpu.is_set() && o.world_size) {
    const Int gas =
        b.gradient_accumulation_steps.is_set() ? b.gradient_accumulation_steps.value : 1;
    b.train_batch_size.set(b.micro_batch_per_gpu.value * gas * *o.world_size, Origin::kDerived,
                           "recomputed from the batch flags (the file says " +
                               std::to_string(b.train_batch_size.value) + ")");
  }
}

void resolve_batch(const CheckOptions& o, LoadedConfig* lc) {
  if (o.batch_flags_override) override_batch(o, lc);
  BatchConfig& b = lc->config.batch;
  // A file without any batch size is a template its launcher completes (Lightning, Accelerate
  // scripts, custom trainers set train_micro_batch_size_per_gpu when it is absent): the flags
  // stand in for it.
  if (!b.train_batch_size.is_set() && !b.micro_batch_per_gpu.is_set()) {
    const std::string why = "not in the file; filled from the trainer's batch flag";
    if (o.micro_batch) b.micro_batch_per_gpu.set(*o.micro_batch, Origin::kDerived, why);
    if (o.grad_accum && !b.gradient_accumulation_steps.is_set()) {
      b.gradient_accumulation_steps.set(*o.grad_accum, Origin::kDerived, why);
    }
  }
  resolve_batch_key(lc, "train_micro_batch_size_per_gpu", b.micro_batch_per_gpu, o.micro_batch,
                    "--micro-batch", "per_device_train_batch_size");
  resolve_batch_key(lc, "gradient_accumulation_steps", b.gradient_accumulation_steps, o.grad_accum,
                    "--grad-accum", "gradient_accumulation_steps");
  if (!b.train_batch_size.is_auto()) return;
  const bool known = o.world_size && b.micro_batch_per_gpu.is_set() &&
                     !b.micro_batch_per_gpu.is_auto() && b.gradient_accumulation_steps.is_set() &&
                     !b.gradient_accumulation_steps.is_auto();
  if (!known) {
    leave_unresolved(lc, "train_batch_size", b.train_batch_size,
                     "HF Trainer computes world_size x per_device_train_batch_size x "
                     "gradient_accumulation_steps; pass --world (or a cluster) and the batch "
                     "flags to resolve it");
    return;
  }
  const Int micro = b.micro_batch_per_gpu.value;
  const Int gas = b.gradient_accumulation_steps.value;
  resolve(lc, "train_batch_size", b.train_batch_size, *o.world_size * micro * gas,
          "HF Trainer: world " + std::to_string(*o.world_size) + " x micro " +
              std::to_string(micro) + " x grad_accum " + std::to_string(gas));
}

void resolve_precision(const CheckOptions& o, LoadedConfig* lc) {
  DsConfig& c = lc->config;
  const std::string bf16_path = c.bf16.key + ".enabled";
  if (o.precision) {
    resolve(lc, "fp16.enabled", c.fp16.enabled, *o.precision == Precision::kFp16,
            "HF Trainer: --fp16 from --precision " + std::string(precision_name(*o.precision)));
    if (c.bf16.key == "bf16") {
      resolve(lc, bf16_path, c.bf16.enabled, *o.precision == Precision::kBf16,
              "HF Trainer: --bf16 from --precision " + std::string(precision_name(*o.precision)));
    }
  } else {
    resolve(lc, "fp16.enabled", c.fp16.enabled, false,
            "HF Trainer: --fp16 not passed (default); pass --precision to choose");
    if (c.bf16.key == "bf16") {
      resolve(lc, bf16_path, c.bf16.enabled, false,
              "HF Trainer: --bf16 not passed (default); pass --precision to choose");
    }
  }
  // The HF Trainer never fills the legacy "bfloat16" block; DeepSpeed drops "auto" there.
  resolve(lc, bf16_path, c.bf16.enabled, false,
          "not filled by the HF Trainer; DeepSpeed drops \"auto\" and bf16 stays off");
  if (c.amp.enabled.is_auto()) {
    resolve(lc, "amp.enabled", c.amp.enabled, false,
            "HF Trainer: only --fp16 with --fp16_backend apex enables it");
  }
  for (auto& [key, value] : c.amp.params) {
    if (key == "opt_level" && value == "auto") {
      value = "O1";
      set_line(lc, "amp.opt_level", "\"O1\"", "HF Trainer: fp16_opt_level default", true);
    }
  }
}

void resolve_optimizer(LoadedConfig* lc) {
  OptimizerConfig& opt = lc->config.optimizer;
  const std::string rule = "HF Trainer: TrainingArguments default ";
  resolve(lc, "optimizer.params.lr", opt.lr, kHfLearningRate, rule + "learning_rate");
  resolve(lc, "optimizer.params.betas", opt.betas, std::vector<double>{kHfAdamBeta1, kHfAdamBeta2},
          rule + "adam_beta1, adam_beta2");
  resolve(lc, "optimizer.params.eps", opt.eps, kHfAdamEpsilon, rule + "adam_epsilon");
  resolve(lc, "optimizer.params.weight_decay", opt.weight_decay, kHfWeightDecay,
          rule + "weight_decay");
  resolve(lc, "gradient_clipping", lc->config.gradient_clipping, kHfMaxGradNorm,
          rule + "max_grad_norm");
}

void resolve_scheduler(LoadedConfig* lc) {
  for (auto& [key, knob] : lc->config.scheduler.params) {
    if (!knob.is_auto()) continue;
    const std::string path = "scheduler.params." + key;
    if (key == "warmup_min_lr") {
      resolve(lc, path, knob, Json(0), "HF Trainer: 0 (fill_only)");
    } else if (key == "warmup_max_lr") {
      resolve(lc, path, knob, Json(kHfLearningRate), "HF Trainer: learning_rate (default)");
    } else if (key == "warmup_num_steps") {
      resolve(lc, path, knob, Json(0),
              "HF Trainer: get_warmup_steps() = --warmup_steps, or warmup_ratio x steps; 0 by "
              "default");
      if (lc->config.version >= kSchedulerStepChecks) {
        Reporter(lc).warning("hf-warmup-zero", path,
                             "with the HF Trainer's defaults (warmup_steps 0, warmup_ratio 0) "
                             "this becomes 0, which DeepSpeed >= 0.19.3 rejects: "
                             "\"warmup_num_steps must be a positive integer, got 0\"",
                             "pass --warmup_steps or --warmup_ratio to the trainer");
      }
    } else {
      leave_unresolved(lc, path, knob,
                       "HF Trainer fills it from num_training_steps; it does not change the "
                       "memory or time of a step");
    }
  }
}

void resolve_zero(const CheckOptions& o, LoadedConfig* lc) {
  ZeroConfig& z = lc->config.zero;
  const bool stage3 = z.stage.value == 3;
  const std::string fallback = "DeepSpeed alone drops \"auto\" and uses its default ";
  if (o.model && o.model->hidden_size > 0) {
    const Int h = o.model->hidden_size;
    const std::string hs = std::to_string(h);
    resolve(lc, "zero_optimization.reduce_bucket_size", z.reduce_bucket_size, h * h,
            "HF Trainer: hidden_size^2 = " + hs + "^2");
    if (stage3) {
      // int(0.9 * h * h): truncation, as transformers does since #33402.
      const Int prefetch = static_cast<Int>(0.9 * static_cast<double>(h) * static_cast<double>(h));
      resolve(lc, "zero_optimization.stage3_prefetch_bucket_size", z.prefetch_bucket_size, prefetch,
              "HF Trainer: int(0.9 x hidden_size^2) = int(0.9 x " + hs + "^2)");
      resolve(lc, "zero_optimization.stage3_param_persistence_threshold",
              z.param_persistence_threshold, 10 * h, "HF Trainer: 10 x hidden_size = 10 x " + hs);
    }
  } else {
    leave_unresolved(lc, "zero_optimization.reduce_bucket_size", z.reduce_bucket_size,
                     "HF Trainer fills hidden_size^2 from the model (pass --model); " + fallback +
                         format_grouped(z.reduce_bucket_size.value));
    if (stage3) {
      leave_unresolved(lc, "zero_optimization.stage3_prefetch_bucket_size", z.prefetch_bucket_size,
                       "HF Trainer fills int(0.9 x hidden_size^2) (pass --model); " + fallback +
                           format_grouped(z.prefetch_bucket_size.value));
      leave_unresolved(lc, "zero_optimization.stage3_param_persistence_threshold",
                       z.param_persistence_threshold,
                       "HF Trainer fills 10 x hidden_size (pass --model); " + fallback +
                           format_grouped(z.param_persistence_threshold.value));
    }
  }
  if (!stage3) {  // The HF Trainer fills these only at stage 3; DeepSpeed then drops "auto".
    const std::string rule =
        "HF Trainer fills it only at stage 3; DeepSpeed drops \"auto\" and "
        "uses its default";
    resolve(lc, "zero_optimization.stage3_prefetch_bucket_size", z.prefetch_bucket_size,
            z.prefetch_bucket_size.value, rule);
    resolve(lc, "zero_optimization.stage3_param_persistence_threshold",
            z.param_persistence_threshold, z.param_persistence_threshold.value, rule);
  }
}

}  // namespace

void resolve_autos(const CheckOptions& options, LoadedConfig* lc) {
  resolve_batch(options, lc);
  resolve_precision(options, lc);
  resolve_optimizer(lc);
  resolve_scheduler(lc);
  resolve_zero(options, lc);
}

}  // namespace zs::configs
