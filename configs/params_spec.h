// Internal to configs/: constructor arguments of the optimizers and LR schedulers DeepSpeed
// builds from "optimizer.params" and "scheduler.params" (passed as **kwargs, so an unknown
// name is the constructor's TypeError).
#pragma once

#include <span>
#include <string_view>

#include "configs/ds_config.h"

namespace zs::configs {

enum class ParamType {
  kNumber,
  kInt,
  kPositiveInt,  // lr_schedules.py checks isinstance(int) and > 0
  kBool,
  kString,
  kBetas,         // a list of two numbers in [0, 1)
  kNumberOrList,  // a number, or one per parameter group
  kAny,
};

struct ParamSpec {
  std::string_view name;
  ParamType type;
  std::string_view default_json;  // the constructor's default as JSON; "" = required
  bool hf_auto = false;           // the HF Trainer fills "auto" here
  bool nullable = false;          // null is accepted (the default is None)
};

// The accepted arguments of `kind`; empty for kinds zerosim does not check (torch, mup).
std::span<const ParamSpec> optimizer_params(OptimizerKind kind);

// The arguments of a DeepSpeed LR schedule, or empty when `type` is not one of
// LRRangeTest, OneCycle, WarmupLR, WarmupDecayLR, WarmupCosineLR.
std::span<const ParamSpec> scheduler_params(std::string_view type, DsVersion version);

// DeepSpeed's optimizer names (runtime/config.py DEEPSPEED_OPTIMIZERS), lowercase, with kinds.
struct OptimizerName {
  std::string_view name;
  OptimizerKind kind;
};
std::span<const OptimizerName> deepspeed_optimizer_names();
// torch.optim classes DeepSpeed can fall back to (exact case).
std::span<const std::string_view> torch_optimizer_names();
// DeepSpeed's LR schedules and the torch.optim.lr_scheduler classes it falls back to.
std::span<const std::string_view> deepspeed_scheduler_names();
std::span<const std::string_view> torch_scheduler_names();

}  // namespace zs::configs
