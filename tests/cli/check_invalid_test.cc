// End-to-end: each invalid config makes `zerosim check` exit 1 with a message that names the file
// and the JSON path at fault. The rule each case pins is DeepSpeed's (see configs/).
#include <gtest/gtest.h>

#include "tests/cli/run_zerosim.h"

namespace zs {
namespace {

struct InvalidCase {
  const char* name;
  const char* json;
  const char* path;   // JSON path the message must name
  const char* code;   // diagnostic code the message must carry
  const char* flags;  // extra command-line flags
};

std::ostream& operator<<(std::ostream& os, const InvalidCase& c) { return os << c.name; }

const InvalidCase kCases[] = {
    // Not JSON (the parser names the path it was reading).
    {"template_placeholder", R"({"train_batch_size": CONFIG_BATCH_SIZE})", "train_batch_size",
     "json-syntax", ""},
    {"python_true", R"({"bf16": {"enabled": True}})", "bf16.enabled", "json-syntax", ""},
    {"equals_sign", R"({"checkpoint": {"tag_validation"="Warn"}})", "checkpoint.tag_validation",
     "json-syntax", ""},
    {"duplicate_key", R"({"zero_optimization": {"stage": 2, "stage": 3}})",
     "zero_optimization.stage", "json-syntax", ""},
    {"unterminated_string", "{\"optimizer\": {\"type\": \"Adam}}", "optimizer.type", "json-syntax",
     ""},
    {"missing_comma", R"({"zero_optimization": {"stage": 2 "overlap_comm": true}})",
     "zero_optimization.stage", "json-syntax", ""},
    // Batch triad (runtime/config.py _batch_assertion).
    {"batch_mismatch", R"({"train_batch_size": 256, "train_micro_batch_size_per_gpu": 8,
       "gradient_accumulation_steps": 4})",
     "train_batch_size", "batch-mismatch", "--world 16"},
    {"batch_not_multiple", R"({"train_batch_size": 100, "train_micro_batch_size_per_gpu": 8,
       "gradient_accumulation_steps": 4})",
     "train_batch_size", "batch-mismatch", ""},
    {"batch_division_to_zero", R"({"train_batch_size": 4, "gradient_accumulation_steps": 2})",
     "train_micro_batch_size_per_gpu", "batch-mismatch", "--world 8"},
    {"micro_batch_zero", R"({"train_micro_batch_size_per_gpu": 0})",
     "train_micro_batch_size_per_gpu", "out-of-range", ""},
    {"grad_accum_negative", R"({"train_batch_size": 8, "gradient_accumulation_steps": -1})",
     "gradient_accumulation_steps", "out-of-range", ""},
    {"batch_not_integer", R"({"train_batch_size": 1.5})", "train_batch_size", "wrong-type", ""},
    {"batch_wrong_type", R"({"train_batch_size": "lots"})", "train_batch_size", "wrong-type", ""},
    {"hf_mismatch", R"({"train_micro_batch_size_per_gpu": 8})", "train_micro_batch_size_per_gpu",
     "hf-mismatch", "--micro-batch 4"},
    // Precision.
    {"fp16_and_bf16", R"({"train_batch_size": 8, "fp16": {"enabled": true},
       "bf16": {"enabled": true}})",
     "bf16.enabled", "fp16-and-bf16", ""},
    {"fp16_unknown_key", R"({"train_batch_size": 8, "fp16": {"loss_scale_windows": 500}})",
     "fp16.loss_scale_windows", "unknown-key", ""},
    {"fp16_negative_loss_scale", R"({"train_batch_size": 8, "fp16": {"loss_scale": -1}})",
     "fp16.loss_scale", "out-of-range", ""},
    {"fp16_zero_window", R"({"train_batch_size": 8,
       "fp16": {"enabled": true, "loss_scale_window": 0}})",
     "fp16.loss_scale_window", "fp16-scaler", ""},
    {"amp_with_zero", R"({"train_batch_size": 8, "amp": {"enabled": true, "opt_level": "O1"},
       "zero_optimization": {"stage": 1}})",
     "amp.enabled", "amp-with-zero", ""},
    {"amp_without_enabled", R"({"train_batch_size": 8, "amp": {"opt_level": "O2"}})", "amp",
     "missing-key", ""},
    {"fp16_master_weights_stage0", R"({"train_batch_size": 8,
       "fp16": {"enabled": true, "fp16_master_weights_and_grads": true}})",
     "fp16.fp16_master_weights_and_grads", "master-weights", ""},
    {"bf16_on_v100", R"({"train_batch_size": 8, "bf16": {"enabled": true}})", "bf16.enabled",
     "bf16-unsupported", "--gpu v100-32gb"},
    // zero_optimization (pydantic: types, ranges, unknown keys).
    {"stage_out_of_range", R"({"train_batch_size": 8, "zero_optimization": {"stage": 4}})",
     "zero_optimization.stage", "out-of-range", ""},
    {"stage_wrong_type", R"({"train_batch_size": 8, "zero_optimization": {"stage": "two"}})",
     "zero_optimization.stage", "wrong-type", ""},
    {"zero_not_object", R"({"train_batch_size": 8, "zero_optimization": 2})", "zero_optimization",
     "wrong-type", ""},
    {"bucket_negative", R"({"train_batch_size": 8,
       "zero_optimization": {"stage": 2, "reduce_bucket_size": -1}})",
     "zero_optimization.reduce_bucket_size", "out-of-range", ""},
    {"bucket_fractional", R"({"train_batch_size": 8,
       "zero_optimization": {"stage": 3, "stage3_prefetch_bucket_size": 15099494.4}})",
     "zero_optimization.stage3_prefetch_bucket_size", "wrong-type", ""},
    {"reuse_distance_negative", R"({"train_batch_size": 8,
       "zero_optimization": {"stage": 3, "stage3_max_reuse_distance": -1}})",
     "zero_optimization.stage3_max_reuse_distance", "out-of-range", ""},
    {"zero_unknown_key", R"({"train_batch_size": 8,
       "zero_optimization": {"stage": 3, "stage3_param_persitance_threshold": 1e4}})",
     "zero_optimization.stage3_param_persitance_threshold", "unknown-key", ""},
    {"zero_alias_and_name", R"({"train_batch_size": 8, "zero_optimization": {"stage": 3,
       "stage3_max_live_parameters": 1e9, "max_live_parameters": 1e9}})",
     "zero_optimization.max_live_parameters", "duplicate-setting", ""},
    {"deprecated_and_new", R"({"train_batch_size": 8, "zero_optimization": {"stage": 2,
       "cpu_offload": true, "offload_optimizer": {"device": "cpu"}}})",
     "zero_optimization.cpu_offload", "deprecated-conflict", ""},
    // NVMe offload at stage 3 with no nvme_path: DeepSpeed fails at start-up (validate.cc).
    {"nvme_param_no_path", R"({"train_batch_size": 8, "zero_optimization": {"stage": 3,
       "offload_param": {"device": "nvme"}}})",
     "zero_optimization.offload_param.nvme_path", "nvme-path-missing", ""},
    {"nvme_optimizer_null_path", R"({"train_batch_size": 8, "zero_optimization": {"stage": 3,
       "offload_optimizer": {"device": "nvme", "nvme_path": null}}})",
     "zero_optimization.offload_optimizer.nvme_path", "nvme-path-missing", ""},
    {"offload_unknown_key", R"({"train_batch_size": 8, "zero_optimization": {"stage": 2,
       "offload_optimizer": {"device": "cpu", "pin_memroy": true}}})",
     "zero_optimization.offload_optimizer.pin_memroy", "unknown-key", ""},
    {"offload_bad_device", R"({"train_batch_size": 8, "zero_optimization": {"stage": 3,
       "offload_param": {"device": "gpu"}}})",
     "zero_optimization.offload_param.device", "bad-enum", ""},
    {"offload_device_case", R"({"train_batch_size": 8, "zero_optimization": {"stage": 3,
       "offload_param": {"device": "CPU"}}})",
     "zero_optimization.offload_param.device", "bad-enum", ""},
    {"offload_not_object", R"({"train_batch_size": 8, "zero_optimization": {"stage": 3,
       "offload_param": true}})",
     "zero_optimization.offload_param", "wrong-type", ""},
    {"partial_offload_stage2", R"({"train_batch_size": 8, "zero_optimization": {"stage": 2,
       "offload_optimizer": {"device": "cpu", "ratio": 0.3}}})",
     "zero_optimization.offload_optimizer.ratio", "partial-offload", ""},
    {"prescale_stage2", R"({"train_batch_size": 8, "prescale_gradients": true,
       "zero_optimization": {"stage": 2}})",
     "prescale_gradients", "prescale-with-reduce-scatter", ""},
    {"predivide_stage3", R"({"train_batch_size": 8, "gradient_predivide_factor": 2.0,
       "zero_optimization": {"stage": 3}})",
     "gradient_predivide_factor", "predivide-with-reduce-scatter", ""},
    {"odd_allgather_bucket", R"({"train_batch_size": 8, "zero_optimization": {"stage": 1,
       "allgather_bucket_size": 500000001}})",
     "zero_optimization.allgather_bucket_size", "odd-allgather-bucket", ""},
    {"legacy_stage1", R"({"train_batch_size": 8, "zero_optimization": {"stage": 1,
       "legacy_stage1": true}})",
     "zero_optimization.legacy_stage1", "legacy-stage1", ""},
    // Communication.
    {"comm_dtype_typo", R"({"train_batch_size": 8, "communication_data_type": "bfp16"})",
     "communication_data_type", "bad-enum", ""},
    {"allreduce_op", R"({"train_batch_size": 8, "gradient_allreduce_op": "avg"})",
     "gradient_allreduce_op", "bad-enum", ""},
    {"bool_as_string", R"({"train_batch_size": 8, "prescale_gradients": "false"})",
     "prescale_gradients", "wrong-type", ""},
    {"steps_per_print_zero", R"({"train_batch_size": 8, "steps_per_print": 0})", "steps_per_print",
     "zero-division", ""},
    {"auto_where_not_filled", R"({"train_batch_size": 8, "steps_per_print": "auto"})",
     "steps_per_print", "unresolvable-auto", ""},
    // Optimizer and scheduler (constructor keyword arguments).
    {"optimizer_fusedadam", R"({"train_batch_size": 8, "optimizer": {"type": "FusedAdam"}})",
     "optimizer.type", "unknown-optimizer", ""},
    {"optimizer_unknown_param", R"({"train_batch_size": 8,
       "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "beta1": 0.9}}})",
     "optimizer.params.beta1", "unknown-argument", ""},
    {"optimizer_max_grad_norm", R"({"train_batch_size": 8,
       "optimizer": {"type": "Adam", "params": {"max_grad_norm": 1.0}}})",
     "optimizer.params.max_grad_norm", "max-grad-norm", ""},
    {"optimizer_betas_length", R"({"train_batch_size": 8,
       "optimizer": {"type": "Adam", "params": {"betas": [0.9]}}})",
     "optimizer.params.betas", "wrong-type", ""},
    {"optimizer_lr_type", R"({"train_batch_size": 8,
       "optimizer": {"type": "Adam", "params": {"lr": "high"}}})",
     "optimizer.params.lr", "wrong-type", ""},
    {"optimizer_params_not_object", R"({"train_batch_size": 8,
       "optimizer": {"type": "Adam", "params": [0.001]}})",
     "optimizer.params", "wrong-type", ""},
    {"untested_optimizer_zero", R"({"train_batch_size": 8, "optimizer": {"type": "SGD",
       "params": {"lr": 0.1}}, "zero_optimization": {"stage": 2}})",
     "optimizer.type", "untested-optimizer", ""},
    {"onebit_with_zero", R"({"train_batch_size": 8, "optimizer": {"type": "OneBitAdam",
       "params": {"lr": 1e-4}}, "zero_optimization": {"stage": 1}})",
     "optimizer.type", "optimizer-with-zero", ""},
    {"scheduler_unknown_type", R"({"train_batch_size": 8,
       "scheduler": {"type": "WarmupCosine", "params": {}}})",
     "scheduler.type", "unknown-scheduler", ""},
    {"scheduler_without_params", R"({"train_batch_size": 8, "scheduler": {"type": "WarmupLR"}})",
     "scheduler", "missing-key", ""},
    {"scheduler_missing_required", R"({"train_batch_size": 8,
       "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_num_steps": 100}}})",
     "scheduler.params", "missing-key", ""},
    {"scheduler_zero_warmup", R"({"train_batch_size": 8,
       "scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 0}}})",
     "scheduler.params.warmup_num_steps", "wrong-type", ""},
    {"scheduler_unknown_param", R"({"train_batch_size": 8,
       "scheduler": {"type": "WarmupLR", "params": {"warmup_steps": 100}}})",
     "scheduler.params.warmup_steps", "unknown-argument", ""},
    {"scheduler_auto_not_filled", R"({"train_batch_size": 8,
       "scheduler": {"type": "WarmupLR", "params": {"warmup_type": "auto"}}})",
     "scheduler.params.warmup_type", "unresolvable-auto", ""},
    // Other sections.
    {"tag_validation", R"({"train_batch_size": 8, "checkpoint": {"tag_validation": "strict"}})",
     "checkpoint.tag_validation", "bad-enum", ""},
    {"grad_accum_dtype", R"({"train_batch_size": 8, "data_types": {"grad_accum_dtype": "fp64"}})",
     "data_types.grad_accum_dtype", "bad-enum", ""},
    {"sparse_mode", R"({"train_batch_size": 8, "sparse_attention": {"mode": "sliding"}})",
     "sparse_attention.mode", "bad-enum", ""},
    {"aio_block_size", R"({"train_batch_size": 8, "aio": {"block_size": 0}})", "aio.block_size",
     "out-of-range", ""},
    {"checkpoints_negative", R"({"train_batch_size": 8,
       "activation_checkpointing": {"number_checkpoints": -2}})",
     "activation_checkpointing.number_checkpoints", "out-of-range", ""},
    {"pld_without_enabled", R"({"train_batch_size": 8, "progressive_layer_drop": {"theta": 0.5}})",
     "progressive_layer_drop", "missing-key", ""},
    {"compression_groups", R"({"train_batch_size": 8, "compression_training": {
       "head_pruning": {"shared_parameters": {"enabled": true, "num_heads": 12}}}})",
     "compression_training.head_pruning", "missing-key", ""},
    {"tensorboard_unknown", R"({"train_batch_size": 8,
       "tensorboard": {"enabled": true, "output_dir": "runs"}})",
     "tensorboard.output_dir", "unknown-key", ""},
};

class CheckInvalid : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(CheckInvalid, ExitsOneNamingTheFileAndPath) {
  const InvalidCase& c = GetParam();
  const std::string path = testing::write_temp(std::string(c.name) + ".json", c.json);
  const testing::RunResult r = testing::run_zerosim("check " + path + " " + c.flags);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(path), std::string::npos) << r.output;
  const std::string tag = std::string("error[") + c.code + "]: " + c.path + ":";
  EXPECT_NE(r.output.find(tag), std::string::npos) << "expected \"" << tag << "\" in:\n"
                                                   << r.output;
}

INSTANTIATE_TEST_SUITE_P(Configs, CheckInvalid, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<InvalidCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

TEST(CheckInvalid, HasAtLeastFortyCases) { EXPECT_GE(std::size(kCases), 40u); }

}  // namespace
}  // namespace zs
