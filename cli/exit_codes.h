// The exit codes of zerosim's commands, and their --help footers.
//   0  success (for check: valid; warnings and lints allowed)
//   1  bad input: the message names the file, JSON path, value and what is allowed
//   2  usage error (an unknown flag, a missing argument)
//   3  simulate --fail-on-oom: the prediction is out of GPU or host memory
//   4  validate: the measured step time is outside --tolerance of the prediction (the verdict
//      says NO); the validation file is written all the same
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace zs::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitPredictedOom = 3;
inline constexpr int kExitOutsideTolerance = 4;

// Sets `cmd`'s help footer to the exit codes it can return: 0, 1 and 2, then `extra` (lines
// such as "  3  ...", each ending in a newline).
inline void document_exit_codes(CLI::App* cmd, const std::string& extra = "") {
  cmd->footer(
      "Exit codes:\n  0  success\n  1  bad input (the message names the file, JSON path, "
      "value and what is allowed)\n  2  usage error\n" +
      extra);
}

}  // namespace zs::cli
