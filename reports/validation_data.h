// Measurements next to predictions for `zerosim report`: DIR/validation/*.json, each the object
// `zerosim run --json` prints (cli/run_command.cc): measured time.step_s and memory.gpu.peak_bytes
// (null on the CPU backend, which has no device memory), and "prediction", the simulate --json
// object of the same config.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json_reader.h"
#include "common/status.h"

namespace zs::reports {

struct ValidationPoint {
  std::string file;     // the file's name, without its directory
  std::string backend;  // "cpu" or "cuda"; empty when absent
  std::string device;   // the CUDA device's name; empty when absent
  std::string model;
  double measured_step_s = 0;
  double predicted_step_s = 0;
  std::optional<std::int64_t> measured_peak_bytes;  // none on the CPU backend
  std::int64_t predicted_peak_bytes = 0;
};

// Reads one `zerosim run --json` output; kInvalidArgument naming the file, line and JSON path
// when a key the report needs is missing or has the wrong type.
Result<ValidationPoint> parse_validation_point(const json::Document& doc);

// Every *.json file directly in `dir`, in byte order of their names; empty when `dir` does not
// exist. The first file that cannot be read or parsed fails the whole (its Status).
Result<std::vector<ValidationPoint>> load_validation_dir(const std::string& dir);

}  // namespace zs::reports
