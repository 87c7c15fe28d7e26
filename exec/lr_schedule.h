// The learning rate per optimizer step, as DeepSpeed's schedulers compute it
// (deepspeed/runtime/lr_schedules.py at 0.19.6): WarmupLR and WarmupDecayLR, or the optimizer's
// own lr without a scheduler.
//
// DeepSpeed's engine steps the scheduler after every optimizer step that was not skipped for an
// fp16 overflow (engine.py _take_model_step), and a scheduler built with last_batch_iteration
// -1 sets the min lr before the first step: step k (0-based, counting applied steps) runs at
// lr(k) = min_lr + (max_lr - min_lr) * gamma(k - 1), gamma(-1) = 0, where for WarmupLR
//   gamma(i) = log(i + 1) / log(W)   (warmup_type "log", the default)   while i < W,
//            = i / W                 (warmup_type "linear")             while i < W,
//            = 1 after,
// W = max(2, warmup_num_steps); WarmupDecayLR decays after the warmup to
//   gamma(i) = max(0, (total_num_steps - i) / max(1, total_num_steps - W)).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "configs/ds_config.h"

namespace zs::exec {

struct LrSchedule {
  enum class Kind { kConstant, kWarmup, kWarmupDecay };
  Kind kind = Kind::kConstant;
  double lr = 1e-3;  // kConstant: the optimizer's lr
  double min_lr = 0.0;
  double max_lr = 1e-3;
  std::int64_t warmup_steps = 1000;  // W before the max(2, .) above
  bool linear = false;               // warmup_type "linear"; else "log"
  std::int64_t total_steps = 0;      // kWarmupDecay

  // The lr of the applied step `step` (0-based).
  double at(std::int64_t step) const;
};

// The schedule the config asks for. `optimizer_lr` is the optimizer's lr (WarmupLR's default
// max). kInvalidArgument, naming the JSON path and value, for a scheduler this executor does
// not implement or a parameter of the wrong type or range (warmup_num_steps must be a positive
// integer, as DeepSpeed checks).
Result<LrSchedule> lr_schedule(const configs::DsConfig& config, double optimizer_lr);

}  // namespace zs::exec
