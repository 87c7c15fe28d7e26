#include "reports/fit_advice_report.h"

#include <cmath>
#include <cstdio>

#include "common/units.h"
#include "sim/uncertainty.h"

namespace zs::reports {
namespace {

std::string percent(double fraction) {
  return std::to_string(static_cast<int>(std::lround(100 * fraction))) + "%";
}

}  // namespace

std::string render_fit_advice_text(const tuning::FitAdvice& advice, double base_tokens_per_s) {
  if (advice.tried == 0) return "";
  std::string out = "\nWhat would fit (" + std::to_string(advice.tried) +
                    " combinations of checkpointing, micro-batch, ZeRO stage and offload tried, "
                    "the global batch kept; " +
                    std::to_string(advice.fitting) + " fit):\n";
  if (advice.changes.empty()) {
    out += "  none of them: this model needs more GPUs, or GPUs with more memory\n";
    return out;
  }
  const std::string memory_pm = "±" + percent(sim::memory_band().fraction);
  for (std::size_t k = 0; k < advice.changes.size(); ++k) {
    const tuning::FitChange& c = advice.changes[k];
    const tuning::VariantMetrics& m = c.row.metrics;
    char buf[200];
    std::snprintf(buf, sizeof buf, "peak %s %s, %.0f tokens/s ±%s",
                  format_bytes(m.gpu_peak_bytes).c_str(), memory_pm.c_str(), m.tokens_per_s,
                  percent(m.band).c_str());
    out += std::string("  ") + (k == 0 ? "cheapest: " : "or:       ") + c.text + "\n      " + buf;
    if (base_tokens_per_s > 0) {
      std::snprintf(buf, sizeof buf, ", %+.0f%% tokens/s against the config as given",
                    100.0 * (m.tokens_per_s / base_tokens_per_s - 1.0));
      out += buf;
    }
    out += "\n";
  }
  out += "  The first is the fastest, or the simplest of those the time band cannot tell apart.\n";
  return out;
}

json::Json render_fit_advice_json(const tuning::FitAdvice& advice) {
  json::Json changes = json::Json::array();
  for (const tuning::FitChange& c : advice.changes) {
    const tuning::VariantMetrics& m = c.row.metrics;
    changes.push_back({{"text", c.text},
                       {"changes", c.changes},
                       {"gpu_peak_bytes", m.gpu_peak_bytes},
                       {"memory_band", sim::memory_band().fraction},
                       {"step_s", m.step_s},
                       {"tokens_per_s", m.tokens_per_s},
                       {"time_band", m.band},
                       {"micro_batch", m.micro_batch},
                       {"grad_accum", m.grad_accum}});
  }
  return {{"tried", advice.tried}, {"fitting", advice.fitting}, {"changes", changes}};
}

}  // namespace zs::reports
