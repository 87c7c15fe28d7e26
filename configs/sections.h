// The keys of each DeepSpeed config section, listed once. Each visit_* runs with a
// SectionReader (parse the user's file) or a SectionWriter (emit the effective config); see
// configs/section_io.h. Sections with type-dependent keys (optimizer, scheduler, amp,
// sparse_attention, compression) are read by hand in configs/ds_config_reader.cc.
#pragma once

#include <string_view>

#include "configs/ds_config.h"
#include "configs/section_io.h"

namespace zs::configs {

inline constexpr std::string_view kDeviceNames[] = {"none", "cpu", "nvme"};
inline constexpr std::string_view kCommDtypes[] = {"fp32", "fp16", "bf16"};
inline constexpr std::string_view kAllreduceOps[] = {"mean", "sum"};
inline constexpr std::string_view kTagValidation[] = {"WARN", "IGNORE", "FAIL"};
// runtime/config.py DtypeEnum values, as data_types keys accept them.
inline constexpr std::string_view kDtypeNames[] = {
    "fp16", "float16", "half",  "torch.float16", "fp32",  "float32",        "float",
    "torch.float32", "bf16", "bfloat16", "torch.bfloat16", "int8", "torch.int8"};
inline constexpr std::string_view kLogLevels[] = {"debug", "info", "warning", "error",
                                                  "critical"};

constexpr IntRule kElements{.min = 0, .max = INT64_MAX, .unit = IntUnit::kElements};
constexpr IntRule kAnyInt{.min = INT64_MIN, .max = INT64_MAX};
constexpr IntRule kPositive{.min = 1};

// Top-level scalars: batch triad, clipping, communication, logging (runtime/config.py).
template <class V, class C>
void visit_top_level(V& v, C& c) {
  // null is "not provided" (config.py tests `is not None`).
  v.field("train_batch_size", c.batch.train_batch_size, kPositive,
          {.hf_auto = true, .nullable = true});
  v.field("train_micro_batch_size_per_gpu", c.batch.micro_batch_per_gpu, kPositive,
          {.hf_auto = true, .nullable = true});
  v.field("gradient_accumulation_steps", c.batch.gradient_accumulation_steps, kPositive,
          {.hf_auto = true, .nullable = true});
  v.field("gradient_clipping", c.gradient_clipping, NumberRule{}, {.hf_auto = true});
  v.field("zero_allow_untested_optimizer", c.zero_allow_untested_optimizer);
  v.field("zero_force_ds_cpu_optimizer", c.zero_force_ds_cpu_optimizer);
  v.field("communication_data_type", c.comm.communication_data_type,
          EnumRule{kCommDtypes, /*case_insensitive=*/true}, {.nullable = true});
  v.field("seq_parallel_communication_data_type", c.comm.seq_parallel_communication_data_type,
          EnumRule{kCommDtypes, true}, {.nullable = true});
  v.field("prescale_gradients", c.comm.prescale_gradients);
  v.field("gradient_predivide_factor", c.comm.gradient_predivide_factor, NumberRule{});
  v.field("gradient_allreduce_op", c.comm.gradient_allreduce_op, EnumRule{kAllreduceOps, true});
  v.field("sparse_gradients", c.comm.sparse_gradients);
  v.field("disable_allgather", c.comm.disable_allgather);
  v.field("steps_per_print", c.logging.steps_per_print, kAnyInt, {.nullable = true});
  v.field("wall_clock_breakdown", c.logging.wall_clock_breakdown);
  v.field("memory_breakdown", c.logging.memory_breakdown);
  v.field("dump_state", c.logging.dump_state);
  v.field("log_level", c.logging.log_level, EnumRule{kLogLevels, true}, {.nullable = true});
}

// runtime/precision_config.py DeepSpeedFP16Config.
template <class V, class F>
void visit_fp16(V& v, F& f) {
  v.field("enabled", f.enabled, {.hf_auto = true});
  v.field("auto_cast", f.auto_cast);
  v.field("loss_scale", f.loss_scale, NumberRule{.min = 0});
  v.field("initial_scale_power", f.initial_scale_power, kAnyInt);
  v.field("loss_scale_window", f.loss_scale_window, kAnyInt);
  v.field("hysteresis", f.hysteresis, kAnyInt);
  v.field("consecutive_hysteresis", f.consecutive_hysteresis);
  v.field("min_loss_scale", f.min_loss_scale, kAnyInt);
  v.field("fp16_master_weights_and_grads", f.fp16_master_weights_and_grads);
}

// runtime/precision_config.py DeepSpeedBF16Config; before 0.17.1 only the first two keys.
template <class V, class B>
void visit_bf16(V& v, B& b, DsVersion version) {
  v.field("enabled", b.enabled, {.hf_auto = true});
  v.field("immediate_grad_update", b.immediate_grad_update);
  if (version >= kPydanticPrecision) {
    v.field("check_grad_overflow", b.check_grad_overflow);
    v.field("bf16_master_weights_and_grads", b.bf16_master_weights_and_grads);
    v.field("bf16_optimizer_states", b.bf16_optimizer_states);
  }
}

// runtime/zero/config.py DeepSpeedZeroConfig, except offload_param/offload_optimizer (nested
// sections) and the deprecated cpu_offload* booleans (rewritten by the reader).
template <class V, class Z>
void visit_zero(V& v, Z& z) {
  v.field("stage", z.stage, IntRule{.min = 0, .max = 3});
  v.field("contiguous_gradients", z.contiguous_gradients);
  v.field("reduce_scatter", z.reduce_scatter);
  v.field("reduce_bucket_size", z.reduce_bucket_size, kElements, {.hf_auto = true});
  v.field("use_multi_rank_bucket_allreduce", z.use_multi_rank_bucket_allreduce);
  v.field("allgather_partitions", z.allgather_partitions);
  v.field("allgather_bucket_size", z.allgather_bucket_size, kElements);
  v.field("overlap_comm", z.overlap_comm, {.nullable = true});
  v.field("load_from_fp32_weights", z.load_from_fp32_weights);
  v.field("elastic_checkpoint", z.elastic_checkpoint);
  v.field("sub_group_size", z.sub_group_size, kElements);
  v.field("stage3_prefetch_bucket_size", z.prefetch_bucket_size, kElements,
          {.alias = "prefetch_bucket_size", .hf_auto = true});
  v.field("stage3_param_persistence_threshold", z.param_persistence_threshold, kElements,
          {.alias = "param_persistence_threshold", .hf_auto = true});
  v.field("stage3_model_persistence_threshold", z.model_persistence_threshold, kElements,
          {.alias = "model_persistence_threshold"});
  v.field("stage3_max_live_parameters", z.max_live_parameters, kElements,
          {.alias = "max_live_parameters"});
  v.field("stage3_max_reuse_distance", z.max_reuse_distance, kElements,
          {.alias = "max_reuse_distance"});
  v.field("stage3_gather_16bit_weights_on_model_save", z.gather_16bit_weights_on_model_save,
          {.alias = "gather_16bit_weights_on_model_save",
           .deprecated_alias = "stage3_gather_fp16_weights_on_model_save"});
  v.field("stage3_module_granularity_threshold", z.module_granularity_threshold, kAnyInt,
          {.alias = "module_granularity_threshold"});
  v.field("stage3_use_all_reduce_for_fetch_params", z.use_all_reduce_for_fetch_params,
          {.alias = "use_all_reduce_for_fetch_params"});
  v.field("stage3_allgather_sequential", z.allgather_sequential,
          {.alias = "allgather_sequential"});
  v.field("ignore_unused_parameters", z.ignore_unused_parameters);
  v.field("legacy_stage1", z.legacy_stage1);
  v.field("round_robin_gradients", z.round_robin_gradients);
  v.field("zero_hpz_partition_size", z.zero_hpz_partition_size, IntRule{.min = 0});
  v.field("zero_quantized_weights", z.zero_quantized_weights);
  v.field("zero_quantized_nontrainable_weights", z.zero_quantized_nontrainable_weights);
  v.field("zero_quantized_gradients", z.zero_quantized_gradients);
  v.field("zeropp_loco_param", z.zeropp_loco_param);
  v.field("mics_shard_size", z.mics_shard_size, kAnyInt);
  v.field("mics_hierarchical_params_gather", z.mics_hierarchical_params_gather);
  v.field("memory_efficient_linear", z.memory_efficient_linear);
  v.field("pipeline_loading_checkpoint", z.pipeline_loading_checkpoint);
  v.field("override_module_apply", z.override_module_apply);
  v.field("log_trace_cache_warnings", z.log_trace_cache_warnings);
  v.field("enable_sanity_checks", z.enable_sanity_checks);
  v.field("save_muon_momentum_buffer_in_memory", z.save_muon_momentum_buffer_in_memory);
  v.field("zenflow", z.zenflow);
  v.field("leaf_module", z.leaf_module);
}

// runtime/zero/offload_config.py DeepSpeedZeroOffloadParamConfig.
template <class V, class O>
void visit_offload_param(V& v, O& o) {
  v.field("device", o.device, EnumRule{kDeviceNames});
  v.field("nvme_path", o.nvme_path, StringRule{}, {.nullable = true});
  v.field("buffer_count", o.buffer_count, IntRule{.min = 0});
  v.field("buffer_size", o.buffer_size, kElements);
  v.field("max_in_cpu", o.max_in_cpu, kElements);
  v.field("pin_memory", o.pin_memory);
}

// runtime/zero/offload_config.py DeepSpeedZeroOffloadOptimizerConfig.
template <class V, class O>
void visit_offload_optimizer(V& v, O& o) {
  v.field("device", o.device, EnumRule{kDeviceNames});
  v.field("nvme_path", o.nvme_path, StringRule{}, {.nullable = true});
  v.field("buffer_count", o.buffer_count, IntRule{.min = 0});
  v.field("pin_memory", o.pin_memory);
  v.field("pipeline_read", o.pipeline_read);
  v.field("pipeline_write", o.pipeline_write);
  v.field("fast_init", o.fast_init);
  v.field("ratio", o.ratio, NumberRule{.min = 0, .max = 1});
  v.field("super_offload", o.super_offload);
  v.field("cpuadam_cores_perc", o.cpuadam_cores_perc, NumberRule{.min = 0, .max = 1});
}

// swap_tensor/aio_config.py. "thread_count" was renamed to intra_op_parallelism (c9da4892a).
template <class V, class A>
void visit_aio(V& v, A& a) {
  v.field("block_size", a.block_size, IntRule{.min = 1, .max = INT64_MAX, .unit = IntUnit::kBytes});
  v.field("queue_depth", a.queue_depth, kPositive);
  v.field("intra_op_parallelism", a.intra_op_parallelism, kPositive);
  v.field("single_submit", a.single_submit);
  v.field("overlap_events", a.overlap_events);
  v.field("use_gds", a.use_gds);
}

// runtime/activation_checkpointing/config.py.
template <class V, class A>
void visit_activation_checkpointing(V& v, A& a) {
  v.field("partition_activations", a.partition_activations);
  v.field("contiguous_memory_optimization", a.contiguous_memory_optimization);
  v.field("cpu_checkpointing", a.cpu_checkpointing);
  v.field("number_checkpoints", a.number_checkpoints, kPositive, {.nullable = true});
  v.field("synchronize_checkpoint_boundary", a.synchronize_checkpoint_boundary);
  v.field("profile", a.profile);
}

// profiling/config.py.
template <class V, class F>
void visit_flops_profiler(V& v, F& f) {
  v.field("enabled", f.enabled);
  v.field("recompute_fwd_factor", f.recompute_fwd_factor, NumberRule{.min = 0});
  v.field("profile_step", f.profile_step, kAnyInt);
  v.field("module_depth", f.module_depth, kAnyInt);
  v.field("top_modules", f.top_modules, kAnyInt);
  v.field("detailed", f.detailed);
  v.field("output_file", f.output_file, StringRule{}, {.nullable = true});
}

// runtime/config.py get_checkpoint_params (+ model_checkpointing/config.py).
template <class V, class C>
void visit_checkpoint(V& v, C& c) {
  v.field("tag_validation", c.tag_validation, EnumRule{kTagValidation, /*case_insensitive=*/true});
  v.field("load_universal", c.load_universal);
  v.field("use_node_local_storage", c.use_node_local_storage);
  v.field("checkpoint_serialization", c.checkpoint_serialization);
  v.field("writer", c.writer);
}

// runtime/config.py get_data_types_params.
template <class V, class D>
void visit_data_types(V& v, D& d) {
  v.field("grad_accum_dtype", d.grad_accum_dtype, EnumRule{kDtypeNames}, {.nullable = true});
  v.field("param_dtype", d.param_dtype, EnumRule{kDtypeNames}, {.nullable = true});
  v.field("buffer_dtype", d.buffer_dtype, EnumRule{kDtypeNames}, {.nullable = true});
}

}  // namespace zs::configs
