// Running sweeps: the baseline row, failure isolation, the global batch, and results that do
// not depend on the number of threads.
#include "tuning/sweep.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reports/simulate_report.h"
#include "tests/tuning/sweep_test_util.h"
#include "tuning/ranking.h"

namespace zs::tuning {
namespace {

TEST(Sweep, InvalidCombinationsBecomeRowsWithTheirReason) {
  SweepSetup s = sweep_setup(kZero2);
  s.axes = {axis("offload=none,optimizer+param"), axis("micro_batch=1,3")};
  s.global_batch = 16;
  auto out = run_sweep(s);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->rows.size(), 5u);  // the baseline and 2 x 2 variants
  const SweepRow& base = out->rows[0];
  EXPECT_TRUE(base.baseline);
  ASSERT_TRUE(base.ok) << base.error;
  EXPECT_EQ(base.values[0], "none");  // the config's own values
  EXPECT_EQ(base.values[1], 2);
  EXPECT_EQ(base.metrics.grad_accum, 1);  // 2 x 8 GPUs = 16
  // offload=none, micro_batch=1: gradient accumulation 2 keeps the global batch.
  const SweepRow& ok = out->rows[1];
  ASSERT_TRUE(ok.ok) << ok.error;
  EXPECT_EQ(ok.metrics.grad_accum, 2);
  EXPECT_EQ(ok.metrics.train_batch_size, 16);
  // micro_batch=3: 3 x 8 does not divide 16.
  EXPECT_FALSE(out->rows[2].ok);
  EXPECT_NE(out->rows[2].error.find("micro-batch 3 x world 8 = 24 does not divide the global "
                                    "batch 16"),
            std::string::npos)
      << out->rows[2].error;
  // Parameter offload at stage 2 is ignored by DeepSpeed: not a variant of its own.
  EXPECT_FALSE(out->rows[3].ok);
  EXPECT_NE(out->rows[3].error.find("DeepSpeed ignores zero_optimization.offload_param"),
            std::string::npos)
      << out->rows[3].error;
  EXPECT_EQ(out->rows[3].values[0], "optimizer+param");
  for (int id : out->ranking) EXPECT_TRUE(out->rows[static_cast<std::size_t>(id)].ok);
  ASSERT_TRUE(out->best.has_value());
  ASSERT_TRUE(out->best_result.has_value());
  EXPECT_FALSE(out->why.empty());
}

TEST(Sweep, RowsStreamToTheSinkInOrderAndTheirRenderingsAreNotHeld) {
  SweepSetup s = sweep_setup(kZero2);
  s.axes = {axis("stage=1,2,3"), axis("micro_batch=1,2,4,8")};
  s.jobs = 2;
  std::vector<int> ids;
  std::vector<std::string> renderings;
  s.row_sink = [&](const SweepRow& r) {
    ids.push_back(r.id);
    renderings.push_back(r.rendered);
    return Status::ok();
  };
  std::int64_t expected = 0;
  s.on_start = [&](std::int64_t rows, double seconds_per_row) {
    expected = rows;
    EXPECT_GT(seconds_per_row, 0);
    EXPECT_FALSE(ids.empty());  // after the baseline and a first batch
  };
  auto out = run_sweep(s);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(expected, 13);
  ASSERT_EQ(ids.size(), 13u);
  for (int i = 0; i < 13; ++i) EXPECT_EQ(ids[static_cast<std::size_t>(i)], i);
  EXPECT_FALSE(renderings[0].empty());
  for (const SweepRow& r : out->rows) EXPECT_TRUE(r.rendered.empty()) << r.id;
  EXPECT_TRUE(out->rows[0].baseline);
}

TEST(Sweep, AFailingSinkStopsTheSweepWithItsStatus) {
  SweepSetup s = sweep_setup(kZero2);
  s.axes = {axis("micro_batch=1..64:+1")};
  s.jobs = 2;
  int calls = 0;
  s.row_sink = [&](const SweepRow&) {
    return ++calls < 3 ? Status::ok() : Status::io_error("out: error[file]: disk full");
  };
  auto out = run_sweep(s);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "out: error[file]: disk full");
  EXPECT_EQ(calls, 3);  // no row after the failure reached the sink
}

