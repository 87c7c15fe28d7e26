#include "cli/sweep_command.h"

#include <memory>

#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "cli/sweep_options.h"
#include "tuning/sweep_space.h"

namespace zs::cli {
namespace {

struct Flags {
  SweepFlags sweep;
  std::vector<std::string> vary;
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
  std::vector<std::string> assumed;
  auto setup = read_sweep_setup(f.sweep, &assumed);
  if (!setup.ok()) return fail(setup.status());
  for (const std::string& spec : f.vary) {
    auto axis = tuning::parse_vary(spec);
    if (!axis.ok()) return fail(axis.status());
    const Status conflict = flag_conflict(f, *axis, setup->global_batch.has_value());
    if (!conflict.is_ok()) return fail(conflict);
    setup->axes.push_back(std::move(*axis));
  }
  const Status axes_ok =
      tuning::check_axes(setup->axes, *setup->base.config_document, setup->base.check.version);
  if (!axes_ok.is_ok()) return fail(axes_ok);
  const Status count_ok = tuning::check_variant_count(setup->axes);
  if (!count_ok.is_ok()) return fail(count_ok);
  reports::SweepInfo info = sweep_info(f.sweep, *setup, "sweep");
  info.assumed = assumed;
  auto writer = open_outputs(f.sweep, info, setup->axes, &*setup);
  if (!writer.ok()) return fail(writer.status());
  ProgressBar bar("sweep", f.sweep.progress || stderr_is_terminal());
  setup->progress = [&bar](std::int64_t done, std::int64_t total) { bar.update(done, total); };
  auto out = tuning::run_sweep(*setup);
  if (!out.ok()) return fail(out.status());
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
  return [flags] { return run_sweep_command(*flags); };
}

}  // namespace zs::cli
