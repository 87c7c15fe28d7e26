// The files `zerosim sweep` and `zerosim tune` write into their output directory:
//   results.json       format "zerosim.sweep/1" (below), read by `zerosim report`
//   results.csv        one header line, then one line per row
//   best_ds_config.json  the winner, every "auto" resolved (configs/ds_config_writer.h); only
//                      when a variant fits
//
// results.json: {"format": "zerosim.sweep/1", "command": "sweep" | "tune",
//   "base": {"config", "model", "cluster", "gpu", "world_size", "gpu_memory_bytes", "seq_len",
//            "headroom"},
//   "varied": [{"key", "values": [...]}, ...],
//   "rows": [{"id", "values": {KEY: VALUE, ...}, "status": "ok" | "invalid", "error" (invalid
//             only), "feasible", "baseline", "result" (ok only: `simulate --json`'s object)}],
//   "ranking": [feasible row ids, best first], "pareto": [row ids, by peak memory ascending],
//   "best": row id | null, "why": ["...", ...],
//   "best_timeline": [{"stream", "op", "name", "start_s", "end_s"}, ...]}
// Rows are written one per line. The same outcome gives byte-identical files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json_reader.h"
#include "common/status.h"
#include "common/units.h"
#include "configs/ds_config_writer.h"
#include "sim/simulate.h"
#include "sim/sweep.h"

namespace zs::reports {

struct SweepInfo {
  std::string command;      // "sweep" or "tune"
  std::string config_path;  // as given
  std::string model;
  std::string cluster;  // one line (sim::cluster_facts(...).description)
  std::string gpu;      // the GPU preset name
  std::int64_t world_size = 0;
  Bytes gpu_memory_bytes = 0;
  std::int64_t seq_len = 0;
  double headroom = 0.05;
};

// `best` is the winner simulated with op names (VariantRunner::simulate_named), or null.
std::string render_sweep_json(const SweepInfo& info, const sim::SweepOutcome& out,
                              const sim::SimulationResult* best);
std::string render_sweep_csv(const sim::SweepOutcome& out, double headroom);

// The winner's predicted step: per op, its stream, id, name and simulated start and end (the
// first repetition of each segment), in op order.
json::Json render_timeline_json(const sim::SimulationResult& r);

struct WrittenFiles {
  std::vector<std::string> paths;  // in the order written
  // What best_ds_config.json keeps as "auto", and why (configs::ResolvedConfig::kept).
  std::vector<configs::KeptAuto> kept_autos;
};

// Creates `dir` when needed and writes the files, each through a temporary file and a rename.
// A stale best_ds_config.json is removed when no variant fits. kIoError naming the path.
Result<WrittenFiles> write_sweep_outputs(const std::string& dir, const SweepInfo& info,
                                         const sim::SweepOutcome& out,
                                         const sim::SimulationResult* best);

}  // namespace zs::reports
