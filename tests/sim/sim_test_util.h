// Helpers for sim/ tests (and the tests above sim): simulate a config given as text, set up as
// the plan tests set theirs up (tests/plan/plan_test_util.h).
#pragma once

#include <string>

#include "sim/simulate.h"
#include "tests/plan/plan_test_util.h"

namespace zs::sim {

struct SimSetup : plan::PlanSetup {
  KernelStyle kernels = KernelStyle::kEager;  // --kernels
};

inline SimulationResult simulate_text(const std::string& config, const SimSetup& s = {}) {
  SimulationRequest r;
  static_cast<plan::StepRequest&>(r) = plan::step_request(config, s);
  r.load_dtype = s.load_dtype;
  if (s.kernels != KernelStyle::kEager) {
    r.profile = default_cost_profile(r.cluster);
    r.profile->kernel_style = s.kernels;
  }
  auto result = simulate(r);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? std::move(result).value() : SimulationResult{};
}

}  // namespace zs::sim
