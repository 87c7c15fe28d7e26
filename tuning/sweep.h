// Sweep: simulates many variants of one config on one model and cluster, on a thread pool.
//
// Each variant edits the config in memory (sweep_space.h) and is checked and simulated on its
// own; a variant that cannot be simulated (an invalid combination, a micro-batch that does not
// divide the global batch) becomes a row with its reason, never an error of the sweep. What does
// not change between variants is shared: the parsed config, and per workload (micro-batch and
// precision, the only workload terms a sweep changes) the model graph and its kernels' pricing
// (SimulationRequest::graph, ::priced_model). Results do not depend on the number of jobs: each
// row is computed alone, and a shared graph or pricing gives the same numbers as a fresh one.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "sim/simulate.h"
#include "tuning/ranking.h"
#include "tuning/sweep_row.h"
#include "tuning/sweep_space.h"

namespace zs::tuning {

struct SweepSetup {
  // Model, cluster, sequence length, check flags, profile; config_document must be set (the
  // user's config as parsed), config_path names it.
  sim::SimulationRequest base;
  std::vector<Axis> axes;
  // Samples per optimizer step, all ranks: each variant's gradient accumulation becomes
  // global_batch / (micro-batch x world), and a variant whose micro-batch x world does not
  // divide it is an invalid row.
  std::optional<std::int64_t> global_batch;
  double headroom = 0.05;  // feasible: peak <= capacity x (1 - headroom)
  int jobs = 1;
  // Renders a simulated row's result (e.g. reports::render_simulation_json); called on worker
  // threads, so it must not touch shared state. Unset: rows carry no rendering.
  std::function<std::string(const sim::SimulationResult&, const sim::SimulationRequest&)> render;
  // Called after each variant, serialized, with the variants done and the total expected.
  std::function<void(std::int64_t done, std::int64_t total)> progress;
  // Receives every output row (the rows of SweepOutcome::rows, not the extra simulations that
  // explain the winner) once, in id order, serialized; the row's rendering is dropped after it
  // (the sink writes it out, so a million-row sweep does not hold a million renderings). A
  // non-OK Status (a full disk, an interrupt) stops the sweep: the variants not started are not
  // run, and run_sweep / run_tune return that Status. Unset: rows keep their renderings.
  std::function<Status(const SweepRow&)> row_sink;
  // Called early, for a warning about a long sweep: with how many output rows the sweep expects
  // and the wall seconds a row has taken so far on SweepSetup::jobs threads. run_sweep calls it
  // after the baseline and a first batch of 8 rows per thread (the baseline alone pays for
  // building and pricing the model); run_tune after the baseline, whose time is an upper bound.
  std::function<void(std::int64_t rows, double seconds_per_row)> on_start;

  // A sweep split across processes (mpirun -np N zerosim sweep): every rank runs run_sweep with
  // the same setup; each simulates every ranks-th variant of a batch on its `jobs` threads and
  // `gather` brings the batch's rows to rank 0 (tuning/sweep_wire.h), which alone calls
  // row_sink, progress and on_start, ranks the rows and explains the winner. Rows and files are
  // the same as one process's. The default is one process.
  struct Shard {
    int rank = 0;
    int ranks = 1;
    // Called by every rank once per batch with its rows' bytes; returns, on rank 0, every rank's
    // bytes in rank order, and on the others at least rank 0's (bytes[0]), which carry rank 0's
    // decision to stop. A non-OK Status (a rank that died, a timeout) ends the sweep on the rank
    // that saw it.
    std::function<Result<std::vector<std::string>>(const std::string& mine)> gather;
  };
  Shard shard;
};

// Runs variants of one setup. Thread-safe; the setup must outlive it.
class VariantRunner {
 public:
  explicit VariantRunner(const SweepSetup& setup);

