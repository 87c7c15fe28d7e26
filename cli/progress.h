// A progress bar with an ETA on stderr for long sweeps. It draws only when asked to (a terminal,
// or --progress), and not before a second has passed, so short runs and tests see nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace zs::cli {

// True when stderr is a terminal.
bool stderr_is_terminal();

class ProgressBar {
 public:
  ProgressBar(std::string label, bool enabled);
  ~ProgressBar();  // clears the bar
  // `done` of `total` finished. Redraws at most ten times a second. Not thread-safe: the caller
  // serializes calls (tuning::SweepSetup::progress is).
  void update(std::int64_t done, std::int64_t total);

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_;
  Clock::time_point last_;
};

}  // namespace zs::cli
