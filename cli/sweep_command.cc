#include "cli/sweep_command.h"

#include <memory>
#include <optional>

#include "cli/exit_codes.h"
#include "cli/flags.h"
#include "cli/progress.h"
#include "cli/sweep_options.h"
#include "common/interrupt.h"
#include "exec/communicator.h"
#include "exec/launch.h"
#include "tuning/sweep_space.h"

namespace zs::cli {
namespace {

struct Flags {
  SweepFlags sweep;
  std::vector<std::string> vary;
  std::string collective_timeout = "600";
};

// A batch key the flags already set: simulate's --micro-batch and --grad-accum replace the
// file's values, and --global-batch sets gradient accumulation, so varying the key in the file
// would change nothing.
Status flag_conflict(const Flags& f, const tuning::Axis& axis, bool global_batch) {
  const std::string path =
      axis.shorthand == tuning::Shorthand::kNone ? json::path_of(axis.path) : "";
  if (path == "train_micro_batch_size_per_gpu" && !f.sweep.common.micro_batch.empty()) {
    return Status::invalid_argument("--vary " + axis.key +
                                    ": --micro-batch replaces it in every variant; vary "
                                    "micro_batch instead, or drop --micro-batch");
  }
  const bool accum =
      axis.shorthand == tuning::Shorthand::kGradAccum || path == "gradient_accumulation_steps";
  if (accum && global_batch) {
    return Status::invalid_argument(
        "--vary " + axis.key + ": --global-batch sets gradient accumulation; drop one of them");
  }
  if (path == "gradient_accumulation_steps" && !f.sweep.common.grad_accum.empty()) {
    return Status::invalid_argument("--vary " + axis.key +
                                    ": --grad-accum replaces it in every variant; vary grad_accum "
                                    "instead, or drop --grad-accum");
  }
  return Status::ok();
}

int run_sweep_command(const Flags& f) {
  // Under a launcher (mpirun -np N zerosim sweep ..., srun), N processes share the sweep: each
  // simulates its share of every batch and rank 0 gathers the rows and writes the files
  // (tuning::SweepSetup::shard); without one, this process alone.
  auto timeout = parse_int_flag("--collective-timeout", f.collective_timeout, 1, 86'400);
  if (!timeout.ok()) return fail(timeout.status());
  // MPI starts threads of its own, which must block the signals that the sweep's open files
  // hold back (common/interrupt.h): else mpirun's SIGTERM, when a rank dies, would end rank 0
  // through one of them before it removed its staging directory. Held until this returns.
  std::optional<InterruptGuard> hold_signals;
  std::unique_ptr<exec::RankGroup> group;
  if (exec::launched_world_size() > 1) {
    hold_signals.emplace();
    auto g = exec::RankGroup::start(static_cast<double>(*timeout));
    if (!g.ok()) return fail(g.status().with_context("sweep"));
    group = std::move(*g);
  }
  const int rank = group ? group->rank() : 0;
  // A rank that fails says which it is and ends the job: the others may wait for it in a
  // collective. Rank 0 drops its open files first (`drop`: the old ones stay as they were).
  const auto failed = [&](const Status& s, const std::function<void()>& drop = {}) -> int {
    if (!group || group->size() == 1) return fail(s);
    if (drop) drop();
    fail(s.with_context("rank " + std::to_string(rank) + " of " + std::to_string(group->size())));
    group->abort(1);
  };
  std::vector<std::string> assumed;
  auto setup = read_sweep_setup(f.sweep, &assumed);
  if (!setup.ok()) return failed(setup.status());
  for (const std::string& spec : f.vary) {
    auto axis = tuning::parse_vary(spec);
    if (!axis.ok()) return failed(axis.status());
    const Status conflict = flag_conflict(f, *axis, setup->global_batch.has_value());
    if (!conflict.is_ok()) return failed(conflict);
    setup->axes.push_back(std::move(*axis));
  }
  const Status axes_ok =
      tuning::check_axes(setup->axes, *setup->base.config_document, setup->base.check.version);
  if (!axes_ok.is_ok()) return failed(axes_ok);
  const Status count_ok = tuning::check_variant_count(setup->axes);
  if (!count_ok.is_ok()) return failed(count_ok);
  if (group && group->size() > 1) {
    exec::Communicator* comm = group->communicator();
    setup->shard.rank = rank;
    setup->shard.ranks = group->size();
    setup->shard.gather = [comm](const std::string& mine) {
      return exec::all_gather_bytes(*comm, mine);
    };
  }
  if (rank != 0) {
    auto out = tuning::run_sweep(*setup);
    if (!out.ok()) return failed(out.status());
    return out->stopped ? kExitBadInput : kExitOk;  // rank 0 says why it stopped
  }
  reports::SweepInfo info = sweep_info(f.sweep, *setup, "sweep");
  info.assumed = assumed;
  auto writer = open_outputs(f.sweep, info, setup->axes, &*setup);
  if (!writer.ok()) return failed(writer.status());
  ProgressBar bar("sweep", f.sweep.progress || stderr_is_terminal());
  setup->progress = [&bar](std::int64_t done, std::int64_t total) { bar.update(done, total); };
  auto out = tuning::run_sweep(*setup);
  if (!out.ok()) return failed(out.status(), [&writer] { writer->reset(); });
  return finish_and_summarize(info, **writer, *out);
}

}  // namespace

std::function<int()> add_sweep_command(CLI::App& app) {
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Simulate every combination of the varied settings of a DeepSpeed config and rank "
      "them by throughput among those that fit");
  document_exit_codes(cmd);
  add_sweep_flags(cmd, &flags->sweep);
  cmd->add_option("--vary", flags->vary,
                  "KEY=V1,V2,... (repeatable): KEY a config path (zero_optimization."
                  "reduce_bucket_size) or stage, micro_batch, grad_accum, offload "
                  "(none|optimizer|optimizer+param), overlap_comm, checkpointing, precision; "
                  "values JSON or ranges A..B:x2, A..B:+1")
      ->required()
      ->allow_extra_args(false);
  cmd->add_option("--collective-timeout", flags->collective_timeout,
                  "under mpirun or srun (several processes share the sweep): seconds rank 0 "
                  "waits for another rank's rows before the sweep ends with an error naming it "
                  "(default 600)");
  return [flags] { return run_sweep_command(*flags); };
}

}  // namespace zs::cli
