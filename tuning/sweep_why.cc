#include "tuning/sweep_why.h"

#include <algorithm>
#include <cstdio>

#include "common/units.h"
#include "sim/uncertainty.h"
#include "tuning/ranking.h"

namespace zs::tuning {
std::string tie_text(const Winner& w, std::span<const SweepRow> rows) {
  const auto at = [&](int id) -> const SweepRow& { return rows[static_cast<std::size_t>(id)]; };
  const VariantMetrics& f = at(w.fastest).metrics;
  // The first few ids, then how many more.
  constexpr std::size_t kShown = 6;
  std::string ids = std::to_string(w.tied.size()) + " rows (";
  for (std::size_t i = 0; i < w.tied.size() && i < kShown; ++i) {
    ids += (i == 0 ? "" : ", ") + std::to_string(w.tied[i]);
  }
  if (w.tied.size() > kShown) ids += ", ...";
  ids += ")";
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "tie: %s are within ±%.0f%% of the fastest, row %d (%.0f tokens/s): the "
                "band of a %s step, inside which the model cannot tell them apart; ",
                ids.c_str(), 100 * w.band, w.fastest, f.tokens_per_s,
                std::string(sim::regime_name(f.regime)).c_str());
  std::string s = buf;
  if (w.best == w.fastest) {
    return s + "row " + std::to_string(w.best) +
           " is kept: no tied row changes fewer of the config's values or needs less memory";
  }
  const VariantMetrics& b = at(w.best).metrics;
  const int fastest_changes = changed_values(at(w.fastest), rows.front());
  std::snprintf(buf, sizeof buf,
                "row %d is chosen (%.0f tokens/s, %+.1f%% against the fastest): it changes %d of "
                "the config's values (the fastest %d) and peaks at %s (the fastest %s)",
                w.best, b.tokens_per_s, 100 * (b.tokens_per_s / f.tokens_per_s - 1), w.changes,
                fastest_changes, format_bytes(b.gpu_peak_bytes).c_str(),
                format_bytes(f.gpu_peak_bytes).c_str());
  s += buf;
  if (w.best == 0) s += "; the config as given stays";
  return s;
}

std::string format_seconds(double s) {
  char buf[48];
  if (s < 1.0) {
    std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  }
  return buf;
}

namespace {

std::string percent(double from, double to) {
  if (from <= 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, " (%+.1f%%)", 100.0 * (to - from) / from);
  return buf;
}

// "step 1.234 s -> 1.100 s (-10.9%), exposed comm 200.0 ms -> 50.0 ms, peak memory 30.1 GiB ->
// 28.0 GiB".
std::string delta_text(const VariantMetrics& a, const VariantMetrics& b) {
  return "step " + format_seconds(a.step_s) + " -> " + format_seconds(b.step_s) +
         percent(a.step_s, b.step_s) + ", exposed comm " + format_seconds(a.exposed_comm_s) +
         " -> " + format_seconds(b.exposed_comm_s) + ", peak memory " +
         format_bytes(a.gpu_peak_bytes) + " -> " + format_bytes(b.gpu_peak_bytes);
}

std::string tokens_text(double a, double b) {
  char buf[96];
  if (a > 0) {
    std::snprintf(buf, sizeof buf, "tokens/s %.0f -> %.0f (x%.2f)", a, b, b / a);
  } else {
    std::snprintf(buf, sizeof buf, "tokens/s %.0f", b);
  }
  return buf;
}

std::string fit_text(const SweepRow& r, double headroom) {
  const VariantMetrics& m = r.metrics;
  if (is_feasible(r, headroom)) return "";
  if (m.host_oom) return " (host memory does not suffice)";
  return " (does not fit: peak " + format_bytes(m.gpu_peak_bytes) + " of " +
         format_bytes(m.gpu_capacity_bytes) + ")";
}

std::vector<std::string> no_winner(std::span<const SweepRow> rows, double headroom) {
  const SweepRow* least = nullptr;
  for (const SweepRow& r : rows) {
    if (r.ok && (least == nullptr || r.metrics.gpu_peak_bytes < least->metrics.gpu_peak_bytes)) {
      least = &r;
    }
  }
  if (least == nullptr) return {"no variant could be simulated; each row says why"};
  char pct[16];
  std::snprintf(pct, sizeof pct, "%g%%", 100.0 * headroom);
  return {"no variant fits: the least GPU memory any needs is " +
          format_bytes(least->metrics.gpu_peak_bytes) + " (row " + std::to_string(least->id) +
          ") of " + format_bytes(least->metrics.gpu_capacity_bytes) + " with " + pct +
          " headroom kept free"};
}

}  // namespace

