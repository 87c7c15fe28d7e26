// Ranking a sweep's rows: which fit, which is fastest, and which trade memory for speed.
#pragma once

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

// Ids of the feasible rows on the Pareto front of tokens/s against GPU peak memory (no feasible
// row is at least as fast with at most as much memory, and better in one), by peak ascending.
// Of rows equal in both, the lowest id stands for them.
std::vector<int> pareto_front(std::span<const SweepRow> rows, double headroom);

}  // namespace zs::tuning
