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

// Rows within the fastest row's band are a tie the model cannot break: the one that changes
// fewest of the config's values wins, the config as given (row 0) when it is among them.
TEST(Ranking, TheBandTiesRowsAndKeepsTheUsersValues) {
  auto with = [](SweepRow r, double band, std::vector<int> values) {
    r.metrics.band = band;
    for (int v : values) r.values.push_back(json::Json(v));
    return r;
  };
  // Row 1 is 10% faster than the baseline, row 2 5%, row 3 30% with two changes.
  std::vector<SweepRow> rows = {
      with(row(0, 100, 50 * kGiB), 0.19, {1, 1}), with(row(1, 110, 50 * kGiB), 0.19, {2, 1}),
      with(row(2, 105, 40 * kGiB), 0.19, {1, 2}), with(row(3, 80, 10 * kGiB), 0.19, {2, 2})};
  auto w = choose_winner(rows, rank_rows(rows, 0.05));
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->fastest, 1);
  EXPECT_EQ(w->best, 0);  // 100 >= 110 x 0.81: within the band, and it changes nothing
  EXPECT_EQ(w->changes, 0);
  EXPECT_EQ(w->tied, (std::vector<int>{1, 2, 0}));  // row 3 (80 < 89.1) is outside
  // A gain that clears the band moves the knob; of two equally simple rows the smaller peak wins.
  rows[1].metrics.tokens_per_s = 130;
  rows[2].metrics.tokens_per_s = 120;
  w = choose_winner(rows, rank_rows(rows, 0.05));
  EXPECT_EQ(w->fastest, 1);
  EXPECT_EQ(w->best, 2);  // 120 >= 130 x 0.81, one change like row 1, 40 GiB against 50
  // Without a band, the fastest wins and there is no tie.
  for (SweepRow& r : rows) r.metrics.band = 0;
  w = choose_winner(rows, rank_rows(rows, 0.05));
  EXPECT_EQ(w->best, 1);
  EXPECT_TRUE(w->tied.empty());
  EXPECT_FALSE(choose_winner(rows, {}).has_value());
}

}  // namespace
}  // namespace zs::tuning