  // One row per variant, ids first_id, first_id + 1, ... in order; row 0 is the baseline.
  // memory_only: the plan and its memory replay only (time metrics zero, nothing rendered).
  // output: these are output rows: count them for progress and pass them to
  // SweepSetup::row_sink. Once the sink has failed, the variants not yet started are rows
  // with the sink's message, not simulated.
  std::vector<SweepRow> run(std::span<const Variant> variants, int first_id,
                            bool memory_only = false, bool output = true);
  // The rows of variants[ids[k]] (ids ascending), as rows of a sharded sweep: not counted,
  // not passed to the sink.
  std::vector<SweepRow> run_ids(std::span<const Variant> variants, std::span<const int> ids);
  // OK, or the first failure of SweepSetup::row_sink.
  Status sink_status() const;
  // The variant simulated again with op names and per-op times (the winner's timeline and the
  // name of its peak op). A Status when it is not a valid variant.
  Result<sim::SimulationResult> simulate_named(const Variant& v);
  // The progress total reported to SweepSetup::progress.
  void set_progress_total(std::int64_t total) { total_ = total; }
  // Variants simulated in full (with time) and memory-only so far.
  std::int64_t full_runs() const { return full_runs_; }
  std::int64_t memory_runs() const { return memory_runs_; }

 private:
  struct Shared {
    std::shared_ptr<const plan::ModelGraph> graph;
    std::shared_ptr<const sim::PricedModel> priced;
  };
  using WorkloadKey = std::pair<std::int64_t, int>;  // micro-batch, precision

  SweepRow run_one(const Variant& v, int id, bool memory_only);
  // The request and checked config of a variant, or its reason to be invalid.
  struct Prepared;
  Result<Prepared> prepare(const Variant& v, bool names) const;
  Shared find_shared(const WorkloadKey& key);
  void store_shared(const WorkloadKey& key, const sim::SimulationResult& r);

  const SweepSetup& setup_;
  mutable std::mutex mu_;  // guards shared_, any_graph_ and progress calls
  std::map<WorkloadKey, Shared> shared_;
  std::shared_ptr<const plan::ModelGraph> any_graph_;  // for the model facts of a check
  std::atomic<std::int64_t> done_{0};
  std::atomic<std::int64_t> total_{0};
  std::atomic<std::int64_t> full_runs_{0};
  std::atomic<std::int64_t> memory_runs_{0};
  Status sink_status_;                // guarded by mu_
  std::atomic<bool> stopped_{false};  // sink_status_ is not OK
};

// The least a sweep holds per row once the row's rendering has gone to SweepSetup::row_sink (the
// row with its metrics, its axis values and its variant), for the warning before a long sweep.
// The allocator's fragmentation comes on top (reports/reliability.md measures it).
std::int64_t held_bytes_per_row(std::size_t axes);

// Calls fn(0) ... fn(n - 1) on up to `jobs` threads (the caller's included).
void parallel_for(std::size_t n, int jobs, const std::function<void(std::size_t)>& fn);

struct SweepOutcome {
  std::vector<Axis> axes;        // values: every value tried
  std::vector<SweepRow> rows;    // rows[0] is the baseline; rows[i].id == i
  std::vector<int> ranking;      // feasible row ids, best first
  std::vector<int> pareto;       // the front, by peak memory ascending
  std::optional<int> best;       // winner->best
  std::optional<Winner> winner;  // how `best` was chosen among the rows the band ties
  std::vector<std::string> why;  // a tie, then the winner against the baseline, term by term
  // The winner simulated again with op names and per-op times (its timeline, its peak op, its
  // checked config for best_ds_config.json); set when `best` is.
  std::optional<sim::SimulationResult> best_result;
  // False on the ranks other than 0 of a sharded sweep (SweepSetup::shard): they hold no rows
  // and write nothing; `stopped` when rank 0 stopped the sweep early (its sink failed: it says
  // why).
  bool root = true;
  bool stopped = false;
};

// Ranking, Pareto front, winner, its named simulation and "why" of rows already run (run_sweep
// and tune share it).
// `runner` simulates the single-term changes the explanation measures.
void rank_outcome(VariantRunner& runner, double headroom, SweepOutcome* out);

// The baseline (row 0, the config as given) and every combination of setup.axes.
// kInvalidArgument when the sweep has more than kMaxVariants variants; the sink's Status when
// it failed.
Result<SweepOutcome> run_sweep(const SweepSetup& setup);

}  // namespace zs::tuning
