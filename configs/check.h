// `zerosim check`: read a ds_config as DeepSpeed would, resolve "auto" as the HF Trainer would,
// apply DeepSpeed's validation rules, and add lints that explain what the settings cost.
//
// configs/ sits below models/ in the dependency order, so what check needs to know about the
// model and the cluster comes in as plain facts that the caller fills in.
#pragma once

#include <optional>
#include <string>

#include "common/status.h"
#include "common/units.h"
#include "configs/ds_config.h"
#include "configs/ds_config_reader.h"

namespace zs::configs {

struct ModelFacts {
  std::string name;
  Int params = 0;               // trainable parameters (the ZeRO paper's Psi)
  Int hidden_size = 0;          // what the HF Trainer's "auto" bucket sizes derive from
  Int num_layers = 0;
  Int largest_param_numel = 0;  // the largest single parameter tensor (DeepSpeed's L_max)
};

struct ClusterFacts {
  std::string description;  // one line, e.g. "1 node x 8 A100 80GB"
  Int nodes = 1;
  Int gpus_per_node = 1;
  std::string gpu_name;
  Bytes gpu_memory_bytes = 0;
  bool gpu_supports_bf16 = true;
  Int world_size() const { return nodes * gpus_per_node; }
};

struct CheckOptions {
  DsVersion version = kLatestDsVersion;
  // The data-parallel world size: --world, or the cluster's GPU count.
  std::optional<Int> world_size;
  // TrainingArguments the HF Trainer would fill "auto" batch keys from.
  std::optional<Int> micro_batch;  // --micro-batch (per_device_train_batch_size)
  std::optional<Int> grad_accum;   // --grad-accum (gradient_accumulation_steps)
  std::optional<Precision> precision;  // --precision (--bf16 / --fp16 / neither)
  // simulate: the batch flags replace the file's values ("what if"), and train_batch_size
  // follows them, instead of being checked against the file as the HF Trainer does.
  bool batch_flags_override = false;
  std::optional<ModelFacts> model;
  std::optional<ClusterFacts> cluster;
};

// Reads `path` and runs every stage of the check. A file that cannot be read or is not JSON is
// a Status; everything else, errors included, is in the returned diagnostics.
Result<LoadedConfig> run_check(const std::string& path, const CheckOptions& options);
Result<LoadedConfig> run_check_text(std::string_view text, std::string source_name,
                                    const CheckOptions& options);
// A file already parsed (load_ds_config_document); every finding is in the diagnostics.
LoadedConfig run_check_document(json::Document doc, const CheckOptions& options);

// The stages, for tests. Each appends to lc->diagnostics (and lc->autos).
void resolve_autos(const CheckOptions& options, LoadedConfig* lc);
void validate(const CheckOptions& options, LoadedConfig* lc);
void add_lints(const CheckOptions& options, LoadedConfig* lc);

}  // namespace zs::configs
