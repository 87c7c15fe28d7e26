// The files `zerosim sweep` and `zerosim tune` write into their output directory:
//   results.json       format "zerosim.sweep/1" (below), read by `zerosim report`
//   results.csv        one header line, then one line per row
//   best_ds_config.json  the winner, "auto" kept for the HF Trainer (configs/ds_config_writer.h);
//                      only when a variant fits
//
// results.json: {"format": "zerosim.sweep/1", "command": "sweep" | "tune",
//   "base": {"config", "model", "cluster", "gpu", "world_size", "gpu_memory_bytes", "seq_len",
//            "headroom", "assumed": ["...", ...]},
//   "rows": [{"id", "values": {KEY: VALUE, ...}, "status": "ok" | "invalid", "error" (invalid
//             only), "feasible", "baseline", "result" (ok only: `simulate --json`'s object)}],
//   "varied": [{"key", "values": [...]}, ...] (after the rows: a tune learns its values as it
//   goes), "ranking": [feasible row ids, best first],
//   "pareto": [row ids, by peak memory ascending], "best": row id | null,
//   "winner": {"fastest": row id, "band": fraction, "tied": [row ids within the band of the
//             fastest, ranked; empty when none], "changes": values best changes} | null,
//   "best_config": the object best_ds_config.json holds | null,
//   "trainer_args": the HF Trainer flags it needs, as argv words ["--bf16", ...] | null,
//   "best_config_needs": what stops it from training with them (empty: ready) | null,
//   "why": ["...", ...],
//   "best_timeline": [{"stream", "op", "name", "start_s", "end_s"}, ...],
//   "best_folds": [{"segment", "start_s", "end_s", "period_s", "repeat"}, ...]}
// Rows are written one per line. The same outcome gives byte-identical files.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/json_reader.h"
#include "common/output_file.h"
#include "common/status.h"
#include "common/units.h"
#include "configs/ds_config_writer.h"
#include "sim/simulate.h"
#include "tuning/sweep.h"

namespace zs::reports {

struct SweepInfo {
  std::string command;      // "sweep" or "tune"
  std::string config_path;  // as given
  std::string model;
  std::string cluster;  // one line (plan::cluster_facts(...).description)
  std::string gpu;      // the GPU preset name
  std::int64_t world_size = 0;
  Bytes gpu_memory_bytes = 0;
  std::int64_t seq_len = 0;
  double headroom = 0.05;
  std::string out_dir;  // where the files go (--out), for messages
  // What the sweep assumed where the flags left it open (cli assume_scenario), one sentence each.
  std::vector<std::string> assumed;
};

// The winner's predicted step: per op, its stream, id, name and simulated start and end (the
// first repetition of each segment), in op order.
json::Json render_timeline_json(const sim::SimulationResult& r);

// The repetitions render_timeline_json leaves out: per segment that repeats, {"segment",
// "start_s", "end_s", "period_s", "repeat"} (the copies after the first, which is drawn).
json::Json render_folds_json(const sim::SimulationResult& r);

struct WrittenFiles {
  std::vector<std::string> paths;  // in the order written
  // best_ds_config.json and its launch flags; none when no variant fits.
  std::optional<configs::TunedConfig> tuned;
};

// Writes the files of one sweep or tune as a set (common/output_file.h OutputSet): the rows
// stream into results.json and results.csv in a staging directory inside `dir` as the sweep
// produces them, so that no more than a row's rendering is held per row; finish() appends the
// ranking, the winner and its timeline, writes best_ds_config.json (only when a variant fits)
// and moves the set into place, removing a stale best_ds_config.json. Until then, and whenever
// something fails or an interrupt arrives (SIGINT, SIGTERM and SIGHUP are held from begin()),
// the files already in `dir` stay as they were, and abandoning the writer removes the staging
// directory (and `dir` when begin() created it).
// REQUIRES: one thread at a time (a sweep calls add_row serialized, in id order).
class SweepWriter {
 public:
  // kIoError / kInvalidArgument naming `dir` (common/output_file.h OutputSet::begin).
  // `axes`: the keys only are read (a tune learns its values as it goes).
  static Result<std::unique_ptr<SweepWriter>> begin(const std::string& dir, SweepInfo info,
                                                    const std::vector<tuning::Axis>& axes);

  // Appends a row. REQUIRES: rows arrive with ids 0, 1, 2, ...
  Status add_row(const tuning::SweepRow& r);
  // Whether an interrupt is pending; add_row then fails, and so would finish().
  bool interrupted() const { return set_->interrupted(); }
  // Bytes of results.json and results.csv written so far, and the rows among them.
  std::int64_t bytes_written() const { return bytes_; }
  int rows_written() const { return rows_; }

  // `out` holds every row added (its rows' renderings may be dropped); `best` is the winner
  // simulated with op names (VariantRunner::simulate_named), or null.
  Result<WrittenFiles> finish(const tuning::SweepOutcome& out, const sim::SimulationResult* best);

 private:
  SweepWriter(std::unique_ptr<OutputSet> set, SweepInfo info, OutputStream json, OutputStream csv,
              std::vector<std::string> keys);
  std::unique_ptr<OutputSet> set_;
  SweepInfo info_;
  OutputStream json_;
  OutputStream csv_;
  std::vector<std::string> keys_;  // the axes' keys
  int rows_ = 0;
  std::int64_t bytes_ = 0;
};

}  // namespace zs::reports
