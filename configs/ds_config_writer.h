// Writing a checked config back out as the tuned config a user trains with, and the HF Trainer
// launch flags it needs.
//
// The written file is the user's (its keys, in its order, with a sweep's edits; comments are
// not kept) with every "auto" kept: the HF Trainer fills "auto" from its TrainingArguments,
// while a number it also has a TrainingArguments value for must equal that value, or the
// Trainer stops ("Please correct the following DeepSpeed config values that mismatch
// TrainingArguments", transformers integrations/deepspeed.py HfTrainerDeepSpeedConfig
// fill_match). So the file keeps "auto" wherever the user wrote it, and the flags name every
// TrainingArguments value the prediction depends on (micro-batch, accumulation, precision,
// checkpointing) or that a number in the file must match. Integer knobs written as floats
// (2e8, as DeepSpeed's pydantic models accept them) are written as integers.
#pragma once

#include <string>
#include <vector>

#include "configs/ds_config_reader.h"

namespace zs::configs {

// One TrainingArguments command-line flag; `value` empty for a switch (--bf16).
struct TrainerFlag {
  std::string flag;
  std::string value;
  std::string ds_path;  // the config key it fills or must match ("" for --gradient_checkpointing)
};

struct TunedConfig {
  Json config;  // the file to write
  // `config` as HfTrainerDeepSpeedConfig hands it to deepspeed.initialize when the Trainer is
  // launched with `flags` and its defaults otherwise (every "auto" zerosim can resolve filled
  // in; the scheduler's lengths, which the Trainer derives from the dataset, stay "auto").
  Json filled;
  std::vector<TrainerFlag> flags;
  std::vector<std::string> autos;  // the paths `config` keeps as "auto", in file order
  // What stops the file from training as it is with `flags`, one sentence each: a value the
  // Trainer fills that DeepSpeed rejects (warmup_num_steps 0 from the default --warmup_steps),
  // two numbers one flag must match, an error DeepSpeed's rules find in `filled`. Empty: ready.
  std::vector<std::string> needs;

  bool ready() const { return needs.empty(); }
  // The flags as one command-line fragment: "--per_device_train_batch_size 16 --bf16".
  std::string flags_text() const;
};

// `lc` as run_check left it (the batch triad and precision resolved from the flags, as in
// simulate). `gradient_checkpointing`: the prediction assumed HF's gradient checkpointing (a
// TrainingArguments flag, not a config key). The batch keys are written with their checked
// values where the file has them as numbers, and all three when the file has none of them as
// "auto" (a DeepSpeed-only launcher needs them in the file).
TunedConfig tuned_ds_config(const LoadedConfig& lc, bool gradient_checkpointing);

}  // namespace zs::configs
