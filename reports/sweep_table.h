// The results of `zerosim sweep` / `zerosim tune` read back for `zerosim report`: DIR/results.json
// (format "zerosim.sweep/1", written by reports/sweep_results.h) as typed rows.
//
// Only what a report shows is read from each row's result (the object `zerosim simulate --json`
// prints, reports/simulate_report.h); other keys are ignored, so newer writers stay readable.
// Every error names the file, line:column, the JSON path and what was expected.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "common/status.h"

namespace zs::reports {

inline constexpr const char* kSweepFormat = "zerosim.sweep/1";

// memory.gpu.breakdown: what holds the per-GPU peak, bytes.
struct MemoryBreakdown {
  std::int64_t params_bytes = 0;
  std::int64_t grads_bytes = 0;
  std::int64_t optimizer_states_bytes = 0;
  std::int64_t activations_bytes = 0;
  std::int64_t buffers_bytes = 0;
  std::int64_t other_bytes = 0;
};

// What a report uses of one simulate --json object.
struct VariantResult {
  int zero_stage = 0;
  std::int64_t micro_batch_per_gpu = 0;
  std::int64_t gradient_accumulation_steps = 0;
  std::int64_t peak_bytes = 0;      // memory.gpu.peak_bytes
  std::int64_t capacity_bytes = 0;  // memory.gpu.capacity_bytes
  bool oom = false;
  MemoryBreakdown breakdown;
  double step_s = 0;
  double compute_s = 0;
  double optimizer_s = 0;
  double exposed_comm_s = 0;
  double exposed_offload_s = 0;
  double other_s = 0;
  std::string bottleneck;  // time.bottleneck; empty when absent
  double samples_per_s = 0;
  double tokens_per_s = 0;
  double tflops_per_gpu = 0;
  double mfu = 0;  // a fraction
  // The uncertainty bands (sim/uncertainty.h): +- these fractions of the time figures and of
  // the memory figures; 0 in files written before zerosim recorded them.
  double time_band = 0;
  double memory_band = 0;
};

// One varied knob: its key as the sweep was given it and the values tried, in order.
struct Knob {
  std::string key;
  std::vector<json::Json> values;
};

struct SweepRow {
  int id = 0;
  // One value per knob of SweepTable::varied, in that order; null where the row has none.
  std::vector<json::Json> values;
  bool valid = false;  // status "ok"
  std::string error;   // why it is invalid
  bool feasible = false;
  bool baseline = false;
  std::optional<VariantResult> result;  // set exactly when valid
};

// best_timeline: one op of the winner's simulated step.
struct TimelineSpan {
  std::string stream;
  std::int64_t op = 0;
  std::string name;
  double start_s = 0;
  double end_s = 0;
};

// best_folds: repetitions of a segment of the winner's step (micro-steps that repeat the one
// drawn) that best_timeline does not list: they run from start_s to end_s, `repeat` copies of
// the period_s-long repetition that ends at start_s.
struct TimelineFold {
  std::string segment;  // the Plan's segment name, e.g. "micro_step.1-3"
  double start_s = 0;
  double end_s = 0;
  double period_s = 0;
  std::int64_t repeat = 0;
};

struct SweepBase {
  std::string config;
  std::string model;
  std::string cluster;
  std::string gpu;
  std::int64_t world_size = 0;
  std::int64_t gpu_memory_bytes = 0;
  std::int64_t seq_len = 0;
  double headroom = 0;  // a fraction of the GPU kept free
};

struct SweepTable {
  std::string source;   // the file it was read from, for messages
  std::string command;  // "sweep" or "tune"
  SweepBase base;
  std::vector<Knob> varied;
  std::vector<SweepRow> rows;  // in file order
  std::vector<int> ranking;    // row ids, best first
  std::vector<int> pareto;     // row ids, by peak memory ascending
  std::optional<int> best;
  std::vector<std::string> why;
  std::vector<TimelineSpan> best_timeline;
  std::vector<TimelineFold> best_folds;  // none in files written before zerosim recorded them
  // The winner's config as the sweep wrote it to best_ds_config.json; none in files written
  // before zerosim recorded it.
  std::optional<json::Json> best_config;
  // The HF Trainer flags it needs, as argv words, and what stops it from training with them
  // (empty: ready); none in files written before zerosim recorded them.
  std::optional<std::vector<std::string>> trainer_args;
  std::optional<std::vector<std::string>> best_config_needs;
  // The rows the band tied with the fastest (results.json winner.tied); empty when none.
  std::vector<int> tied;

  // The row with `id`, or nullptr.
  const SweepRow* row(int id) const;
  std::map<int, std::size_t> index_by_id;  // id -> position in rows
};

// Reads a parsed results.json. kInvalidArgument when "format" is not kSweepFormat, a key is
// missing or has the wrong type, an id repeats, or ranking/pareto/best name a row that does not
// exist or is invalid; the message lists the first errors, one per line, each
// "FILE:LINE:COL: error[code]: PATH: what was found and what is allowed".
Result<SweepTable> parse_sweep_table(const json::Document& doc);

// The largest results.json a report reads: about 2 KB a row, so over 100,000 rows.
inline constexpr std::int64_t kMaxResultsFileBytes = std::int64_t{256} << 20;

// Reads and parses the file at `path` (kNotFound, kIoError, kParseError as json::parse_file;
// kInvalidArgument past kMaxResultsFileBytes).
Result<SweepTable> load_sweep_table(const std::string& path);

// Reads the simulate --json object `obj` at JSON path `path` of `doc` (a row's "result", a
// validation file's "prediction"); missing keys and wrong types go to `diags`.
VariantResult read_variant_result(const json::Document& doc, const json::Json& obj,
                                  const std::string& path, Diagnostics* diags);

// A knob value for tables and tick labels: integers in full, other numbers in their shortest
// form, booleans as true/false, strings as they are, null as "-".
std::string knob_value_text(const json::Json& v);

}  // namespace zs::reports
