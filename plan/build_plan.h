// build_plan: the Plan of one optimizer step of a DeepSpeed config on a model and a cluster.
#pragma once

#include "common/status.h"
#include "plan/layout.h"
#include "plan/plan.h"

namespace zs::plan {

struct BuiltPlan {
  Layout layout;
  Plan plan;
};

// Builds and validates the plan. kInvalidArgument when the request cannot be planned (see
// make_layout).
Result<BuiltPlan> build_plan(const PlanRequest& request);

}  // namespace zs::plan
