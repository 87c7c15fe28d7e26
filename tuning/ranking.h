// Ranking a sweep's rows: which fit, which is fastest, and which trade memory for speed.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "tuning/sweep_row.h"

namespace zs::tuning {

// Simulated, the GPU peak within capacity x (1 - headroom), and the host memory enough.
// REQUIRES: 0 <= headroom < 1
bool is_feasible(const SweepRow& row, double headroom);

// Ids of the feasible rows, best first: tokens/s descending, then peak memory ascending, then id
// (the baseline, id 0, wins a tie).
std::vector<int> rank_rows(std::span<const SweepRow> rows, double headroom);

// The winner of ranked rows, read with the prediction's uncertainty. The rows whose tokens/s is
// within the fastest row's band (VariantMetrics::band) of it are a tie: the model cannot tell
// them apart. Of those, the one that changes fewest axis values from row 0 (the config as
// given, which changes none) wins, then the smaller GPU peak, then the faster, then the lower
// id; so a knob moves from the user's value only when the gain clears the band.
struct Winner {
  int best = 0;
  int fastest = 0;
  double band = 0;        // the fastest row's band
  std::vector<int> tied;  // the rows within the band of the fastest, ranked; empty when only one
  int changes = 0;        // axis values `best` changes from row 0
};
// REQUIRES: rows[i].id == i; ranking as rank_rows gave it. None when ranking is empty.
std::optional<Winner> choose_winner(std::span<const SweepRow> rows, std::span<const int> ranking);

// The number of axis values `row` changes from `baseline`.
int changed_values(const SweepRow& row, const SweepRow& baseline);

// Ids of the feasible rows on the Pareto front of tokens/s against GPU peak memory (no feasible
// row is at least as fast with at most as much memory, and better in one), by peak ascending.
// Of rows equal in both, the lowest id stands for them.
std::vector<int> pareto_front(std::span<const SweepRow> rows, double headroom);

}  // namespace zs::tuning
