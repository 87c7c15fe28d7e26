// AdamW's hyperparameters from a DeepSpeed config, shared by the executor's backends.
#pragma once

#include "common/status.h"
#include "configs/ds_config.h"
#include "kernels/cpu/adamw.h"

namespace zs::exec {

// The config's optimizer section ("auto" already resolved) as kernels' AdamConfig, with
// TrainingArguments' defaults (lr 5e-5, FusedAdam's betas and eps) when it has none: the HF
// Trainer builds AdamW then. "AdamW" always decays decoupled; "Adam" unless adam_w_mode is off
// (ops/adam/fused_adam.py). kInvalidArgument naming the key for an optimizer other than Adam or
// AdamW, or betas that are not two numbers.
Result<kernels::cpu::AdamConfig> adam_config(const configs::DsConfig& config);

}  // namespace zs::exec
