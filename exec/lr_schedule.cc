#include "exec/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace zs::exec {
namespace {

Status bad(const std::string& key, const std::string& what) {
  return Status::invalid_argument("scheduler.params." + key + ": " + what);
}

// A number from the scheduler's params, or `fallback` when absent.
Result<double> number(const configs::SchedulerConfig& s, const std::string& key, double fallback) {
  for (const auto& [name, knob] : s.params) {
    if (name != key) continue;
    if (!knob.value.is_number()) return bad(key, knob.value.dump() + " is not a number");
    return knob.value.get<double>();
  }
  return fallback;
}

}  // namespace

double LrSchedule::at(std::int64_t step) const {
  if (kind == Kind::kConstant) return lr;
  const std::int64_t w = std::max<std::int64_t>(2, warmup_steps);
  const std::int64_t i = step - 1;  // the scheduler's last_batch_iteration during this step
  double gamma = 0.0;
  if (i < 0) {
    gamma = 0.0;
  } else if (i < w) {
    gamma = linear ? static_cast<double>(i) / static_cast<double>(w)
                   : std::log(static_cast<double>(i + 1)) / std::log(static_cast<double>(w));
  } else if (kind == Kind::kWarmup) {
    gamma = 1.0;
  } else {
    gamma = std::max(0.0, static_cast<double>(total_steps - i) /
                              std::max(1.0, static_cast<double>(total_steps - w)));
  }
  return min_lr + (max_lr - min_lr) * gamma;
}

Result<LrSchedule> lr_schedule(const configs::DsConfig& config, double optimizer_lr) {
  LrSchedule s;
  s.lr = optimizer_lr;
  const configs::SchedulerConfig& sc = config.scheduler;
  if (!sc.present) return s;
  const std::string type = sc.type.value;
  if (type == "WarmupLR") {
    s.kind = LrSchedule::Kind::kWarmup;
  } else if (type == "WarmupDecayLR") {
    s.kind = LrSchedule::Kind::kWarmupDecay;
  } else {
    return Status::invalid_argument("scheduler.type: \"" + type +
                                    "\" is not implemented by `zerosim run` (WarmupLR or "
                                    "WarmupDecayLR)");
  }
  ZS_ASSIGN_OR_RETURN(s.min_lr, number(sc, "warmup_min_lr", 0.0));
  // WarmupLR's max defaults to the optimizer's lr; WarmupDecayLR's to 0.001.
  ZS_ASSIGN_OR_RETURN(s.max_lr, number(sc, "warmup_max_lr",
                                       s.kind == LrSchedule::Kind::kWarmup ? optimizer_lr : 1e-3));
  ZS_ASSIGN_OR_RETURN(const double warmup, number(sc, "warmup_num_steps", 1000));
  if (warmup <= 0 || warmup != std::floor(warmup)) {
    return bad("warmup_num_steps", std::to_string(warmup) + " is not a positive integer");
  }
  s.warmup_steps = static_cast<std::int64_t>(warmup);
  for (const auto& [name, knob] : sc.params) {
    if (name == "warmup_type") {
      if (!knob.value.is_string()) return bad(name, knob.value.dump() + " is not a string");
      // lr_schedules.py falls back to "log" for an unknown type, with a warning.
      s.linear = knob.value.get<std::string>() == "linear";
    }
  }
  if (s.kind == LrSchedule::Kind::kWarmupDecay) {
    ZS_ASSIGN_OR_RETURN(const double total, number(sc, "total_num_steps", -1));
    if (total < 0 || total != std::floor(total)) {
      return bad("total_num_steps", "WarmupDecayLR needs a non-negative integer");
    }
    s.total_steps = static_cast<std::int64_t>(total);
  }
  return s;
}

}  // namespace zs::exec
