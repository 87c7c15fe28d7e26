// What `zerosim sweep` and `zerosim tune` share: their flags, the setup the flags describe, and
// writing and summarizing an outcome.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/options.h"
#include "common/status.h"
#include "reports/sweep_results.h"
#include "tuning/sweep.h"

namespace zs::cli {

struct SweepFlags {
  CommonFlags common;
  std::string seq_len;
  bool checkpointing = false;
  std::string attention = "flash";
  std::string kernels;
  std::string profile;
  std::string out = "zerosim-sweep";
  std::string jobs;
  std::string global_batch;
  std::string headroom = "0.05";
  bool progress = false;
  std::string load_dtype = "auto";
};

// Adds CONFIG, the model and cluster flags and the sweep's own to `cmd`.
void add_sweep_flags(CLI::App* cmd, SweepFlags* f);

// The setup the flags describe (no axes, no callbacks): the config parsed once, model and
// cluster required. kInvalidArgument / kNotFound / kParseError naming the flag or file.
// `assumed` receives what the setup assumes where the flags leave it open (assume_scenario).
Result<tuning::SweepSetup> read_sweep_setup(const SweepFlags& f, std::vector<std::string>* assumed);

reports::SweepInfo sweep_info(const SweepFlags& f, const tuning::SweepSetup& setup,
                              std::string command);

// Opens --out for the sweep's files (reports::SweepWriter: SIGINT, SIGTERM and SIGHUP are held
// until it is finished or dropped, and the files already there stay as they were until then) and
// points `setup`'s row sink at it, so rows stream to disk as they finish. Before the variants
// after the baseline start, a sweep expected to take over a minute or to have over 10,000 rows
// gets a warning on stderr with the estimated time, memory and disk use.
// `keys`: the axes whose values the rows carry (setup->axes, or a tune's).
Result<std::unique_ptr<reports::SweepWriter>> open_outputs(const SweepFlags& f,
                                                           const reports::SweepInfo& info,
                                                           const std::vector<tuning::Axis>& axes,
                                                           tuning::SweepSetup* setup);

// Finishes the files (the ranking, the winner, best_ds_config.json) and prints what the sweep
// found; returns the exit code (0: written, a sweep without a feasible variant included; 1: the
// files could not be written, and the old ones are unchanged).
int finish_and_summarize(const reports::SweepInfo& info, reports::SweepWriter& writer,
                         const tuning::SweepOutcome& out);

}  // namespace zs::cli
