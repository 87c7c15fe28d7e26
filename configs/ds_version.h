// The DeepSpeed release whose behaviour zerosim reproduces.
//
// DeepSpeed's parsing rules and defaults change between releases; each rule that differs is
// keyed here to the first release that has the new behaviour, with the commit that made it.
// The default is the newest release zerosim was checked against (the deepspeedai/DeepSpeed
// snapshot edaa72212, version 0.19.6). Citations in configs/ are to files at that snapshot.
#pragma once

#include <compare>
#include <string>
#include <string_view>

#include "common/status.h"

namespace zs::configs {

struct DsVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  auto operator<=>(const DsVersion&) const = default;
  std::string str() const;
};

inline constexpr DsVersion kLatestDsVersion{0, 19, 6};
// The oldest release whose rules zerosim has checked (deepspeed 38327e07, v0.16.4).
inline constexpr DsVersion kOldestDsVersion{0, 16, 0};

// "0.16.4" -> {0,16,4}; "0.17" -> {0,17,0}. Rejects versions outside [kOldest, kLatest's minor].
Result<DsVersion> parse_ds_version(std::string_view text);

// Release boundaries (first release with the new behaviour).
// fp16/bf16 became pydantic models (unknown keys rejected, "auto" dropped) and the dynamic
// loss scaler always gets the fp16 block's values: precision_config.py, e440506be (#6976).
inline constexpr DsVersion kPydanticPrecision{0, 17, 1};
// WarmupLR.warmup_max_lr defaults to the optimizer's lr instead of 0.001: 22cf1a440.
inline constexpr DsVersion kWarmupMaxLrFromOptimizer{0, 17, 2};
// gradient_clipping defaults to 1.0 instead of 0.0: runtime/constants.py, 442166559 (#8068).
inline constexpr DsVersion kClippingDefaultOne{0, 19, 3};
// LR schedules reject non-positive warmup_num_steps / step sizes (lr_schedules.py), 54ebdec61.
inline constexpr DsVersion kSchedulerStepChecks{0, 19, 3};
// offload_param/offload_optimizer pin_memory defaults to true: offload_config.py, 7dfa67aea.
inline constexpr DsVersion kPinMemoryDefaultTrue{0, 19, 5};
// ZeRO-1/2 allocate the IPG buffers at the first gradient hook (stage_1_and_2.py setup_buckets,
// called from process_gradients) instead of in backward_prologue before loss.backward():
// 53e91a098 (#7665, "PyTorch-compatible backward API").
inline constexpr DsVersion kIpgBuffersAtFirstGradHook{0, 18, 3};

}  // namespace zs::configs
