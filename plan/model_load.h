// Host memory at model load: before deepspeed.initialize, each rank of a node builds the model
// and fills its weights on the host with transformers' from_pretrained (the HF Trainer's way,
// and most scripts'); initialize then moves the module to its GPU (stages 0-2) or the weights go
// straight into zero.Init's GPU partitions (stage 3, HfDeepSpeedConfig alive). What the load
// holds is measured in results/measurements/2026-11-29-hf-model-load-host-memory.md
// (transformers 5.16, safetensors 0.8, DeepSpeed 0.19.6, 2 ranks):
//   - weights loaded in the checkpoint's own dtype (dtype "auto", transformers 5's default) are
//     views of the mmap'd safetensors file: no anonymous memory (+0.005x), only page cache (1.0x
//     of the checkpoint per node, shared by its ranks, reclaimable);
//   - a cast (dtype=torch.float32 on a bf16 checkpoint, bf16 on Llama-2's fp16 one, or
//     transformers 4's fp32 default) materialises every weight in the new dtype on each rank's
//     host at stages 0-2: params x the load dtype's bytes (measured 2.006x of a bf16 checkpoint
//     for fp32);
//   - at stage 3 the state dict is views too, copied module by module into the partitions, which
//     live on the GPU: nothing that scales with the model stays on the host.
// The step's own host buffers (offload) come after initialize, so a node's host peak is the
// larger of the load's and the step's, not their sum.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/units.h"

namespace zs::plan {

// from_pretrained's dtype.
enum class LoadDtype { kAuto, kFp32, kBf16, kFp16 };

// "auto", "fp32", "bf16", "fp16"; nullopt for anything else.
std::optional<LoadDtype> parse_load_dtype(std::string_view text);
std::string_view load_dtype_name(LoadDtype d);

struct ModelLoad {
  Bytes per_rank_bytes = 0;             // anonymous host memory each rank holds at the load's peak
  Bytes page_cache_bytes = 0;           // the checkpoint's pages, per node (shared, reclaimable)
  LoadDtype stored = LoadDtype::kFp32;  // the checkpoint's dtype, as assumed
  LoadDtype loaded = LoadDtype::kFp32;  // the weights' dtype after the load
  bool cast = false;                    // loaded != stored
};

// params: the checkpoint's parameters (tied ones once). checkpoint: the dtype the model's
// config.json states (models::ModelSpec::checkpoint_dtype); kAuto when it states none, which
// zerosim reads as fp32 (checkpoints saved without a dtype, GPT-2's, are fp32).
// REQUIRES: params >= 0, stage in [0, 3]
ModelLoad model_load(LoadDtype load, LoadDtype checkpoint, std::int64_t params, int stage);

int dtype_bytes(LoadDtype d);  // 4 for fp32 and kAuto (read as fp32), else 2

}  // namespace zs::plan
