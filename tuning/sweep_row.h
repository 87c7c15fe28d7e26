// One row of a sweep: a variant, the values its axes took, and what the simulation predicted.
#pragma once

#include <string>
#include <vector>

#include "common/json_reader.h"
#include "common/units.h"
#include "plan/memory.h"
#include "sim/simulate.h"
#include "sim/uncertainty.h"
#include "tuning/sweep_space.h"

namespace zs::tuning {

// The figures a sweep ranks and tabulates (bytes per GPU, seconds per optimizer step).
struct VariantMetrics {
  Bytes gpu_peak_bytes = 0;
  Bytes gpu_capacity_bytes = 0;
  bool gpu_oom = false;
  bool host_oom = false;
  plan::Breakdown gpu_breakdown;  // at the peak
  double step_s = 0;
  double compute_s = 0;
  double exposed_comm_s = 0;
  double exposed_offload_s = 0;
  double optimizer_s = 0;
  double other_s = 0;
  double samples_per_s = 0;
  double tokens_per_s = 0;
  double tflops_per_gpu = 0;
  double mfu = 0;
  // The step's uncertainty band (sim/uncertainty.h): +- this fraction of step_s and tokens_s.
  double band = 0;
  sim::Regime regime = sim::Regime::kGpuBound;
  // The batch the variant ran with.
  std::int64_t micro_batch = 0;
  std::int64_t grad_accum = 0;
  std::int64_t train_batch_size = 0;
};

VariantMetrics metrics_of(const sim::SimulationResult& r);

struct SweepRow {
  int id = 0;
  Variant variant;
  // Per axis: the value the variant gave it, or the value it had (axis_values) when the
  // variant left it alone; null when neither is known (the check failed).
  std::vector<json::Json> values;
  bool baseline = false;  // the user's config as given
  bool ok = false;        // simulated; false: an invalid combination, `error` says why
  std::string error;
  VariantMetrics metrics;
  std::string rendered;  // SweepSetup::render's text for the result, when ok
};

}  // namespace zs::tuning
