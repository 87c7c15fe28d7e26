// What `zerosim sweep` and `zerosim tune` share: their flags, the setup the flags describe, and
// writing and summarizing an outcome.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/options.h"
#include "common/status.h"
#include "reports/sweep_results.h"
#include "sim/sweep.h"

namespace zs::cli {

struct SweepFlags {
  CommonFlags common;
  std::string seq_len;
  bool checkpointing = false;
  std::string attention = "flash";
  std::string profile;
  std::string out = "zerosim-sweep";
  std::string jobs;
  std::string global_batch;
  std::string headroom = "0.05";
  bool progress = false;
};

// Adds CONFIG, the model and cluster flags and the sweep's own to `cmd`.
void add_sweep_flags(CLI::App* cmd, SweepFlags* f);

// The setup the flags describe (no axes, no callbacks): the config parsed once, model and
// cluster required. kInvalidArgument / kNotFound / kParseError naming the flag or file.
Result<sim::SweepSetup> read_sweep_setup(const SweepFlags& f);

reports::SweepInfo sweep_info(const SweepFlags& f, const sim::SweepSetup& setup,
                              std::string command);

// Writes the outcome into --out and prints what it found; returns the exit code (0: written,
// a sweep without a feasible variant included; 1: the files could not be written).
int write_and_summarize(const SweepFlags& f, const reports::SweepInfo& info,
                        const sim::SweepOutcome& out);

}  // namespace zs::cli
