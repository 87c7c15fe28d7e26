#include "cli/validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "common/overloaded.h"

namespace zs::cli {
namespace {

std::string work_name(const plan::Work& w) {
  return std::visit(Overloaded{
                        [](const plan::ComputeWork&) { return "compute"; },
                        [](const plan::CollectiveWork&) { return "collective"; },
                        [](const plan::MemoryWork&) { return "memory"; },
                        [](const plan::CopyWork&) { return "copy"; },
                        [](const plan::OptimizerWork&) { return "optimizer"; },
                        [](const plan::NvmeWork&) { return "nvme"; },
                        [](const plan::SyncWork&) { return "sync"; },
                    },
                    w);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string ms(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", s * 1e3);
  return b;
}

std::string percent(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", 100 * x);
  return b;
}

}  // namespace

Validation validate_run(const sim::SimulationResult& sim, const exec::ExecResult& measured,
                        const std::vector<double>& slowest_step_s, int warmup) {
  Validation v;
  v.warmup_steps = warmup;
  const std::vector<double> timed(slowest_step_s.begin() + warmup, slowest_step_s.end());
  v.timed_steps = static_cast<int>(timed.size());
  v.measured_step_s = median(timed);
  v.measured_min_s = *std::min_element(timed.begin(), timed.end());
  v.measured_max_s = *std::max_element(timed.begin(), timed.end());
  v.predicted_step_s = sim.time.step_s;
  v.step_error = (v.predicted_step_s - v.measured_step_s) / v.measured_step_s;
  v.calibration_spread = sim.profile.calibration_spread;

  const plan::Plan& plan = sim.built.plan;
  const std::size_t n = plan.ops.size();
  // Measured: every repetition of each op in the last step. Predicted: the engine's record of
  // each op's first repetition, times the op's repetitions in the step.
  std::vector<double> got(n, 0), want(n, 0);
  for (const exec::OpTiming& t : measured.timeline) {
    if (t.op >= 0 && static_cast<std::size_t>(t.op) < n) {
      got[static_cast<std::size_t>(t.op)] += static_cast<double>(t.end_ns - t.start_ns) * 1e-9;
    }
  }
  std::vector<int> repeats(n, 1);
  for (const plan::Segment& s : plan.segments) {
    for (int i = s.first_op; i < s.end_op; ++i) repeats[static_cast<std::size_t>(i)] = s.repeat;
  }
  const std::vector<sim::OpTime>& ops = sim.time.timeline.ops;
  for (std::size_t i = 0; i < n && i < ops.size(); ++i) {
    if (ops[i].start_ns >= 0 && ops[i].end_ns >= ops[i].start_ns) {
      want[i] = static_cast<double>(ops[i].end_ns - ops[i].start_ns) * 1e-9 * repeats[i];
    }
  }
  std::map<std::string, Validation::Part> parts;
  std::vector<OpDifference> diffs;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string w = work_name(plan.ops[i].work);
    Validation::Part& p = parts[w];
    p.work = w;
    p.measured_s += got[i];
    p.predicted_s += want[i];
    diffs.push_back(
        {static_cast<int>(i), std::string(plan.op_name(static_cast<int>(i))), w, got[i], want[i]});
  }
  for (auto& [name, p] : parts) v.breakdown.push_back(p);
  std::sort(v.breakdown.begin(), v.breakdown.end(),
            [](const Validation::Part& a, const Validation::Part& b) {
              return a.measured_s != b.measured_s ? a.measured_s > b.measured_s : a.work < b.work;
            });
  std::stable_sort(diffs.begin(), diffs.end(), [](const OpDifference& a, const OpDifference& b) {
    return std::fabs(a.measured_s - a.predicted_s) > std::fabs(b.measured_s - b.predicted_s);
  });
  if (diffs.size() > 10) diffs.resize(10);
  v.largest = std::move(diffs);

