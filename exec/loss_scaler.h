// DeepSpeed's dynamic loss scaler for fp16 training, as ZeRO stages 1-3 run it.
//
// Source: deepspeed/runtime/fp16/loss_scaler.py, DynamicLossScaler.update_scale, at the
// reference snapshot (deepspeedai/DeepSpeed edaa72212, v0.19.6; configs/ds_version.h), with
// scale_factor 2 (fixed in DynamicLossScaler.__init__) and raise_error_at_min_scale true (no
// caller changes it). With h = hysteresis (DeepSpeed's delayed_shift), iter = 0 and
// last_overflow_iter = -1 at the start, each step's update is:
//   overflow:
//     if h == 1 or cur_hysteresis == 1:
//       if scale == min_loss_scale: DeepSpeed raises "Current loss scale already at minimum -
//         cannot decrease scale anymore. Exiting run." (see exhausted())
//       else scale = max(scale / 2, min_loss_scale)
//     else cur_hysteresis -= 1
//     last_overflow_iter = iter
//   no overflow:
//     if consecutive_hysteresis: cur_hysteresis = h
//     stable = iter - last_overflow_iter - 1
//     if stable > 0 and stable % loss_scale_window == 0:
//       if not consecutive_hysteresis: cur_hysteresis = h
//       scale *= 2
//   iter += 1
// So the scale first doubles at the (window + 1)-th clean step of a run or after an overflow;
// without consecutive_hysteresis a clean step refills the hysteresis only when the scale
// doubles. There is no upper bound. h <= 0 never lowers the scale (cur_hysteresis only counts
// down), as in DeepSpeed.
// ZeRO skips the optimizer step on every overflow (stage_1_and_2.py and stage3.py step():
// _update_scale(overflow), then return when overflow), also when only the hysteresis drops.
//
// ZeRO-0's fp16 optimizers do not use this class: FP16_Optimizer._update_scale
// (fp16/fused_optimizer.py) halves on every overflow (no hysteresis) and floors at
// min_loss_scale without raising.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "configs/ds_config.h"

namespace zs::exec {

// DeepSpeed's dynamic_loss_scale_args, under the fp16 config keys' names (configs::Fp16Config).
struct LossScalerOptions {
  std::int64_t initial_scale_power = 16;  // the first scale is 2^initial_scale_power
  std::int64_t loss_scale_window = 1000;  // clean steps before the scale doubles
  std::int64_t hysteresis = 2;            // overflows tolerated before the scale halves
  bool consecutive_hysteresis = false;    // refill the hysteresis on every clean step
  std::int64_t min_loss_scale = 1;        // the floor of the scale
};

// The options ZeRO builds its scaler from for `config`: precision_config.py
// dynamic_loss_scale_args, i.e. the fp16 block with DeepSpeed's defaults. Releases before
// 0.17.1 (configs::kPydanticPrecision) passed no arguments when the fp16 block set none of the
// scaler keys (config.py get_dynamic_loss_scale_args), so ZeRO (stage >= 1) built
// DynamicLossScaler() with its class defaults: 2^32, window 1000, hysteresis 1, min 1.
// Returns kInvalidArgument naming the fp16 key and value when dynamic loss scaling is off
// (fp16.enabled false, or fp16.loss_scale > 0: a static scale), loss_scale_window < 1 (DeepSpeed
// would divide by zero), min_loss_scale < 1, or 2^initial_scale_power is not a finite double.
Result<LossScalerOptions> loss_scaler_options(const configs::DsConfig& config);

class DynamicLossScaler {
 public:
  // REQUIRES: what loss_scaler_options() checks (loss_scale_window >= 1, min_loss_scale >= 1,
  // 2^initial_scale_power finite).
  explicit DynamicLossScaler(const LossScalerOptions& options);

  // The scale to multiply this step's loss by (ModelRunner::set_loss_scale).
  double scale() const { return scale_; }

  // Records whether this step's (scaled) gradients held an inf or NaN on any rank and updates
  // the scale as above. Returns whether the optimizer step must be skipped: exactly when
  // `overflow`. REQUIRES: !exhausted().
  bool update(bool overflow);

  // True once an overflow arrived with the scale already at min_loss_scale and no hysteresis
  // left, where DeepSpeed raises and the run ends: the caller must stop training and report it.
  // That update leaves the state as it was (DeepSpeed raises before changing anything).
  bool exhausted() const { return exhausted_; }

  // Overflows still tolerated before the scale halves (DeepSpeed's cur_hysteresis).
  std::int64_t hysteresis_left() const { return cur_hysteresis_; }
  // Updates made so far (cur_iter).
  std::int64_t iteration() const { return iter_; }

 private:
  LossScalerOptions options_;
  double scale_ = 0;
  std::int64_t cur_hysteresis_ = 0;
  std::int64_t iter_ = 0;
  std::int64_t last_overflow_iter_ = -1;
  bool exhausted_ = false;
};

}  // namespace zs::exec
