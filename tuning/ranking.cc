#include "tuning/ranking.h"

#include <algorithm>

namespace zs::tuning {

bool is_feasible(const SweepRow& row, double headroom) {
  ZS_CHECK(headroom >= 0 && headroom < 1);
  if (!row.ok || row.metrics.gpu_oom || row.metrics.host_oom) return false;
  const double limit = static_cast<double>(row.metrics.gpu_capacity_bytes) * (1.0 - headroom);
  return static_cast<double>(row.metrics.gpu_peak_bytes) <= limit;
}

namespace {

std::vector<const SweepRow*> feasible_rows(std::span<const SweepRow> rows, double headroom) {
  std::vector<const SweepRow*> out;
  for (const SweepRow& r : rows) {
    if (is_feasible(r, headroom)) out.push_back(&r);
  }
  return out;
}

}  // namespace

std::vector<int> rank_rows(std::span<const SweepRow> rows, double headroom) {
  std::vector<const SweepRow*> f = feasible_rows(rows, headroom);
  std::sort(f.begin(), f.end(), [](const SweepRow* a, const SweepRow* b) {
    if (a->metrics.tokens_per_s != b->metrics.tokens_per_s) {
      return a->metrics.tokens_per_s > b->metrics.tokens_per_s;
    }
    if (a->metrics.gpu_peak_bytes != b->metrics.gpu_peak_bytes) {
      return a->metrics.gpu_peak_bytes < b->metrics.gpu_peak_bytes;
    }
    return a->id < b->id;
  });
  std::vector<int> ids;
  for (const SweepRow* r : f) ids.push_back(r->id);
  return ids;
}

int changed_values(const SweepRow& row, const SweepRow& baseline) {
  int n = 0;
  for (std::size_t a = 0; a < row.values.size(); ++a) {
    if (a >= baseline.values.size() || row.values[a] != baseline.values[a]) ++n;
  }
  return n;
}

std::optional<Winner> choose_winner(std::span<const SweepRow> rows, std::span<const int> ranking) {
  if (ranking.empty()) return std::nullopt;
  ZS_CHECK(!rows.empty());
  const auto row = [&](int id) -> const SweepRow& {
    ZS_CHECK(id >= 0 && static_cast<std::size_t>(id) < rows.size() && rows[id].id == id);
    return rows[static_cast<std::size_t>(id)];
  };
  Winner w;
  w.fastest = ranking.front();
  w.band = row(w.fastest).metrics.band;
  const double floor = row(w.fastest).metrics.tokens_per_s * (1.0 - w.band);
  for (int id : ranking) {
    if (row(id).metrics.tokens_per_s >= floor) w.tied.push_back(id);
  }
  const SweepRow& baseline = rows.front();
  w.best = w.fastest;
  w.changes = changed_values(row(w.fastest), baseline);
  for (int id : w.tied) {  // ranked: the faster first among equals
    const int changes = changed_values(row(id), baseline);
    const Bytes peak = row(id).metrics.gpu_peak_bytes;
    if (changes < w.changes ||
        (changes == w.changes && peak < row(w.best).metrics.gpu_peak_bytes)) {
      w.best = id;
      w.changes = changes;
    }
  }
  if (w.tied.size() == 1) w.tied.clear();
  return w;
}

std::vector<int> pareto_front(std::span<const SweepRow> rows, double headroom) {
  std::vector<const SweepRow*> f = feasible_rows(rows, headroom);
  // Peak ascending; at equal peak the fastest (then lowest id) first, so that it alone is kept.
  std::sort(f.begin(), f.end(), [](const SweepRow* a, const SweepRow* b) {
    if (a->metrics.gpu_peak_bytes != b->metrics.gpu_peak_bytes) {
      return a->metrics.gpu_peak_bytes < b->metrics.gpu_peak_bytes;
    }
    if (a->metrics.tokens_per_s != b->metrics.tokens_per_s) {
      return a->metrics.tokens_per_s > b->metrics.tokens_per_s;
    }
    return a->id < b->id;
  });
  std::vector<int> ids;
  double best_tokens = -1;
  for (const SweepRow* r : f) {
    if (r->metrics.tokens_per_s > best_tokens) {
      ids.push_back(r->id);
      best_tokens = r->metrics.tokens_per_s;
    }
  }
  return ids;
}

}  // namespace zs::tuning
