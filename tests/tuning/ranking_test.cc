// Feasibility, ranking and the Pareto front on constructed rows.
#include "tuning/ranking.h"

#include <gtest/gtest.h>

namespace zs::tuning {
namespace {

constexpr Bytes kCapacity = 100 * kGiB;

SweepRow row(int id, double tokens_per_s, Bytes peak, bool ok = true) {
  SweepRow r;
  r.id = id;
  r.ok = ok;
  r.metrics.tokens_per_s = tokens_per_s;
  r.metrics.gpu_peak_bytes = peak;
  r.metrics.gpu_capacity_bytes = kCapacity;
  r.metrics.gpu_oom = peak > kCapacity;
  return r;
}

TEST(Ranking, FeasibleKeepsTheHeadroomFree) {
  EXPECT_TRUE(is_feasible(row(0, 1, 95 * kGiB), 0.05));
  EXPECT_FALSE(is_feasible(row(0, 1, 95 * kGiB + 1), 0.05));
  EXPECT_TRUE(is_feasible(row(0, 1, 100 * kGiB), 0.0));
  EXPECT_FALSE(is_feasible(row(0, 1, 101 * kGiB), 0.0));
  EXPECT_FALSE(is_feasible(row(0, 1, 10 * kGiB, /*ok=*/false), 0.05));
  SweepRow host = row(0, 1, 10 * kGiB);
  host.metrics.host_oom = true;
  EXPECT_FALSE(is_feasible(host, 0.05));
}

TEST(Ranking, FastestFirstThenLeastMemoryThenId) {
  const std::vector<SweepRow> rows = {
      row(0, 100, 50 * kGiB), row(1, 300, 96 * kGiB),  // over the 5% headroom
      row(2, 200, 60 * kGiB), row(3, 200, 40 * kGiB),
      row(4, 250, 80 * kGiB), row(5, 999, 1 * kGiB, /*ok=*/false),
      row(6, 100, 50 * kGiB)};
  EXPECT_EQ(rank_rows(rows, 0.05), (std::vector<int>{4, 3, 2, 0, 6}));
  // Without headroom row 1 fits and wins.
  EXPECT_EQ(rank_rows(rows, 0.0).front(), 1);
}

TEST(Ranking, ParetoFrontOfThroughputAgainstPeakMemory) {
  const std::vector<SweepRow> rows = {
      row(0, 100, 50 * kGiB),  // dominated by 3 (faster with less memory)
      row(1, 300, 96 * kGiB),  // infeasible at 5% headroom
      row(2, 200, 60 * kGiB),  // dominated by 3 (as fast, less memory)
      row(3, 200, 40 * kGiB), row(4, 250, 80 * kGiB),
      row(5, 50, 10 * kGiB),  row(6, 250, 80 * kGiB),  // equal to 4: the lower id stands for both
      row(7, 40, 20 * kGiB)};                          // dominated by 5
  EXPECT_EQ(pareto_front(rows, 0.05), (std::vector<int>{5, 3, 4}));
  EXPECT_EQ(pareto_front(rows, 0.0), (std::vector<int>{5, 3, 4, 1}));
  EXPECT_TRUE(pareto_front({}, 0.05).empty());
}

}  // namespace
}  // namespace zs::tuning
