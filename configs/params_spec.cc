#include "configs/params_spec.h"

namespace zs::configs {
namespace {

using P = ParamSpec;
using T = ParamType;

// ops/adam/fused_adam.py FusedAdam and ops/adam/cpu_adam.py DeepSpeedCPUAdam, plus the two
// arguments the engine pops (engine.py _configure_basic_optimizer).
constexpr P kAdam[] = {
    {"lr", T::kNumber, "0.001", true},
    {"betas", T::kBetas, "[0.9, 0.999]", true},
    {"eps", T::kNumber, "1e-08", true},
    {"weight_decay", T::kNumber, "0.0", true},
    {"bias_correction", T::kBool, "true"},
    {"amsgrad", T::kBool, "false"},
    {"torch_adam", T::kBool, "false"},
    {"adam_w_mode", T::kBool, "true"},
    {"set_grad_none", T::kBool, "true"},
    {"fp32_optimizer_states", T::kBool, "true"},
};
// ops/lamb/fused_lamb.py FusedLamb (max_grad_norm is rejected by the engine for every type).
constexpr P kLamb[] = {
    {"lr", T::kNumber, "0.001", true},       {"betas", T::kBetas, "[0.9, 0.999]", true},
    {"eps", T::kNumber, "1e-08", true},      {"weight_decay", T::kNumber, "0.0", true},
    {"bias_correction", T::kBool, "true"},   {"eps_inside_sqrt", T::kBool, "false"},
    {"max_coeff", T::kNumber, "10.0"},       {"min_coeff", T::kNumber, "0.01"},
    {"amsgrad", T::kBool, "false"},
};
// runtime/fp16/onebit/adam.py OnebitAdam.
constexpr P kOneBitAdam[] = {
    {"lr", T::kNumber, "0.001", true},      {"betas", T::kBetas, "[0.9, 0.999]", true},
    {"eps", T::kNumber, "1e-08", true},     {"weight_decay", T::kNumber, "0.0", true},
    {"freeze_step", T::kInt, "100000"},     {"bias_correction", T::kBool, "true"},
    {"eps_inside_sqrt", T::kBool, "false"}, {"amsgrad", T::kBool, "false"},
    {"cuda_aware", T::kBool, "false"},      {"comm_backend_name", T::kString, "\"nccl\""},
};
// runtime/fp16/onebit/zoadam.py ZeroOneAdam.
constexpr P kZeroOneAdam[] = {
    {"lr", T::kNumber, "0.001", true},      {"betas", T::kBetas, "[0.9, 0.999]", true},
    {"eps", T::kNumber, "1e-08", true},     {"weight_decay", T::kNumber, "0.0", true},
    {"bias_correction", T::kBool, "true"},  {"eps_inside_sqrt", T::kBool, "false"},
    {"var_freeze_step", T::kInt, "100000"}, {"var_update_scaler", T::kInt, "16"},
    {"local_step_scaler", T::kInt, "32678"}, {"local_step_clipper", T::kInt, "16"},
    {"amsgrad", T::kBool, "false"},         {"cuda_aware", T::kBool, "false"},
    {"comm_backend_name", T::kString, "\"nccl\""},
};
// runtime/fp16/onebit/lamb.py OnebitLamb.
constexpr P kOneBitLamb[] = {
    {"lr", T::kNumber, "0.001", true},      {"betas", T::kBetas, "[0.9, 0.999]", true},
    {"eps", T::kNumber, "1e-08", true},     {"weight_decay", T::kNumber, "0.0", true},
    {"freeze_step", T::kInt, "100000"},     {"bias_correction", T::kBool, "true"},
    {"eps_inside_sqrt", T::kBool, "false"}, {"max_coeff", T::kNumber, "10.0"},
    {"min_coeff", T::kNumber, "0.01"},      {"amsgrad", T::kBool, "false"},
    {"cuda_aware", T::kBool, "false"},      {"comm_backend_name", T::kString, "\"nccl\""},
    {"coeff_beta", T::kNumber, "0.9"},      {"factor_max", T::kNumber, "4.0"},
    {"factor_min", T::kNumber, "0.5"},      {"factor_threshold", T::kNumber, "0.1"},
};
// torch.optim.Adagrad, or DeepSpeedCPUAdagrad with offload (ops/adagrad/cpu_adagrad.py).
constexpr P kAdagrad[] = {
    {"lr", T::kNumber, "0.01", true},        {"eps", T::kNumber, "1e-10", true},
    {"weight_decay", T::kNumber, "0.0", true}, {"lr_decay", T::kNumber, "0.0"},         {"initial_accumulator_value", T::kNumber, "0.0"},
    {"amsgrad", T::kBool, "false"},          {"fp32_optimizer_states", T::kBool, "true"},
    {"foreach", T::kAny, "null"},            {"maximize", T::kBool, "false"},
};
// ops/lion/fused_lion.py FusedLion and ops/lion/cpu_lion.py DeepSpeedCPULion.
constexpr P kLion[] = {
    {"lr", T::kNumber, "0.001", true},      {"betas", T::kBetas, "[0.9, 0.999]", true},
    {"weight_decay", T::kNumber, "0.0", true}, {"set_grad_none", T::kBool, "true"},    {"fp32_optimizer_states", T::kBool, "true"},
};
// engine.py: MuonWithAuxAdam takes only these; other keys are dropped silently.
constexpr P kMuon[] = {
    {"lr", T::kNumber, "", true},        {"betas", T::kBetas, "", true},
    {"eps", T::kNumber, "", true},       {"weight_decay", T::kNumber, "", true},
    {"momentum", T::kNumber, ""},        {"muon_lr", T::kNumber, ""},
    {"adam_lr", T::kNumber, ""},
};

// runtime/lr_schedules.py.
constexpr P kLRRangeTest[] = {
    {"lr_range_test_min_lr", T::kNumberOrList, "0.001"},
    {"lr_range_test_step_size", T::kPositiveInt, "2000"},
    {"lr_range_test_step_rate", T::kNumber, "1.0"},
    {"lr_range_test_staircase", T::kBool, "false"},
    {"last_batch_iteration", T::kInt, "-1"},
};
constexpr P kOneCycle[] = {
    {"cycle_min_lr", T::kNumberOrList, ""},
    {"cycle_max_lr", T::kNumberOrList, ""},
    {"decay_lr_rate", T::kNumber, "0.0"},
    {"cycle_first_step_size", T::kPositiveInt, "2000"},
    {"cycle_second_step_size", T::kInt, "null", false, true},
    {"cycle_first_stair_count", T::kInt, "0"},
    {"cycle_second_stair_count", T::kInt, "null", false, true},
    {"decay_step_size", T::kInt, "0"},
    {"cycle_momentum", T::kBool, "true"},
    {"cycle_min_mom", T::kNumberOrList, "0.8"},
    {"cycle_max_mom", T::kNumberOrList, "0.9"},
    {"decay_mom_rate", T::kNumber, "0.0"},
    {"last_batch_iteration", T::kInt, "-1"},
};
// warmup_max_lr defaults to the optimizer's lr from 0.17.2 (kWarmupMaxLrFromOptimizer).
constexpr P kWarmupLR[] = {
    {"warmup_min_lr", T::kNumberOrList, "0.0", true},
    {"warmup_max_lr", T::kNumberOrList, "null", true, true},
    {"warmup_num_steps", T::kPositiveInt, "1000", true},
    {"warmup_type", T::kString, "\"log\""},
    {"last_batch_iteration", T::kInt, "-1"},
};
constexpr P kWarmupLROld[] = {
    {"warmup_min_lr", T::kNumberOrList, "0.0", true},
    {"warmup_max_lr", T::kNumberOrList, "0.001", true},
    {"warmup_num_steps", T::kPositiveInt, "1000", true},
    {"warmup_type", T::kString, "\"log\""},
    {"last_batch_iteration", T::kInt, "-1"},
};
constexpr P kWarmupDecayLR[] = {
    {"total_num_steps", T::kPositiveInt, "", true},
    {"warmup_min_lr", T::kNumberOrList, "0.0", true},
    {"warmup_max_lr", T::kNumberOrList, "0.001", true},
    {"warmup_num_steps", T::kPositiveInt, "1000", true},
    {"warmup_type", T::kString, "\"log\""},
    {"last_batch_iteration", T::kInt, "-1"},
};
constexpr P kWarmupCosineLR[] = {
    {"total_num_steps", T::kPositiveInt, "", true},
    {"warmup_min_ratio", T::kNumber, "0.0"},
    {"warmup_num_steps", T::kPositiveInt, "1000", true},
    {"cos_min_ratio", T::kNumber, "0.0001"},
    {"warmup_type", T::kString, "\"log\""},
    {"last_batch_iteration", T::kInt, "-1"},
};

constexpr OptimizerName kOptimizerNames[] = {
    {"adagrad", OptimizerKind::kAdagrad},         {"adam", OptimizerKind::kAdam},
    {"adamw", OptimizerKind::kAdamW},             {"lamb", OptimizerKind::kLamb},
    {"onebitadam", OptimizerKind::kOneBitAdam},   {"zerooneadam", OptimizerKind::kZeroOneAdam},
    {"onebitlamb", OptimizerKind::kOneBitLamb},   {"muadam", OptimizerKind::kMuP},
    {"muadamw", OptimizerKind::kMuP},             {"musgd", OptimizerKind::kMuP},
    {"lion", OptimizerKind::kLion},               {"muon", OptimizerKind::kMuon},
};
constexpr std::string_view kTorchOptimizers[] = {
    "ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam",  "AdamW",     "Adamax",
    "LBFGS", "NAdam",   "RAdam",     "RMSprop", "Rprop", "SGD",       "SparseAdam"};
constexpr std::string_view kDsSchedulers[] = {"LRRangeTest", "OneCycle", "WarmupLR",
                                              "WarmupDecayLR", "WarmupCosineLR"};
constexpr std::string_view kTorchSchedulers[] = {
    "LambdaLR",        "MultiplicativeLR",  "StepLR",          "MultiStepLR",
    "ConstantLR",      "LinearLR",          "ExponentialLR",   "SequentialLR",
    "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
    "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR"};

}  // namespace

std::span<const ParamSpec> optimizer_params(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::kAdam:
    case OptimizerKind::kAdamW:
      return kAdam;
    case OptimizerKind::kLamb:
      return kLamb;
    case OptimizerKind::kOneBitAdam:
      return kOneBitAdam;
    case OptimizerKind::kZeroOneAdam:
      return kZeroOneAdam;
    case OptimizerKind::kOneBitLamb:
      return kOneBitLamb;
    case OptimizerKind::kAdagrad:
      return kAdagrad;
    case OptimizerKind::kLion:
      return kLion;
    case OptimizerKind::kMuon:
      return kMuon;
    case OptimizerKind::kNone:
    case OptimizerKind::kMuP:
    case OptimizerKind::kTorch:
      return {};
  }
  return {};
}

std::span<const ParamSpec> scheduler_params(std::string_view type, DsVersion version) {
  if (type == "LRRangeTest") return kLRRangeTest;
  if (type == "OneCycle") return kOneCycle;
  if (type == "WarmupLR") {
    return version >= kWarmupMaxLrFromOptimizer ? std::span<const ParamSpec>(kWarmupLR)
                                                : std::span<const ParamSpec>(kWarmupLROld);
  }
  if (type == "WarmupDecayLR") return kWarmupDecayLR;
  if (type == "WarmupCosineLR") return kWarmupCosineLR;
  return {};
}

std::span<const OptimizerName> deepspeed_optimizer_names() { return kOptimizerNames; }
std::span<const std::string_view> torch_optimizer_names() { return kTorchOptimizers; }
std::span<const std::string_view> deepspeed_scheduler_names() { return kDsSchedulers; }
std::span<const std::string_view> torch_scheduler_names() { return kTorchSchedulers; }

}  // namespace zs::configs
