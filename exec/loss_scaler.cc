#include "exec/loss_scaler.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/units.h"

namespace zs::exec {
namespace {

Status fp16_error(const std::string& key, const std::string& value, const std::string& allowed) {
  return Status::invalid_argument("fp16." + key + " = " + value +
                                  " is not allowed for the dynamic loss scaler; expected " +
                                  allowed);
}

}  // namespace

Result<LossScalerOptions> loss_scaler_options(const configs::DsConfig& config) {
  const configs::Fp16Config& f = config.fp16;
  if (!f.enabled.value) {
    return fp16_error("enabled", "false", "true (the loss scaler is for fp16 training)");
  }
  if (f.loss_scale.value != 0) {
    return fp16_error("loss_scale", format_double(f.loss_scale.value),
                      "0 (a positive value is a static scale)");
  }
  if (config.version < configs::kPydanticPrecision && !f.scaler_keys_given &&
      config.zero.stage.value > 0) {
    return LossScalerOptions{.initial_scale_power = 32,
                             .loss_scale_window = 1000,
                             .hysteresis = 1,
                             .consecutive_hysteresis = false,
                             .min_loss_scale = 1};
  }
  const LossScalerOptions o{.initial_scale_power = f.initial_scale_power.value,
                            .loss_scale_window = f.loss_scale_window.value,
                            .hysteresis = f.hysteresis.value,
                            .consecutive_hysteresis = f.consecutive_hysteresis.value,
                            .min_loss_scale = f.min_loss_scale.value};
  if (o.loss_scale_window < 1) {
    return fp16_error("loss_scale_window", std::to_string(o.loss_scale_window), "an integer >= 1");
  }
  if (o.min_loss_scale < 1) {
    return fp16_error("min_loss_scale", std::to_string(o.min_loss_scale), "an integer >= 1");
  }
  if (o.initial_scale_power < -1074 || o.initial_scale_power > 1023) {
    return fp16_error("initial_scale_power", std::to_string(o.initial_scale_power),
                      "an integer in [-1074, 1023] (2^power must be a finite double)");
  }
  return o;
}

DynamicLossScaler::DynamicLossScaler(const LossScalerOptions& options)
    : options_(options),
      scale_(std::ldexp(1.0, static_cast<int>(options.initial_scale_power))),
      cur_hysteresis_(options.hysteresis) {
  ZS_CHECK(options.loss_scale_window >= 1);
  ZS_CHECK(options.min_loss_scale >= 1);
  ZS_CHECK(options.initial_scale_power >= -1074 && options.initial_scale_power <= 1023);
}

bool DynamicLossScaler::update(bool overflow) {
  ZS_CHECK_MSG(!exhausted_, "the loss scale is already at its minimum: the run has ended");
  const auto min_scale = static_cast<double>(options_.min_loss_scale);
  if (overflow) {
    if (options_.hysteresis == 1 || cur_hysteresis_ == 1) {
      if (scale_ == min_scale) {
        exhausted_ = true;  // DeepSpeed raises here, before touching its state
        return true;
      }
      scale_ = std::max(scale_ / 2, min_scale);
    } else {
      --cur_hysteresis_;
    }
    last_overflow_iter_ = iter_;
  } else {
    if (options_.consecutive_hysteresis) cur_hysteresis_ = options_.hysteresis;
    const std::int64_t stable_interval = iter_ - last_overflow_iter_ - 1;
    if (stable_interval > 0 && stable_interval % options_.loss_scale_window == 0) {
      if (!options_.consecutive_hysteresis) cur_hysteresis_ = options_.hysteresis;
      scale_ *= 2;
    }
  }
  ++iter_;
  return overflow;
}

}  // namespace zs::exec
