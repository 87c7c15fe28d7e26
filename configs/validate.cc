// DeepSpeed's own validation rules, applied to a read config: the batch triad
// (runtime/config.py _set_batch_related_parameters, _batch_assertion) and the asserts and
// raises a config alone can trigger in config.py, engine.py, zero/stage_1_and_2.py and
// zero/stage3.py. Each failure names the JSON path, the values and what is allowed.
#include "common/json_path.h"
#include "configs/check.h"
#include "configs/leaf_module.h"
#include "configs/reporter.h"

namespace zs::configs {
namespace {

bool usable(const Knob<Int>& k) { return k.is_set() && !k.is_auto(); }
std::string str(Int v) { return std::to_string(v); }

// The batch triad, with DeepSpeed's integer-division fill-in.
void check_batch(const CheckOptions& o, LoadedConfig* lc, Reporter& r) {
  BatchConfig& b = lc->config.batch;
  if (b.train_batch_size.is_auto() || b.micro_batch_per_gpu.is_auto() ||
      b.gradient_accumulation_steps.is_auto()) {
    return;  // unresolved "auto": reported in the auto lines
  }
  const bool train = usable(b.train_batch_size);
  const bool micro = usable(b.micro_batch_per_gpu);
  const bool gas = usable(b.gradient_accumulation_steps);
  if (!train && !micro) {
    r.warning("batch-missing", "",
              "neither train_batch_size nor train_micro_batch_size_per_gpu is set: "
              "deepspeed.initialize fails (\"Either train_batch_size or "
              "train_micro_batch_size_per_gpu needs to be provided\") unless the launcher "
              "(HF Trainer, Accelerate, Lightning) fills them",
              "pass --micro-batch to stand in for the launcher");
    return;
  }
  if (!o.world_size) return;  // the lint shows the implied world size instead
  const Int ws = *o.world_size;
  const std::string why = "DeepSpeed's fill-in (runtime/config.py)";
  if (train && micro && !gas) {
    b.gradient_accumulation_steps.set(b.train_batch_size.value / b.micro_batch_per_gpu.value / ws,
                                      Origin::kDerived,
                                      "train_batch_size // micro // world, " + why);
  } else if (train && gas && !micro) {
    b.micro_batch_per_gpu.set(b.train_batch_size.value / ws / b.gradient_accumulation_steps.value,
                              Origin::kDerived, "train_batch_size // world // grad_accum, " + why);
  } else if (micro && gas && !train) {
    b.train_batch_size.set(b.micro_batch_per_gpu.value * b.gradient_accumulation_steps.value * ws,
                           Origin::kDerived, "micro x grad_accum x world, " + why);
  } else if (train && !micro && !gas) {
    b.gradient_accumulation_steps.set(1, Origin::kDerived, "1 when only train_batch_size is set");
    b.micro_batch_per_gpu.set(b.train_batch_size.value / ws, Origin::kDerived,
                              "train_batch_size // world, " + why);
  } else if (micro && !train && !gas) {
    b.gradient_accumulation_steps.set(1, Origin::kDerived, "1 when only the micro batch is set");
    b.train_batch_size.set(b.micro_batch_per_gpu.value * ws, Origin::kDerived,
                           "micro x world, " + why);
  }
  const Int t = b.train_batch_size.value;
  const Int m = b.micro_batch_per_gpu.value;
  const Int g = b.gradient_accumulation_steps.value;
  if (m <= 0 || g <= 0) {
    r.error(
        "batch-mismatch", m <= 0 ? "train_micro_batch_size_per_gpu" : "gradient_accumulation_steps",
        "DeepSpeed's integer division gives " + str(m <= 0 ? m : g) + " with train_batch_size " +
            str(t) + " on " + str(ws) + " GPUs, and it must be greater than 0",
        "train_batch_size must be at least micro x grad_accum x world");
    return;
  }
  if (t != m * g * ws) {
    const std::string path = b.train_batch_size.in_file()      ? "train_batch_size"
                             : b.micro_batch_per_gpu.in_file() ? "train_micro_batch_size_per_gpu"
                                                               : "gradient_accumulation_steps";
    r.error("batch-mismatch", path,
            "train_batch_size " + str(t) + " != micro_batch_per_gpu " + str(m) +
                " x gradient_accumulation_steps " + str(g) + " x world_size " + str(ws) + " = " +
                str(m * g * ws) +
                " (DeepSpeed: \"Check batch related parameters. train_batch_size is not equal to "
                "micro_batch_per_gpu * gradient_acc_step * world_size\")",
            "with " + str(ws) + " GPUs use train_batch_size " + str(m * g * ws) +
                ", or a multiple of " + str(ws) + " that divides evenly");
  }
}

void check_precision(const DsConfig& c, Reporter& r) {
  const std::string bf16_path = c.bf16.key + ".enabled";
  if (c.fp16.enabled.value && c.bf16.enabled.value) {
    r.error("fp16-and-bf16", bf16_path,
            "fp16.enabled and " + bf16_path +
                " are both true; DeepSpeed asserts \"bfloat16 and fp16 modes cannot be "
                "simultaneously enabled\"",
            "keep one");
  }
  const Fp16Config& f = c.fp16;
  if (f.enabled.value && f.loss_scale.value == 0 && c.version >= kPydanticPrecision) {
    if (f.loss_scale_window.value <= 0) {
      r.error("fp16-scaler", "fp16.loss_scale_window",
              std::to_string(f.loss_scale_window.value) +
                  " is not allowed with dynamic loss scaling; expected an integer > 0");
    }
    if (f.min_loss_scale.value <= 0) {
      r.error("fp16-scaler", "fp16.min_loss_scale",
              std::to_string(f.min_loss_scale.value) +
                  " is not allowed with dynamic loss scaling; expected an integer > 0");
    }
  }
  if (c.amp.enabled.value) {
    if (c.zero.stage.value > 0) {
      r.error("amp-with-zero", "amp.enabled",
              "amp is enabled with ZeRO stage " + std::to_string(c.zero.stage.value) +
                  "; DeepSpeed asserts \"Amp and ZeRO are not currently compatible, please use "
                  "(legacy) fp16 mode which performs similar to amp opt_mode=O2\"",
              "use the fp16 or bf16 block instead of amp");
    }
    if (f.enabled.value || c.bf16.enabled.value) {
      r.error("amp-with-fp16", "amp.enabled",
              "amp is enabled together with fp16/bf16; DeepSpeed raises \"Cannot enable both amp "
              "with (legacy) fp16 or bfloat16 mode\"");
    }
  }
  const Int stage = c.zero.stage.value;
  if (f.fp16_master_weights_and_grads.value && stage == 0) {
    r.error("master-weights", "fp16.fp16_master_weights_and_grads",
            "DeepSpeed asserts \"Fp16_master_weights_and_grads is only supported with ZeRO Stage "
            "1, 2, or 3.\"");
  }
  if (c.bf16.bf16_master_weights_and_grads.value && stage == 0) {
    r.error("master-weights", c.bf16.key + ".bf16_master_weights_and_grads",
            "DeepSpeed asserts \"Bf16_master_weights_and_grads is only supported with ZeRO Stage "
            "1, 2, or 3.\"");
  }
  if (c.bf16.bf16_optimizer_states.value && !c.bf16.bf16_master_weights_and_grads.value) {
    r.error("master-weights", c.bf16.key + ".bf16_optimizer_states",
            "DeepSpeed asserts \"bf16_optimizer_states requires bf16_master_weights_and_grads to "
            "be enabled.\"");
  }
  if (f.fp16_master_weights_and_grads.value && c.bf16.bf16_master_weights_and_grads.value) {
    r.error("master-weights", "fp16.fp16_master_weights_and_grads",
            "fp16 and bf16 master weights are mutually exclusive (zero/base_optimizer.py)");
  }
  if (f.fp16_master_weights_and_grads.value && stage > 0 && !offload_optimizer_enabled(c)) {
    r.error("master-weights", "fp16.fp16_master_weights_and_grads",
            "DeepSpeed requires offload_optimizer to cpu with DeepSpeedCPUAdam for fp16 master "
            "weights (\"Master weights feature requires ZeRO-1 Offload with DeepSpeedCPUAdam\")");
  }
  // Without ZeRO, bf16 training needs grad_accum_dtype equal to the model dtype (engine.py).
  if (stage == 0 && c.bf16.enabled.value && c.data_types.grad_accum_dtype.is_set() &&
      c.version >= kPydanticPrecision) {
    const std::string& g = c.data_types.grad_accum_dtype.value;
    if (g == "fp32" || g == "float32" || g == "float" || g == "torch.float32") {
      r.error("dtype-mix", "data_types.grad_accum_dtype",
              "bf16 without ZeRO with grad_accum_dtype fp32: DeepSpeed raises "
              "NotImplementedError(\"unsupported mix of model_dtype and grad_accum_dtype\")",
              "use ZeRO stage 1 or leave grad_accum_dtype unset");
    }
  }
}

void check_zero(const DsConfig& c, Reporter& r) {
  const ZeroConfig& z = c.zero;
  const Int stage = z.stage.value;
  if (z.offload_optimizer.ratio.value < 1.0 && stage != 3) {
    r.error("partial-offload", "zero_optimization.offload_optimizer.ratio",
            "ratio " + json::render_value(Json(z.offload_optimizer.ratio.value)) +
                " needs ZeRO stage 3; DeepSpeed asserts \"Partial offloading only supported for "
                "ZeRO Stage 3.\" (stage is " +
                std::to_string(stage) + ")");
  }
  const bool grad_avg = c.comm.gradient_allreduce_op.value == "mean";
  if ((stage == 2 || stage == 3) && z.reduce_scatter.value && grad_avg) {
    const std::string which = "ZeRO-" + std::to_string(stage);
    if (c.comm.gradient_predivide_factor.value != 1.0) {
      r.error("predivide-with-reduce-scatter", "gradient_predivide_factor",
              json::render_value(Json(c.comm.gradient_predivide_factor.value)) +
                  " is not allowed with " + which +
                  " and reduce_scatter: DeepSpeed asserts \"gradient_predivide_factor != 1.0 is "
                  "not yet supported with " +
                  which + " with reduce scatter enabled\"",
              "remove it or set zero_optimization.reduce_scatter to false");
    }
    if (c.comm.prescale_gradients.value) {
      r.error("prescale-with-reduce-scatter", "prescale_gradients",
              "true is not allowed with " + which +
                  " and reduce_scatter: DeepSpeed asserts \"pre-scale gradients is not yet "
                  "supported with " +
                  which + " with reduce scatter enabled\"",
              "remove it or set zero_optimization.reduce_scatter to false");
    }
  }
  if ((stage == 1 || stage == 2) && z.allgather_bucket_size.value % 2 != 0) {
    r.error("odd-allgather-bucket", "zero_optimization.allgather_bucket_size",
            std::to_string(z.allgather_bucket_size.value) +
                " is odd; DeepSpeed asserts \"allgather_bucket_size must be a multiple of "
                "nccl_start_alignment_factor, 2\"");
  }
  if (z.legacy_stage1.value) {
    r.error("legacy-stage1", "zero_optimization.legacy_stage1",
            "DeepSpeed raises \"The deprecated version of ZeRO Stage 1 is not supported in "
            "deepspeed >= 0.5.9\"");
  }
  if (c.comm.gradient_allreduce_op.value == "sum" && stage == 3) {
    r.error("allreduce-sum", "gradient_allreduce_op",
            "DeepSpeed raises \"gradient_allreduce_op='sum' is not supported with ZeRO stage 3\"");
  }
  // NVMe offload at stage 3 needs a directory: nvme_path defaults to None and no validator
  // checks it (runtime/zero/offload_config.py). Parameters: zero.Init asserts '"nvme_path" in
  // DeepSpeed Config cannot be None if remote device is nvme' (partition_parameters.py
  // _validate_remote_device); optimizer states: stage3.py _configure_tensor_swapping joins None
  // into a path (TypeError). Below stage 3 the path is never read (ZeRO-1/2 offloads to the CPU;
  // a warning says so).
  if (stage == 3) {
    const auto check_path = [&](const char* key, const std::string& device,
                                const Knob<std::string>& path, const char* why) {
      if (device != "nvme" || (path.is_set() && !path.is_auto() && !path.value.empty())) return;
      r.error("nvme-path-missing", std::string("zero_optimization.") + key + ".nvme_path",
              std::string("is missing, and ") + key +
                  ".device is \"nvme\"; DeepSpeed fails at start-up without it (" + why + ")",
              "set \"nvme_path\" to a directory on the NVMe drive, e.g. \"/local_nvme\"");
    };
    check_path("offload_param", z.offload_param.device.value, z.offload_param.nvme_path,
               "zero.Init asserts \"nvme_path\" cannot be None");
    check_path("offload_optimizer", z.offload_optimizer.device.value, z.offload_optimizer.nvme_path,
               "stage3.py joins None into its swap folder: a TypeError");
  }
}

// zero_optimization.leaf_module (configs/leaf_module.h): DeepSpeed's pydantic model rejects a
// malformed value at start-up.
void check_leaf_module(const DsConfig& c, Reporter& r) {
  const Knob<Json>& k = c.zero.leaf_module;
  if (!k.is_set()) return;
  LeafModules leaves;
  if (auto issue = read_leaf_modules(&k.value, c.version, &leaves)) {
    r.error("leaf-module", issue->path, issue->message);
  }
}

void check_optimizer(const DsConfig& c, Reporter& r) {
  const OptimizerConfig& o = c.optimizer;
  const Int stage = c.zero.stage.value;
  if (stage > 0 && (o.kind == OptimizerKind::kOneBitAdam || o.kind == OptimizerKind::kZeroOneAdam ||
                    o.kind == OptimizerKind::kOneBitLamb)) {
    r.error("optimizer-with-zero", "optimizer.type",
            "\"" + o.type.value + "\" cannot run with ZeRO stage " + std::to_string(stage) +
                " (engine.py: \"... is not compatible with ZeRO\")",
            "use stage 0, or Adam/AdamW");
  }
  // zero/utils.py ZERO_SUPPORTED_OPTIMIZERS: Adam(W), Adagrad, Lion, Muon and DeepSpeed's.
  const bool supported = o.kind == OptimizerKind::kAdam || o.kind == OptimizerKind::kAdamW ||
                         o.kind == OptimizerKind::kAdagrad || o.kind == OptimizerKind::kLion ||
                         o.kind == OptimizerKind::kMuon || o.kind == OptimizerKind::kNone;
  const bool one_bit = o.kind == OptimizerKind::kOneBitAdam ||
                       o.kind == OptimizerKind::kZeroOneAdam ||
                       o.kind == OptimizerKind::kOneBitLamb;
  if (stage > 0 && !supported && !one_bit && !c.zero_allow_untested_optimizer.value) {
    r.error("untested-optimizer", "optimizer.type",
            "\"" + o.type.value +
                "\" is not one of ZeRO's tested optimizers; DeepSpeed asserts "
                "\"You are using an untested ZeRO Optimizer. Please add "
                "<\"zero_allow_untested_optimizer\": true> in the configuration file to use it.\"",
            "add \"zero_allow_untested_optimizer\": true");
  }
  if ((o.kind == OptimizerKind::kLamb || o.kind == OptimizerKind::kOneBitLamb) &&
      c.fp16.loss_scale.value != 0) {
    r.error("lamb-static-scale", "fp16.loss_scale",
            "DeepSpeed asserts \"DeepSpeed lamb optimizer requires dynamic loss scaling\"");
  }
  const bool adam = o.kind == OptimizerKind::kAdam || o.kind == OptimizerKind::kAdamW;
  const bool cpu_path = offload_optimizer_enabled(c);
  for (const auto& [key, value] : o.other_params) {
    const std::string path = "optimizer.params." + key;
    if (!adam || o.torch_adam.value) continue;
    if (key == "fp32_optimizer_states" && !cpu_path) {
      r.error("unknown-argument", path,
              "without optimizer offload DeepSpeed builds FusedAdam, which has no "
              "fp32_optimizer_states argument (TypeError)",
              "remove it or offload the optimizer to the CPU");
    }
    if (key == "set_grad_none" && cpu_path) {
      r.error("unknown-argument", path,
              "with optimizer offload DeepSpeed builds DeepSpeedCPUAdam, which has no "
              "set_grad_none argument (TypeError)");
    }
    if (key == "amsgrad" && value == true && !cpu_path) {
      r.error("amsgrad", path,
              "FusedAdam raises \"FusedAdam does not support the AMSGrad "
              "variant\"");
    }
  }
}

// Plain-dict values DeepSpeed uses without checking, where only some values break it.
void check_plain_values(const DsConfig& c, Reporter& r) {
  if (c.logging.steps_per_print.is_set() && c.logging.steps_per_print.value == 0) {
    r.error("zero-division", "steps_per_print",
            "0 is not allowed: the engine computes global_steps % steps_per_print "
            "(ZeroDivisionError); expected a positive integer, or null for no periodic log");
  } else if (c.logging.steps_per_print.value < 0) {
    r.warning("odd-value", "steps_per_print",
              "a negative interval logs at steps that are multiples of its absolute value");
  }
  const double predivide = c.comm.gradient_predivide_factor.value;
  if (predivide == 0) {
    r.error("zero-division", "gradient_predivide_factor",
            "0 is not allowed: gradients are multiplied by 1 / gradient_predivide_factor "
            "(ZeroDivisionError); expected a number > 0");
  } else if (predivide < 0) {
    r.warning("odd-value", "gradient_predivide_factor",
              "a negative factor flips the sign of the gradients before the reduction");
  }
  if (c.gradient_clipping.value < 0) {
    r.warning("odd-value", "gradient_clipping",
              "DeepSpeed clips only when gradient_clipping > 0; a negative value disables it");
  }
  if (c.flops_profiler.enabled.value && c.flops_profiler.profile_step.value < 1) {
    r.warning("odd-value", "flops_profiler.profile_step",
              "the profiler runs when global_steps == profile_step, so a value below 1 never "
              "profiles");
  }
}

void check_cluster(const CheckOptions& o, const DsConfig& c, Reporter& r) {
  if (!o.cluster) return;
  if (c.bf16.enabled.value && !o.cluster->gpu_supports_bf16) {
    r.error("bf16-unsupported", c.bf16.key + ".enabled",
            o.cluster->gpu_name +
                " has no bf16 support; DeepSpeed raises \"Type bf16 is not "
                "supported on your device.\"",
            "use fp16 on this GPU");
  }
}

}  // namespace

void validate(const CheckOptions& options, LoadedConfig* lc) {
  Reporter r(lc);
  check_batch(options, lc, r);
  check_precision(lc->config, r);
  check_zero(lc->config, r);
  check_leaf_module(lc->config, r);
  check_optimizer(lc->config, r);
  check_plain_values(lc->config, r);
  check_cluster(options, lc->config, r);
}

}  // namespace zs::configs
