// `zerosim validate`'s comparison: a measured run of a Plan against the simulation of the same
// Plan (cli/run_command.cc runs both).
//
// - Step time: the median over the timed steps (those after --warmup) of each step's slowest
//   rank, against simulate's step. The machine is noisy; the median is what is compared, and
//   the spread (min, max) is reported beside it.
// - Where the time goes: the last step's ops on rank 0 (ExecResult::timeline) summed by the kind
//   of work (compute, collectives, optimizer, copies, other), against the simulated ops' own
//   durations summed the same way. Every repetition of an op is counted on both sides.
// - Per op, matched by op id: the largest absolute differences, largest first.
// - Memory: the measured peak of the Plan's device buffers (the caching allocator's
//   max_memory_allocated) against simulate's allocator replay; both exclude what is outside
//   the allocator.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json_reader.h"
#include "exec/exec_types.h"
#include "sim/simulate.h"

namespace zs::cli {

struct OpDifference {
  int op = 0;
  std::string name;
  std::string work;  // "compute", "collective", ...
  double measured_s = 0;
  double predicted_s = 0;
};

struct Validation {
  int warmup_steps = 0;
  int timed_steps = 0;
  double measured_step_s = 0;  // median
  double measured_min_s = 0, measured_max_s = 0;
  double predicted_step_s = 0;
  double step_error = 0;  // (predicted - measured) / measured
  // The profile's calibration_spread (sim/cost_profile.h): errors within it are the machine's
  // noise as calibrate saw it; 0 when the profile does not say.
  double calibration_spread = 0;
  struct Part {
    std::string work;
    double measured_s = 0;
    double predicted_s = 0;
  };
  std::vector<Part> breakdown;
  std::vector<OpDifference> largest;  // at most 10
  std::optional<std::int64_t> measured_peak_bytes;
  std::int64_t predicted_peak_bytes = 0;
  std::optional<double> memory_error;
};

// `slowest_step_s[i]`: step i's time on its slowest rank. REQUIRES: warmup < slowest_step_s.size().
Validation validate_run(const sim::SimulationResult& sim, const exec::ExecResult& measured,
                        const std::vector<double>& slowest_step_s, int warmup);

json::Json validation_json(const Validation& v);

// Three to a dozen lines: the step, the breakdown, the largest differences, the memory, and a
// verdict against `tolerance` (0.25: within 25%).
std::string validation_text(const Validation& v, double tolerance);

}  // namespace zs::cli
