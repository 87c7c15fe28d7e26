#include <algorithm>

#include "plan/schedules.h"

namespace zs::plan {

Bytes optimizer_state_bytes_per_param(const configs::DsConfig& c) {
  using configs::OptimizerKind;
  switch (c.optimizer.kind) {
    case OptimizerKind::kAdagrad:
    case OptimizerKind::kLion:
      return 4;
    case OptimizerKind::kTorch:
      return c.optimizer.type.value == "SGD" || c.optimizer.type.value == "RMSprop" ? 4 : 8;
    default:
      return 8;
  }
}

void for_each_micro_step(PlanBuilder& b,
                         const std::function<void(const std::string&, int)>& body) {
  const int g = b.layout().micro_steps;
  auto run = [&](int first, int last) {
    const std::string label = micro_step_label(first, last);
    b.begin_segment("micro_step." + label.substr(2), last - first + 1);
    body(label, first);
    b.end_segment();
  };
  run(0, 0);
  if (g >= 3) run(1, g - 2);
  if (g >= 2) run(g - 1, g - 1);
}

}  // namespace zs::plan