  v.predicted_peak_bytes = sim.memory.gpu_allocator_allocated_peak_bytes;
  if (measured.device_memory) {
    v.measured_peak_bytes = measured.device_memory->peak_allocated_bytes;
    if (*v.measured_peak_bytes > 0) {
      v.memory_error = static_cast<double>(v.predicted_peak_bytes - *v.measured_peak_bytes) /
                       static_cast<double>(*v.measured_peak_bytes);
    }
  }
  return v;
}

json::Json validation_json(const Validation& v) {
  json::Json j = json::Json::object();
  j["warmup_steps"] = v.warmup_steps;
  j["timed_steps"] = v.timed_steps;
  j["step"] = {{"statistic", "median over the timed steps of each step's slowest rank"},
               {"measured_s", v.measured_step_s},
               {"measured_min_s", v.measured_min_s},
               {"measured_max_s", v.measured_max_s},
               {"predicted_s", v.predicted_step_s},
               {"error", v.step_error},
               {"calibration_spread", v.calibration_spread}};
  json::Json parts = json::Json::array();
  for (const Validation::Part& p : v.breakdown) {
    parts.push_back(
        {{"work", p.work}, {"measured_s", p.measured_s}, {"predicted_s", p.predicted_s}});
  }
  j["breakdown"] = parts;
  json::Json ops = json::Json::array();
  for (const OpDifference& d : v.largest) {
    ops.push_back({{"op", d.op},
                   {"name", d.name},
                   {"work", d.work},
                   {"measured_s", d.measured_s},
                   {"predicted_s", d.predicted_s}});
  }
  j["largest_op_differences"] = ops;
  j["memory"] = {
      {"what", "peak of the plan's device buffers through the caching allocator (allocated)"},
      {"measured_bytes", v.measured_peak_bytes ? json::Json(*v.measured_peak_bytes) : nullptr},
      {"predicted_bytes", v.predicted_peak_bytes},
      {"error", v.memory_error ? json::Json(*v.memory_error) : nullptr}};
  return j;
}

std::string validation_text(const Validation& v, double tolerance) {
  std::string out;
  out += "step: measured " + ms(v.measured_step_s) + " (median of " +
         std::to_string(v.timed_steps) + " steps after " + std::to_string(v.warmup_steps) +
         " warm-up, slowest rank; " + ms(v.measured_min_s) + " to " + ms(v.measured_max_s) +
         "), predicted " + ms(v.predicted_step_s) + ", " + percent(v.step_error) + "\n";
  out += "where the time goes (last step, rank 0: measured / predicted):\n";
  for (const Validation::Part& p : v.breakdown) {
    if (p.measured_s == 0 && p.predicted_s == 0) continue;
    char line[160];
    std::snprintf(line, sizeof line, "  %-11s %10.3f ms  %10.3f ms\n", p.work.c_str(),
                  p.measured_s * 1e3, p.predicted_s * 1e3);
    out += line;
  }
  out += "largest differences by op (measured / predicted):\n";
  for (std::size_t i = 0; i < v.largest.size() && i < 5; ++i) {
    const OpDifference& d = v.largest[i];
    char line[256];
    std::snprintf(line, sizeof line, "  op %d %s (%s): %.3f ms / %.3f ms\n", d.op, d.name.c_str(),
                  d.work.c_str(), d.measured_s * 1e3, d.predicted_s * 1e3);
    out += line;
  }
  if (v.measured_peak_bytes) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "device buffers' peak: measured %lld bytes, predicted %lld bytes, %s\n",
                  static_cast<long long>(*v.measured_peak_bytes),
                  static_cast<long long>(v.predicted_peak_bytes),
                  v.memory_error ? percent(*v.memory_error).c_str() : "n/a");
    out += line;
  }
  const bool time_ok = std::fabs(v.step_error) <= tolerance;
  const bool memory_ok = !v.memory_error || std::fabs(*v.memory_error) <= 0.01;
  char verdict[200];
  std::snprintf(verdict, sizeof verdict,
                "verdict: step time %s (within %.0f%%: %s), device memory %s\n",
                percent(v.step_error).c_str(), 100 * tolerance, time_ok ? "yes" : "NO",
                !v.memory_error ? "not measured"
                : memory_ok     ? "within 1%"
                                : "NOT within 1%");
  out += verdict;
  if (v.calibration_spread > 0) {
    std::snprintf(verdict, sizeof verdict,
                  "  the profile's calibration rounds disagreed by %.1f%% on this machine's speed: "
                  "an error %s that is %s\n",
                  100 * v.calibration_spread,
                  std::fabs(v.step_error) <= v.calibration_spread ? "within" : "beyond",
                  std::fabs(v.step_error) <= v.calibration_spread ? "the machine's noise"
                                                                  : "the model's, not noise");
    out += verdict;
  }
  return out;
}

}  // namespace zs::cli
