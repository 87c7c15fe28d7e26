// Lints: what a DeepSpeed expert would point out about a config that DeepSpeed accepts, each
// with the numbers behind it (seed 004's review turned into rules), plus warnings for settings
// DeepSpeed silently ignores or rewrites. A lint never blocks.
#include <cmath>
#include <cstdio>

#include "common/json_fields.h"
#include "common/text.h"
#include "common/units.h"
#include "configs/check.h"
#include "configs/reporter.h"

namespace zs::configs {
namespace {

std::string str(Int v) { return std::to_string(v); }

// Bytes per element of the 16-bit (or fp32) gradient buffers DeepSpeed allocates.
Int grad_element_bytes(const DsConfig& c) {
  return training_precision(c) == Precision::kFp32 ? 4 : 2;
}

std::string share_of_gpu(const CheckOptions& o, Bytes b) {
  if (!o.cluster || o.cluster->gpu_memory_bytes <= 0) return "";
  const double pct =
      100.0 * static_cast<double>(b) / static_cast<double>(o.cluster->gpu_memory_bytes);
  char share[32];
  if (pct < 0.1) {
    std::snprintf(share, sizeof share, "under 0.1%%");
  } else {
    std::snprintf(share, sizeof share, "%.1f%%", pct);
  }
  return " (" + std::string(share) + " of the " + format_bytes(o.cluster->gpu_memory_bytes) +
         " on each " + o.cluster->gpu_name + ")";
}

void lint_batch(const CheckOptions& o, const DsConfig& c, Reporter& r) {
  const BatchConfig& b = c.batch;
  auto known = [](const Knob<Int>& k) { return k.is_set() && !k.is_auto(); };
  if (!known(b.train_batch_size) || !known(b.micro_batch_per_gpu) ||
      !known(b.gradient_accumulation_steps)) {
    return;
  }
  const Int t = b.train_batch_size.value;
  const Int per_world = b.micro_batch_per_gpu.value * b.gradient_accumulation_steps.value;
  if (o.world_size) {
    if (t == per_world * *o.world_size) {
      r.lint("batch-arithmetic", "train_batch_size",
             "train_batch_size " + str(t) + " = micro " + str(b.micro_batch_per_gpu.value) +
                 " x grad_accum " + str(b.gradient_accumulation_steps.value) + " x " +
                 str(*o.world_size) + " GPUs: each optimizer step sees " + str(t) + " samples");
    }
    return;
  }
  if (t % per_world != 0) {
    r.error("batch-mismatch", "train_batch_size",
            "train_batch_size " + str(t) + " is not a multiple of micro " +
                str(b.micro_batch_per_gpu.value) + " x grad_accum " +
                str(b.gradient_accumulation_steps.value) + " = " + str(per_world) +
                ": no world size satisfies DeepSpeed's batch assertion");
    return;
  }
  r.lint("batch-arithmetic", "train_batch_size",
         "train_batch_size " + str(t) + " = micro " + str(b.micro_batch_per_gpu.value) +
             " x grad_accum " + str(b.gradient_accumulation_steps.value) + " x world, so it " +
             "runs only on exactly " + str(t / per_world) + " data-parallel GPUs",
         "pass --world (or a cluster) to check it against yours");
}

// Stage 1/2 IPG buffers: one of reduce_bucket_size elements, two with overlap_comm, allocated
// at the start of every backward (zero/stage_1_and_2.py; facts sheet section 1.3).
void lint_buckets(const CheckOptions& o, const DsConfig& c, Reporter& r) {
  const ZeroConfig& z = c.zero;
  const Int stage = z.stage.value;
  const Int elem = grad_element_bytes(c);
  const Int bucket = z.reduce_bucket_size.value;
  if (stage == 1 || stage == 2) {
    const Int buffers = z.overlap_comm.value ? 2 : 1;
    const Bytes ipg = buffers * bucket * elem;
    std::string msg = "reduce_bucket_size " + format_grouped(bucket) +
                      " elements = " + format_bytes(bucket * elem) + " per gradient bucket; " +
                      (buffers == 2 ? "overlap_comm double-buffers it: " : "one buffer: ") +
                      format_bytes(ipg) + " allocated at the start of every backward" +
                      share_of_gpu(o, ipg);
    if (o.model && o.model->params > 0) {
      const Bytes grads = o.model->params * elem;
      msg += ", against " + format_bytes(grads) + " of gradients for " + o.model->name;
      if (bucket >= o.model->params) {
        msg +=
            "; one bucket holds every gradient, so the reduction starts only after the whole "
            "backward and cannot overlap it";
      }
    }
    r.lint("bucket-memory", "zero_optimization.reduce_bucket_size", msg,
           z.reduce_bucket_size.in_file() ? "" : "this is DeepSpeed's default (5e8)");
  } else if (stage == 3) {
    const Bytes ipg = bucket * elem;
    const Bytes prefetch = z.prefetch_bucket_size.value * elem;
    r.lint("bucket-memory", "zero_optimization.reduce_bucket_size",
           "stage 3 keeps one gradient bucket of " + format_grouped(bucket) +
               " elements = " + format_bytes(ipg) + " for the whole run" + share_of_gpu(o, ipg) +
               ", and prefetches up to " + format_grouped(z.prefetch_bucket_size.value) +
               " parameter elements (" + format_bytes(prefetch) + ") ahead of use");
  }
}

void lint_overlap(const CheckOptions& o, const DsConfig& c, Reporter& r) {
  const ZeroConfig& z = c.zero;
  const Int stage = z.stage.value;
  if (stage == 0 || z.overlap_comm.value) return;
  std::string msg = "overlap_comm is off";
  msg += z.overlap_comm.in_file() ? "" : " (DeepSpeed's default below stage 3)";
  msg += ": gradient reductions wait for the compute stream instead of running beside backward";
  if (o.model && o.model->params > 0 && o.world_size && *o.world_size > 1) {
    const double n = static_cast<double>(*o.world_size);
    const double bytes = 2.0 * (n - 1) / n * static_cast<double>(o.model->params) *
                         static_cast<double>(grad_element_bytes(c));
    const Int per_step =
        stage == 2 ? std::max<Int>(1, c.batch.gradient_accumulation_steps.value) : 1;
    msg += "; each GPU sends and receives " + format_bytes(static_cast<Bytes>(bytes)) +
           " per all-reduce of " + o.model->name + "'s gradients" +
           (per_step > 1 ? ", " + str(per_step) + " times per optimizer step" : "") +
           ", all of it exposed";
  }
  const Bytes extra = stage == 3 ? 0 : z.reduce_bucket_size.value * grad_element_bytes(c);
  r.lint("overlap-comm-off", "zero_optimization.overlap_comm", msg,
         "set \"overlap_comm\": true" +
             (extra > 0 ? " (costs one more gradient bucket, " + format_bytes(extra) + ")"
                        : std::string()));
}

// Settings DeepSpeed ignores or rewrites without saying so.
void warn_silent(const DsConfig& c, Reporter& r) {
  const ZeroConfig& z = c.zero;
  const Int stage = z.stage.value;
  if (z.offload_param.device.value != "none" && stage < 3) {
    r.warning("ignored-offload", "zero_optimization.offload_param",
              "parameter offload works only at stage 3; at stage " + str(stage) +
                  " DeepSpeed ignores this block and parameters stay on the GPU");
  }
  if (z.offload_optimizer.device.value == "nvme" && (stage == 1 || stage == 2)) {
    r.warning("nvme-as-cpu", "zero_optimization.offload_optimizer.device",
              "NVMe optimizer offload exists only at stage 3; at stage " + str(stage) +
                  " DeepSpeed offloads to CPU memory instead (stage_1_and_2.py)");
  }
  if (z.offload_optimizer.device.value != "none" && stage == 0) {
    r.warning("ignored-offload", "zero_optimization.offload_optimizer",
              "optimizer offload needs ZeRO stage 1, 2 or 3; at stage 0 nothing is offloaded");
  }
  if (z.allgather_bucket_size.in_file() && (stage == 1 || stage == 2)) {
    r.warning("ignored-allgather-bucket", "zero_optimization.allgather_bucket_size",
              "ignored on PyTorch with all_gather_into_tensor (1.13 and later): DeepSpeed "
              "all-gathers each parameter group in one call (runtime/utils.py); the value changes "
              "neither memory nor time");
  }
  if (z.allgather_bucket_size.in_file() && stage == 3) {
    r.warning("ignored-allgather-bucket", "zero_optimization.allgather_bucket_size",
              "stage 3 does not use allgather_bucket_size; stage3_prefetch_bucket_size governs "
              "its parameter all-gathers");
  }
  if (offload_optimizer_enabled(c) && stage < 3 && z.contiguous_gradients.in_file() &&
      !z.contiguous_gradients.value) {
    r.warning("rewritten-value", "zero_optimization.contiguous_gradients",
              "DeepSpeed forces contiguous_gradients on with CPU offload (stage_1_and_2.py)");
  }
  if (z.allgather_sequential.value && z.prefetch_bucket_size.in_file()) {
    r.warning("rewritten-value", "zero_optimization.stage3_prefetch_bucket_size",
              "stage3_allgather_sequential forces the prefetch bucket to 1 element (engine.py)");
  }
  const Fp16Config& f = c.fp16;
  if (f.enabled.value && f.loss_scale.value == 0 && !f.scaler_keys_given && stage > 0 &&
      c.version >= kPydanticPrecision) {
    r.add(Severity::kNote, "fp16-default-scaler", "fp16",
          "this fp16 block sets none of the loss-scaler keys: DeepSpeed " + c.version.str() +
              " starts the dynamic scaler at 2^16 with hysteresis 2, but releases before 0.17.1 "
              "started ZeRO's at 2^32 with hysteresis 1",
          "pass --ds-version to check against the release you run");
  }
  if (f.enabled.value && f.loss_scale.value == 0 && !f.scaler_keys_given && stage > 0 &&
      c.version < kPydanticPrecision) {
    r.warning("fp16-default-scaler", "fp16",
              "this fp16 block sets none of the loss-scaler keys, so DeepSpeed " + c.version.str() +
                  "'s ZeRO builds DynamicLossScaler() with its class defaults: "
                  "initial scale 2^32 and hysteresis 1, not the documented 2^16 and 2 "
                  "(fp16/loss_scaler.py); expect about 16 extra overflow-skipped steps at start",
              "set \"initial_scale_power\": 16 and \"hysteresis\": 2 explicitly");
  }
  const ActivationCheckpointingConfig& a = c.activation_checkpointing;
  if (a.contiguous_memory_optimization.value && !a.number_checkpoints.is_set()) {
    r.warning("checkpointing-layers", "activation_checkpointing.number_checkpoints",
              "contiguous_memory_optimization needs number_checkpoints: "
              "deepspeed.checkpointing.configure asserts \"Must specify the number of layers "
              "with contiguous memory checkpointing\"");
  }
  if (a.cpu_checkpointing.value && !a.partition_activations.value) {
    r.warning("ignored-key", "activation_checkpointing.cpu_checkpointing",
              "cpu_checkpointing acts only together with partition_activations");
  }
}

void lint_expert(const CheckOptions& o, const DsConfig& c, Reporter& r) {
  const ZeroConfig& z = c.zero;
  const Int stage = z.stage.value;
  const Int gas = c.batch.gradient_accumulation_steps.value;
  if (stage == 2 && gas > 1 && !c.batch.gradient_accumulation_steps.is_auto()) {
    r.lint("stage2-accumulation", "zero_optimization.stage",
           "ZeRO-2 reduces gradients on every micro-step (partitioned gradients cannot be "
           "accumulated locally), so with gradient_accumulation_steps " +
               str(gas) + " it communicates " + str(gas) + "x what ZeRO-1 does per optimizer step",
           "if memory allows, stage 1 reduces once per step");
  }
  if (c.logging.steps_per_print.in_file() && c.logging.steps_per_print.value >= 1000) {
    r.lint("steps-per-print", "steps_per_print",
           "DeepSpeed logs the loss scale, learning rate and throughput every " +
               str(c.logging.steps_per_print.value) +
               " steps: at a few seconds per step that is hours between log lines",
           "10 to 100 is usual");
  }
  if (c.logging.wall_clock_breakdown.value) {
    r.lint("wall-clock-breakdown", "wall_clock_breakdown",
           "the timers synchronize the GPU at every forward, backward and step, which hides "
           "overlap and slows training; use it for a diagnosis, not for production runs");
  }
  if (training_precision(c) == Precision::kFp32 && !c.amp.enabled.value) {
    const bool autos =
        c.fp16.enabled.origin == Origin::kResolved || c.bf16.enabled.origin == Origin::kResolved;
    r.lint("fp32-training", c.bf16.key,
           "neither fp16 nor bf16 is enabled, so the model trains in fp32: 4-byte parameters, "
           "gradients and activations, and fp32 tensor-core throughput" +
               std::string(autos ? " (their \"auto\" resolved to false)" : ""),
           "enable \"bf16\" (or fp16 on GPUs without bf16), or pass --precision");
  }
  if (o.cluster && o.cluster->gpu_supports_bf16 && c.fp16.enabled.value) {
    r.lint("prefer-bf16", "fp16.enabled",
           o.cluster->gpu_name +
               " supports bf16, which needs no loss scaling (no skipped "
               "overflow steps) at the same speed and memory as fp16");
  }
  const std::string& comm = c.comm.communication_data_type.value;
  if (c.comm.communication_data_type.is_set() && to_lower(comm) == "fp32" &&
      training_precision(c) != Precision::kFp32) {
    r.lint("fp32-communication", "communication_data_type",
           "fp32 communication doubles the bytes of every gradient reduction compared with the "
           "16-bit training dtype, and adds a cast before and after each");
  }
  const OptimizerConfig& opt = c.optimizer;
  if (opt.kind == OptimizerKind::kAdam && opt.adam_w_mode.value && !opt.torch_adam.value &&
      opt.weight_decay.is_set() && opt.weight_decay.value > 0) {
    r.lint("adam-is-adamw", "optimizer.type",
           "DeepSpeed's \"Adam\" applies weight decay AdamW-style (decoupled) unless "
           "\"adam_w_mode\": false; weight_decay " +
               json::render_value(Json(opt.weight_decay.value)) +
               " therefore decays weights directly");
  }
  if (!opt.present && offload_optimizer_enabled(c) && c.zero_force_ds_cpu_optimizer.value) {
    r.lint("client-optimizer-offload", "zero_optimization.offload_optimizer",
           "there is no optimizer section, so the training script's optimizer is used: with "
           "offload, Accelerate (under the HF Trainer) swaps a torch optimizer for "
           "DeepSpeedCPUAdam keeping only its lr and weight_decay (some versions also betas), "
           "while deepspeed.initialize with a torch optimizer raises ZeRORuntimeException "
           "(engine.py _configure_optimizer)",
           "add an \"optimizer\" section to choose its betas and eps yourself");
  }
  if (offload_optimizer_enabled(c) && !z.offload_optimizer.pin_memory.value) {
    r.lint("pageable-offload", "zero_optimization.offload_optimizer.pin_memory",
           "pageable host buffers make every gradient and parameter copy go through a staging "
           "buffer (roughly half the PCIe throughput of pinned memory)",
           "set \"pin_memory\": true if the host has the RAM");
  }
  if (z.round_robin_gradients.value && (stage == 1 || stage == 2) &&
      !offload_optimizer_enabled(c)) {
    // stage_1_and_2.py _round_robin_reorder: the flat group takes every N-th parameter per rank,
    // which moves the partition boundaries (the oracle's round_robin_gradients runs split other
    // buckets and own other gradients), but its purpose is the CPU-offload copies.
    r.lint("round-robin-without-offload", "zero_optimization.round_robin_gradients",
           "round_robin_gradients reorders the flat parameter group so each rank owns every N-th "
           "parameter (it moves the partition boundaries and so where buckets split); it only "
           "pays off by spreading CPU-offload gradient copies across ranks, and there is no "
           "optimizer offload here");
  } else if (z.round_robin_gradients.value && (stage == 0 || stage == 3)) {
    r.lint("no-effect", "zero_optimization.round_robin_gradients",
           "round_robin_gradients is a ZeRO stage 1/2 option; stage " + str(stage) + " ignores it");
  }
  if (stage < 3) {
    const bool stage3_keys = z.prefetch_bucket_size.in_file() ||
                             z.param_persistence_threshold.in_file() ||
                             z.max_live_parameters.in_file() || z.max_reuse_distance.in_file() ||
                             z.model_persistence_threshold.in_file();
    if (stage3_keys) {
      r.lint("no-effect", "zero_optimization",
             "stage3_* keys have no effect at stage " + str(stage));
    }
  }
  if (stage == 0 && z.present &&
      (z.reduce_bucket_size.in_file() || z.overlap_comm.in_file() ||
       z.contiguous_gradients.in_file())) {
    r.lint("no-effect", "zero_optimization",
           "bucket and overlap keys have no effect at stage 0: DeepSpeed all-reduces gradients "
           "in 5e8-element buckets after backward (engine.py)");
  }
  if (c.activation_checkpointing.partition_activations.value) {
    r.lint("no-effect", "activation_checkpointing.partition_activations",
           "partition_activations splits checkpoints across the tensor-parallel group; without "
           "tensor parallelism it saves nothing, and it acts only in models that call "
           "deepspeed.checkpointing.checkpoint (Megatron style)");
  }
}

// "auto" in a plain-dict section reaches deepspeed.initialize as a string unless a trainer
// replaced it; in pydantic sections DeepSpeed drops it itself.
int autos_breaking_plain_deepspeed(const LoadedConfig& lc) {
  int n = 0;
  for (const AutoLine& line : lc.autos) {
    const std::string& p = line.path;
    const bool pydantic =
        p.starts_with("zero_optimization") || (lc.config.version >= kPydanticPrecision &&
                                               (p.starts_with("fp16") || p.starts_with("bf16")));
    n += pydantic ? 0 : 1;
  }
  return n;
}

// ZeRO++ (stage 3): the Plan gathers 16-bit parameters (hpZ's groups included) and
// reduce-scatters 16-bit gradients. The oracle cannot show what quantization changes (qwZ needs
// CUDA kernels; qgZ works only across nodes), so simulate says its figures assume it off
// instead of guessing.
void warn_unmodelled_zeropp(const DsConfig& c, Reporter& r) {
  const ZeroConfig& z = c.zero;
  if (z.stage.value != 3) return;
  auto warn = [&](const char* key, const std::string& what) {
    r.warning(
        "not-modelled", std::string("zero_optimization.") + key,
        "zerosim does not model " + what + "; its memory and time predictions assume it is off");
  };
  if (z.zero_quantized_weights.value) {
    warn("zero_quantized_weights", "ZeRO++ quantized weights (int8 all-gathers with scales)");
  }
  if (z.zero_quantized_nontrainable_weights.value) {
    warn("zero_quantized_nontrainable_weights", "quantized frozen weights");
  }
  if (z.zero_quantized_gradients.value) {
    // stage3.py uses the quantized all-to-all only across nodes; on one node it reduce-scatters
    // as usual (the oracle's single-node zero_quantized_gradients runs match the Plan).
    warn("zero_quantized_gradients",
         "ZeRO++ quantized gradients (an all-to-all reduction of int4/int8 gradients between "
         "nodes; on one node DeepSpeed reduce-scatters as usual, as the Plan does)");
  }
}

}  // namespace

void add_lints(const CheckOptions& options, LoadedConfig* lc) {
  Reporter r(lc);
  warn_unmodelled_zeropp(lc->config, r);
  lint_batch(options, lc->config, r);
  lint_buckets(options, lc->config, r);
  lint_overlap(options, lc->config, r);
  warn_silent(lc->config, r);
  lint_expert(options, lc->config, r);
  if (const int n = autos_breaking_plain_deepspeed(*lc); n > 0) {
    r.lint("auto-needs-trainer", "",
           std::to_string(n) + " \"auto\" value" + (n == 1 ? " is" : "s are") +
               " in sections DeepSpeed reads as plain values: the file works through the HF "
               "Trainer or Accelerate, which fill them, but deepspeed.initialize on its own would "
               "receive the string \"auto\"");
  }
}

}  // namespace zs::configs
