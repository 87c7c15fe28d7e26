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