TEST(Sweep, ResultsDoNotDependOnTheNumberOfJobs) {
  SweepSetup s = sweep_setup(kZero2);
  s.axes = {axis("stage=1,2,3"), axis("micro_batch=1,4"), axis("overlap_comm=true,false"),
            axis("precision=bf16,fp32")};
  s.jobs = 1;
  auto one = run_sweep(s);
  s.jobs = 2;
  auto two = run_sweep(s);
  ASSERT_TRUE(one.ok() && two.ok());
  ASSERT_EQ(one->rows.size(), 25u);
  ASSERT_EQ(one->rows.size(), two->rows.size());
  for (std::size_t i = 0; i < one->rows.size(); ++i) {
    EXPECT_EQ(one->rows[i].ok, two->rows[i].ok) << i;
    EXPECT_EQ(one->rows[i].error, two->rows[i].error) << i;
    EXPECT_EQ(one->rows[i].rendered, two->rows[i].rendered) << i;
    EXPECT_EQ(one->rows[i].values, two->rows[i].values) << i;
  }
  EXPECT_EQ(one->ranking, two->ranking);
  EXPECT_EQ(one->pareto, two->pareto);
  EXPECT_EQ(one->why, two->why);
}

// What a sweep shares between variants (the parsed config, and per workload the model graph and
// its kernels' pricing) changes nothing: sampled rows, simulated again from scratch (the edited
// config written out and parsed anew, the graph built and priced afresh), render byte for byte
// the same `simulate --json` object.
TEST(Sweep, ASharedGraphAndPricingGiveTheBytesOfAFreshSimulation) {
  SweepSetup s = sweep_setup(kZero2);
  s.axes = {axis("stage=1,2,3"), axis("micro_batch=1,2,4"), axis("overlap_comm=true,false"),
            axis("zero_optimization.reduce_bucket_size=1e4,3e5,2e6")};
  s.render = [](const sim::SimulationResult& r, const sim::SimulationRequest& q) {
    return reports::render_simulation_json_text(r, q);
  };
  auto out = run_sweep(s);
  ASSERT_TRUE(out.ok()) << out.status().message();
  int compared = 0;
  for (std::size_t i = 1; i < out->rows.size(); i += 5) {
    const SweepRow& row = out->rows[i];
    if (!row.ok) continue;
    sim::SimulationRequest fresh = s.base;  // no graph, no pricing: built from the spec
    json::Json root = s.base.config_document->root;
    ASSERT_TRUE(apply_variant(s.axes, row.variant, &root, &fresh).ok());
    auto doc = json::parse_text(root.dump(2), s.base.config_path);
    ASSERT_TRUE(doc.ok());
    fresh.config_document = std::make_shared<const json::Document>(std::move(*doc));
    fresh.op_names = false;                     // as the sweep's rows: no op names
    fresh.allocator_near_capacity_only = true;  // and the allocator only near capacity
    auto r = sim::simulate(fresh);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(reports::render_simulation_json_text(*r, fresh), row.rendered) << "row " << i;
    ++compared;
  }
  EXPECT_GE(compared, 8);
}

TEST(Sweep, WhyComparesEachChangedTermWithTheBaseline) {
  SweepSetup s = sweep_setup(kZero2);
  s.axes = {axis("micro_batch=2,8"), axis("zero_optimization.reduce_bucket_size=4096,5e8")};
  auto out = run_sweep(s);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->best.has_value());
  const SweepRow& best = out->rows[static_cast<std::size_t>(*out->best)];
  EXPECT_GE(best.metrics.tokens_per_s, out->rows[0].metrics.tokens_per_s);
  if (*out->best != 0) {
    bool found_together = false;
    for (const std::string& line : out->why) {
      found_together |= line.starts_with("together: step ");
    }
    EXPECT_TRUE(found_together) << ::testing::PrintToString(out->why);
  }
}

}  // namespace
}  // namespace zs::tuning
