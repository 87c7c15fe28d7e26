// Internal to plan/: where each parameter's gradient appears during a micro-step's backward.
#pragma once

#include <vector>

#include "plan/layout.h"

namespace zs::plan {

struct GradFlow {
  // Per block: parameters whose gradient tensor autograd creates in this block's backward
  // (first use in backward order; the tied embedding appears at the LM head).
  std::vector<std::vector<int>> created;
  // Per block: parameters whose gradient is complete after this block's backward, in the order
  // DeepSpeed's gradient hooks fire (Layout::grad_order).
  std::vector<std::vector<int>> completed;
  // Per block: its largest parameter (elements), for transient per-parameter gradients.
  std::vector<std::int64_t> largest;
};

GradFlow make_grad_flow(const Layout& l);

}  // namespace zs::plan
