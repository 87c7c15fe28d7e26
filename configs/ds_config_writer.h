// Writing a checked config back out as a file DeepSpeed and the HF Trainer take as is: the
// user's file (its keys, in its order; comments are not kept) with every "auto" replaced by what
// it resolved to (configs/auto_resolve.cc: the HF Trainer's rules, or DeepSpeed's default where
// it drops "auto") and the batch triad written out. Integer knobs written as floats (2e8, as
// DeepSpeed's pydantic models accept them) are written as integers.
#pragma once

#include <string>
#include <vector>

#include "configs/ds_config_reader.h"

namespace zs::configs {

// An "auto" the written file keeps, for the HF Trainer to fill.
struct KeptAuto {
  std::string path;
  std::string why;
};

struct ResolvedConfig {
  Json config;
  // Values no flag or model fact determines (scheduler lengths the HF Trainer derives from the
  // dataset), and resolved values the written file could not hold because DeepSpeed rejects
  // them (the HF default warmup_num_steps 0 under DeepSpeed >= 0.19.3): kept as "auto".
  std::vector<KeptAuto> kept;
};

// `lc` as run_check left it. train_batch_size, train_micro_batch_size_per_gpu and
// gradient_accumulation_steps are written with their checked values whenever those are known
// (flags such as --micro-batch replace the file's, as in simulate). The result is checked again
// (the rules of lc.config.version); a resolved value with an error there goes back to "auto".
ResolvedConfig resolved_ds_config(const LoadedConfig& lc);

}  // namespace zs::configs
