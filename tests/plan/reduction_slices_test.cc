// The gradient reductions state which gradient elements they carry (CollectiveWork::slices):
// whatever the stage, bucket size and world, one reduction round carries every gradient
// element exactly once. An executor gathers these into the collective's buffer.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/plan/plan_test_util.h"

namespace zs::plan {
namespace {

using plan::plan_text;
using plan::PlanSetup;

std::string config(int stage, const std::string& extra) {
  return R"({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 2,
             "bf16": {"enabled": true}, "zero_optimization": {"stage": )" +
         std::to_string(stage) + (extra.empty() ? "" : ", " + extra) + "}}";
}

// Per segment with gradient reductions: each real parameter's [0, numel) tiled exactly once.
void expect_each_gradient_once(const PlannedText& r, const std::string& what) {
  const Plan& p = r.built.plan;
  const Layout& l = r.built.layout;
  int rounds = 0;
  for (const Segment& seg : p.segments) {
    std::map<int, std::vector<std::pair<std::int64_t, std::int64_t>>> cover;
    bool any = false;
    for (int i = seg.first_op; i < seg.end_op; ++i) {
      const auto* c = std::get_if<CollectiveWork>(&p.ops[i].work);
      if (c == nullptr || p.ops[i].phase != Phase::kReduce) continue;
      for (const ParamSlice& s : p.slices(*c)) {
        any = true;
        cover[s.param].push_back({s.begin, s.end});
      }
    }
    if (!any) continue;
    ++rounds;
    for (int param : l.real_params()) {
      auto& runs = cover[param];
      std::sort(runs.begin(), runs.end());
      std::int64_t next = 0;
      for (const auto& [b, e] : runs) {
        EXPECT_EQ(b, next) << what << " segment " << seg.name << " param " << param;
        next = e;
      }
      EXPECT_EQ(next, l.params()[param].numel)
          << what << " segment " << seg.name << " param " << param;
    }
    EXPECT_EQ(cover.size(), l.real_params().size()) << what;  // no tied alias, nothing else
  }
  EXPECT_GE(rounds, 1) << what;
}

TEST(ReductionSlices, EveryRoundCarriesEachGradientElementOnce) {
  const std::vector<std::pair<int, std::string>> cases = {
      {0, ""},
      {1, R"("reduce_bucket_size": 3000)"},
      {2, R"("reduce_bucket_size": 3000, "overlap_comm": true)"},
      {2, R"("reduce_bucket_size": 3000, "use_multi_rank_bucket_allreduce": false)"},
      {2, R"("contiguous_gradients": false, "reduce_bucket_size": 5000)"},
      {2, R"("reduce_bucket_size": 1e9)"},
      {3, R"("reduce_bucket_size": 3000)"},
      {3, R"("reduce_bucket_size": 1e9)"},
  };
  for (int world : {2, 3, 4}) {
    PlanSetup s;
    s.model = "tiny-gpt";
    s.gpus_per_node = world;
    s.seq_len = 64;
    for (const auto& [stage, extra] : cases) {
      const auto r = plan_text(config(stage, extra), s);
      expect_each_gradient_once(
          r, "stage " + std::to_string(stage) + " " + extra + " world " + std::to_string(world));
    }
  }
}

}  // namespace
}  // namespace zs::plan
