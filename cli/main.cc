// zerosim: predicts what a DeepSpeed config will do to a model on a cluster.
// Exit codes: 0 ok, 1 bad input (the message names the file, JSON path, value and what is
// allowed), 2 usage.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>

#include "cli/check_command.h"
#include "cli/report_command.h"
#include "cli/run_command.h"
#include "cli/simulate_command.h"
#include "cli/sweep_command.h"
#include "cli/tune_command.h"
#include "common/process.h"

int main(int argc, char** argv) {
  zs::keep_freed_memory();
  CLI::App app{"zerosim: predict what a DeepSpeed config does to a model on a cluster"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "zerosim 0.1.0");
  std::function<int()> check = zs::cli::add_check_command(app);
  std::function<int()> simulate = zs::cli::add_simulate_command(app);
  std::function<int()> run = zs::cli::add_run_command(app);
  std::function<int()> report = zs::cli::add_report_command(app);
  std::function<int()> sweep = zs::cli::add_sweep_command(app);
  std::function<int()> tune = zs::cli::add_tune_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  if (app.got_subcommand("check")) return check();
  if (app.got_subcommand("simulate")) return simulate();
  if (app.got_subcommand("run")) return run();
  if (app.got_subcommand("report")) return report();
  if (app.got_subcommand("sweep")) return sweep();
  if (app.got_subcommand("tune")) return tune();
  return 2;
}
