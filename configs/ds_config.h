// The DeepSpeed training config as zerosim models it: every key of the sections DeepSpeed's
// engine reads, each a Knob holding DeepSpeed's code default until the file says otherwise.
// Defaults and types follow deepspeed/runtime/{config.py,constants.py,precision_config.py,
// zero/config.py,zero/offload_config.py} at the reference snapshot (configs/ds_version.h);
// where an older release differs, configs/ds_config_reader.cc applies the older default.
//
// Units: DeepSpeed's ZeRO size knobs are element counts (IntUnit::kElements); they are turned
// into bytes only where a buffer's element size is known (plan/), never here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json_reader.h"
#include "configs/ds_version.h"
#include "configs/knob.h"

namespace zs::configs {

using Int = std::int64_t;
using json::Json;

// train_batch_size = micro_batch_per_gpu * gradient_accumulation_steps * data-parallel world
// size (runtime/config.py _set_batch_related_parameters / _batch_assertion).
struct BatchConfig {
  Knob<Int> train_batch_size = unset_knob<Int>();
  Knob<Int> micro_batch_per_gpu = unset_knob<Int>();  // "train_micro_batch_size_per_gpu"
  Knob<Int> gradient_accumulation_steps = unset_knob<Int>();
};

// Which optimizer DeepSpeed builds for "optimizer.type" (runtime/engine.py
// _configure_basic_optimizer; the names are DEEPSPEED_OPTIMIZERS in runtime/config.py).
enum class OptimizerKind {
  kNone,  // no "optimizer" section: the training script supplies one (HF Trainer: torch AdamW)
  kAdam,
  kAdamW,
  kLamb,
  kOneBitAdam,
  kZeroOneAdam,
  kOneBitLamb,
  kAdagrad,
  kLion,
  kMuon,
  kMuP,    // muadam, muadamw, musgd (the mup package)
  kTorch,  // any other name: getattr(torch.optim, type), case-sensitive
};

struct OptimizerConfig {
  bool present = false;
  Knob<std::string> type = unset_knob<std::string>();
  OptimizerKind kind = OptimizerKind::kNone;
  // The HF Trainer fills these four from TrainingArguments when they are "auto".
  Knob<double> lr = unset_knob<double>();
  Knob<std::vector<double>> betas = unset_knob<std::vector<double>>();
  Knob<double> eps = unset_knob<double>();
  Knob<double> weight_decay = unset_knob<double>();
  // Adam/AdamW only: popped by the engine before the constructor.
  Knob<bool> torch_adam{false};
  Knob<bool> adam_w_mode{true};  // "Adam" decays weights AdamW-style unless this is false
  // Every other constructor argument, as written (validated against the constructor).
  std::vector<std::pair<std::string, Json>> other_params;
  Knob<bool> legacy_fusion{false};
};

struct SchedulerConfig {
  bool present = false;
  Knob<std::string> type = unset_knob<std::string>();
  bool has_params = false;
  // Constructor arguments as written, after "auto" resolution (runtime/lr_schedules.py).
  std::vector<std::pair<std::string, Knob<Json>>> params;
};

// runtime/precision_config.py DeepSpeedFP16Config.
struct Fp16Config {
  bool present = false;
  Knob<bool> enabled{false};
  Knob<bool> auto_cast{false};
  Knob<double> loss_scale{0.0};  // 0 = dynamic loss scaling
  Knob<Int> initial_scale_power{16};
  Knob<Int> loss_scale_window{1000};
  Knob<Int> hysteresis{2};
  Knob<bool> consecutive_hysteresis{false};
  Knob<Int> min_loss_scale{1};
  Knob<bool> fp16_master_weights_and_grads{false};
  // True when one of the loss-scaler keys is written: before 0.17.1 only then did ZeRO build
  // its scaler from this block (otherwise DynamicLossScaler() started at 2^32, hysteresis 1).
  bool scaler_keys_given = false;
};

// runtime/precision_config.py DeepSpeedBF16Config ("bf16", or the legacy "bfloat16").
struct Bf16Config {
  bool present = false;
  std::string key = "bf16";  // which spelling the file used
  Knob<bool> enabled{false};
  Knob<bool> immediate_grad_update{false};
  Knob<bool> check_grad_overflow{true};
  Knob<bool> bf16_master_weights_and_grads{false};
  Knob<bool> bf16_optimizer_states{false};
};

// NVIDIA Apex AMP: every key but "enabled" goes to amp.initialize (runtime/config.py).
struct AmpConfig {
  bool present = false;
  Knob<bool> enabled{false};
  std::vector<std::pair<std::string, Json>> params;
};

// runtime/zero/offload_config.py.
struct OffloadParamConfig {
  bool present = false;
  Knob<std::string> device{"none"};  // none | cpu | nvme
  Knob<std::string> nvme_path = unset_knob<std::string>();
  Knob<Int> buffer_count{5};
  Knob<Int> buffer_size{100'000'000};  // elements
  Knob<Int> max_in_cpu{1'000'000'000};  // elements
  Knob<bool> pin_memory{true};
};

struct OffloadOptimizerConfig {
  bool present = false;
  Knob<std::string> device{"none"};
  Knob<std::string> nvme_path = unset_knob<std::string>();
  Knob<Int> buffer_count{4};
  Knob<bool> pin_memory{true};
  Knob<bool> pipeline_read{false};
  Knob<bool> pipeline_write{false};
  Knob<bool> fast_init{false};
  Knob<double> ratio{1.0};
  Knob<bool> super_offload{false};
  Knob<double> cpuadam_cores_perc{0.8};
};

// runtime/zero/config.py DeepSpeedZeroConfig.
struct ZeroConfig {
  bool present = false;
  bool legacy_bool_form = false;  // "zero_optimization": true|false
  Knob<Int> stage{0};
  Knob<bool> contiguous_gradients{true};
  Knob<bool> reduce_scatter{true};
  Knob<Int> reduce_bucket_size{500'000'000};  // elements
  Knob<bool> use_multi_rank_bucket_allreduce{true};
  Knob<bool> allgather_partitions{true};
  Knob<Int> allgather_bucket_size{500'000'000};  // elements
  Knob<bool> overlap_comm{false};  // None in DeepSpeed: becomes stage == 3
  Knob<bool> load_from_fp32_weights{true};
  Knob<bool> elastic_checkpoint{false};
  OffloadParamConfig offload_param;
  OffloadOptimizerConfig offload_optimizer;
  Knob<Json> zenflow = unset_knob<Json>();
  Knob<Int> sub_group_size{1'000'000'000};  // elements
  Knob<Int> prefetch_bucket_size{50'000'000};  // "stage3_prefetch_bucket_size", elements
  Knob<Int> param_persistence_threshold{100'000};  // "stage3_param_persistence_threshold"
  Knob<Int> model_persistence_threshold{INT64_MAX};  // sys.maxsize
  Knob<Int> max_live_parameters{1'000'000'000};
  Knob<Int> max_reuse_distance{1'000'000'000};
  Knob<bool> gather_16bit_weights_on_model_save{false};
  Knob<Int> module_granularity_threshold{0};
  Knob<bool> use_all_reduce_for_fetch_params{false};
  Knob<bool> allgather_sequential{false};
  Knob<bool> ignore_unused_parameters{true};
  Knob<bool> legacy_stage1{false};
  Knob<bool> round_robin_gradients{false};
  Knob<Int> zero_hpz_partition_size{1};
  Knob<bool> zero_quantized_weights{false};
  Knob<bool> zero_quantized_nontrainable_weights{false};
  Knob<bool> zero_quantized_gradients{false};
  Knob<Json> zeropp_loco_param = unset_knob<Json>();
  Knob<Int> mics_shard_size{-1};
  Knob<bool> mics_hierarchical_params_gather{false};
  Knob<bool> memory_efficient_linear{true};
  Knob<bool> pipeline_loading_checkpoint{false};
  Knob<bool> override_module_apply{true};
  Knob<bool> log_trace_cache_warnings{false};
  Knob<bool> enable_sanity_checks{false};
  Knob<bool> save_muon_momentum_buffer_in_memory{false};
  Knob<Json> leaf_module = unset_knob<Json>();
};

// swap_tensor/aio_config.py: the async I/O engine behind NVMe offload.
struct AioConfig {
  bool present = false;
  Knob<Int> block_size{1'048'576};  // bytes (the one size knob in bytes)
  Knob<Int> queue_depth{8};
  Knob<Int> intra_op_parallelism{1};
  Knob<bool> single_submit{false};
  Knob<bool> overlap_events{true};
  Knob<bool> use_gds{false};
};

// runtime/activation_checkpointing/config.py: consumed by deepspeed.checkpointing.configure,
// i.e. only by models that call deepspeed.checkpointing.checkpoint (Megatron style).
struct ActivationCheckpointingConfig {
  bool present = false;
  Knob<bool> partition_activations{false};
  Knob<bool> contiguous_memory_optimization{false};
  Knob<bool> cpu_checkpointing{false};
  Knob<Int> number_checkpoints = unset_knob<Int>();
  Knob<bool> synchronize_checkpoint_boundary{false};
  Knob<bool> profile{false};
};

// runtime/config.py get_sparse_attention: only the keys of the chosen mode are read.
struct SparseAttentionConfig {
  bool present = false;
  Knob<std::string> mode{"fixed"};
  std::vector<std::pair<std::string, Json>> params;  // the mode's keys, as written
};

// profiling/config.py.
struct FlopsProfilerConfig {
  bool present = false;
  Knob<bool> enabled{false};
  Knob<double> recompute_fwd_factor{0.0};
  Knob<Int> profile_step{1};
  Knob<Int> module_depth{-1};
  Knob<Int> top_modules{1};
  Knob<bool> detailed{true};
  Knob<std::string> output_file = unset_knob<std::string>();
};

// compression/config.py: zerosim checks its structure but does not model compression.
struct CompressionConfig {
  bool present = false;
  std::vector<std::string> enabled_techniques;  // e.g. "weight_quantization"
};

// runtime/config.py get_checkpoint_params and model_checkpointing/config.py.
struct CheckpointConfig {
  bool present = false;
  Knob<std::string> tag_validation{"WARN"};
  Knob<bool> load_universal{false};
  Knob<bool> use_node_local_storage{false};
  Knob<bool> parallel_write_pipeline_stage{false};
  Knob<bool> checkpoint_serialization{true};
  Knob<Json> writer = unset_knob<Json>();
};

// runtime/config.py get_data_types_params.
struct DataTypesConfig {
  bool present = false;
  Knob<std::string> grad_accum_dtype = unset_knob<std::string>();  // None: the model dtype
  Knob<std::string> param_dtype = unset_knob<std::string>();
  Knob<std::string> buffer_dtype = unset_knob<std::string>();
};

// Top-level communication keys (runtime/config.py, runtime/constants.py).
struct CommunicationConfig {
  Knob<std::string> communication_data_type = unset_knob<std::string>();  // None: model dtype
  Knob<std::string> seq_parallel_communication_data_type{"fp32"};
  Knob<bool> prescale_gradients{false};
  Knob<double> gradient_predivide_factor{1.0};
  Knob<std::string> gradient_allreduce_op{"mean"};
  Knob<bool> sparse_gradients{false};
  Knob<bool> disable_allgather{false};
};

// Logging and monitoring keys.
struct LoggingConfig {
  Knob<Int> steps_per_print = unset_knob<Int>();  // None in DeepSpeed: no periodic log line
  Knob<bool> wall_clock_breakdown{false};
  // timers.throughput (utils/config.py DeepSpeedThroughputTimerConfig): the ThroughputTimer
  // calls torch.cuda.synchronize() when it starts (each forward) and stops (each engine.step())
  // while both are true (utils/timer.py ThroughputTimer.start/stop).
  Knob<bool> throughput_timer_enabled{true};
  Knob<bool> throughput_timer_synchronized{true};
  Knob<bool> memory_breakdown{false};
  Knob<bool> dump_state{false};
  Knob<std::string> log_level = unset_knob<std::string>();
  // Monitors (monitor/config.py, comm/config.py): enabled flags only; other keys checked.
  Knob<bool> tensorboard_enabled{false};
  Knob<bool> wandb_enabled{false};
  Knob<bool> csv_monitor_enabled{false};
  Knob<bool> comet_enabled{false};
  Knob<bool> comms_logger_enabled{false};
};

struct DsConfig {
  DsVersion version = kLatestDsVersion;
  BatchConfig batch;
  Knob<double> gradient_clipping{1.0};  // 0 disables clipping
  Knob<bool> zero_allow_untested_optimizer{false};
  Knob<bool> zero_force_ds_cpu_optimizer{true};
  OptimizerConfig optimizer;
  SchedulerConfig scheduler;
  Fp16Config fp16;
  Bf16Config bf16;
  AmpConfig amp;
  CommunicationConfig comm;
  ZeroConfig zero;
  AioConfig aio;
  ActivationCheckpointingConfig activation_checkpointing;
  SparseAttentionConfig sparse_attention;
  FlopsProfilerConfig flops_profiler;
  CompressionConfig compression;
  CheckpointConfig checkpoint;
  DataTypesConfig data_types;
  LoggingConfig logging;
  // Recognised top-level sections zerosim passes through without modelling, as written.
  std::vector<std::pair<std::string, Json>> unmodelled;
};

// The precision the model trains in, as DeepSpeed decides it.
enum class Precision { kFp32, kFp16, kBf16 };
Precision training_precision(const DsConfig& c);
std::string_view precision_name(Precision p);

// Convenience reads of the effective config.
inline bool offload_optimizer_enabled(const DsConfig& c) {
  return c.zero.stage.value > 0 && c.zero.offload_optimizer.device.value != "none";
}
// Parameter offload happens only at stage 3 (DeepSpeed ignores it below).
inline bool offload_param_enabled(const DsConfig& c) {
  return c.zero.stage.value == 3 && c.zero.offload_param.device.value != "none";
}

}  // namespace zs::configs