std::vector<std::string> explain_best(VariantRunner& runner, std::span<const Axis> axes,
                                      std::span<const SweepRow> rows, std::optional<int> best,
                                      double headroom) {
  if (!best) return no_winner(rows, headroom);
  const SweepRow& base = rows[0];
  const SweepRow& win = rows[static_cast<std::size_t>(*best)];
  const VariantMetrics& w = win.metrics;
  if (*best == base.id) {
    const bool fastest = std::all_of(rows.begin(), rows.end(), [&](const SweepRow& r) {
      return !is_feasible(r, headroom) || r.metrics.tokens_per_s <= w.tokens_per_s;
    });
    return {std::string(fastest ? "your config is the fastest variant that fits: "
                                : "your config is kept (the tie above): ") +
            tokens_text(0, w.tokens_per_s) + ", step " + format_seconds(w.step_s) + " (both " +
            format_band(w.band) + "), peak memory " + format_bytes(w.gpu_peak_bytes) + " " +
            format_band(sim::memory_band().fraction) + " of " + format_bytes(w.gpu_capacity_bytes)};
  }
  std::vector<std::size_t> changed;
  std::vector<Variant> singles;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (same_value(base.values[a], win.values[a])) continue;
    changed.push_back(a);
    Variant v{std::vector<std::optional<json::Json>>(axes.size())};
    v.values[a] = win.values[a];
    singles.push_back(std::move(v));
  }
  std::vector<SweepRow> alone;
  if (base.ok) alone = runner.run(singles, -1, /*memory_only=*/false, /*count=*/false);
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < changed.size(); ++i) {
    const Axis& axis = axes[changed[i]];
    std::string line = axis.key + ": " + value_text(base.values[changed[i]]) + " -> " +
                       value_text(win.values[changed[i]]);
    if (!alone.empty()) {
      const SweepRow& s = alone[i];
      const bool no_effect = s.ok && s.metrics.step_s == base.metrics.step_s &&
                             s.metrics.gpu_peak_bytes == base.metrics.gpu_peak_bytes;
      if (!s.ok) {
        line += ": alone, not a valid variant (" + s.error + ")";
      } else if (no_effect) {
        line += ": alone, no effect on step time or memory (it acts with the other changes)";
      } else {
        line += ": alone, " + delta_text(base.metrics, s.metrics) + fit_text(s, headroom);
      }
    }
    lines.push_back(std::move(line));
  }
  bool grad_accum_listed = false;
  for (std::size_t a : changed) grad_accum_listed |= axes[a].shorthand == Shorthand::kGradAccum;
  if (base.ok && !grad_accum_listed && base.metrics.grad_accum != w.grad_accum) {
    lines.push_back("gradient_accumulation_steps: " + std::to_string(base.metrics.grad_accum) +
                    " -> " + std::to_string(w.grad_accum) + " (train_batch_size " +
                    std::to_string(base.metrics.train_batch_size) + " -> " +
                    std::to_string(w.train_batch_size) + ")");
  }
  if (base.ok) {
    lines.push_back(
        "together: " + delta_text(base.metrics, w) + ", " +
        tokens_text(base.metrics.tokens_per_s, w.tokens_per_s) +
        (is_feasible(base, headroom) ? "" : "; your config" + fit_text(base, headroom)));
  } else {
    lines.push_back("your config could not be simulated (" + base.error + "); the winner: step " +
                    format_seconds(w.step_s) + ", exposed comm " +
                    format_seconds(w.exposed_comm_s) + ", peak memory " +
                    format_bytes(w.gpu_peak_bytes) + ", " + tokens_text(0, w.tokens_per_s));
  }
  return lines;
}

}  // namespace zs::tuning
