#include "cli/tune_command.h"

#include <memory>

#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "cli/sweep_options.h"
#include "tuning/tune.h"

namespace zs::cli {
namespace {

struct Flags {
  SweepFlags sweep;
  std::string budget;
  std::string max_micro_batch;
};

int run_tune_command(const Flags& f) {
  std::vector<std::string> assumed;
  auto setup = read_sweep_setup(f.sweep, &assumed);
  if (!setup.ok()) return fail(setup.status());
  tuning::TuneOptions options;
  if (!f.budget.empty()) {
    auto b = parse_int_flag("--budget", f.budget, 1, 1'000'000);
    if (!b.ok()) return fail(b.status());
    options.budget = *b;
  }
  if (!f.max_micro_batch.empty()) {
    auto m = parse_int_flag("--max-micro-batch", f.max_micro_batch, 1, 65536);
    if (!m.ok()) return fail(m.status());
    options.max_micro_batch = *m;
  }
  reports::SweepInfo info = sweep_info(f.sweep, *setup, "tune");
  info.assumed = assumed;
  auto writer = open_outputs(f.sweep, info, tuning::tune_axes(), &*setup);
  if (!writer.ok()) return fail(writer.status());
  ProgressBar bar("tune", f.sweep.progress || stderr_is_terminal());
  setup->progress = [&bar](std::int64_t done, std::int64_t total) { bar.update(done, total); };
  auto out = tuning::run_tune(*setup, options);
  if (!out.ok()) return fail(out.status());
  return finish_and_summarize(info, **writer, *out);
}

}  // namespace

std::function<int()> add_tune_command(CLI::App& app) {
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "tune",
      "Search a DeepSpeed config's settings (ZeRO stage, offload, micro-batch, "
      "checkpointing, overlap_comm, bucket sizes) for the fastest that fits, keeping the "
      "global batch");
  document_exit_codes(cmd);
  add_sweep_flags(cmd, &flags->sweep);
  cmd->add_option("--budget", flags->budget,
                  "most variants simulated in full (default 2000); memory-only checks are extra");
  cmd->add_option("--max-micro-batch", flags->max_micro_batch,
                  "largest micro-batch tried (default 64)");
  return [flags] { return run_tune_command(*flags); };
}

}  // namespace zs::cli
