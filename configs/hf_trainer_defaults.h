// TrainingArguments' defaults that fill or must match DeepSpeed config keys (transformers
// training_args.py; integrations/deepspeed.py HfTrainerDeepSpeedConfig.trainer_config_process).
#pragma once

namespace zs::configs {

inline constexpr double kHfLearningRate = 5e-5;
inline constexpr double kHfAdamBeta1 = 0.9;
inline constexpr double kHfAdamBeta2 = 0.999;
inline constexpr double kHfAdamEpsilon = 1e-8;
inline constexpr double kHfWeightDecay = 0.0;
inline constexpr double kHfMaxGradNorm = 1.0;

}  // namespace zs::configs
