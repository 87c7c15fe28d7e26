// zerosim: predicts what a DeepSpeed config will do to a model on a cluster.
// Exit codes: 0 ok, 1 bad input (the message names the file, JSON path, value and what is
// allowed), 2 usage.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string_view>

#include "cli/calibrate_command.h"
#include "cli/check_command.h"
#include "cli/option_types.h"
#include "cli/options.h"
#include "cli/report_command.h"
#include "cli/run_command.h"
#include "cli/simulate_command.h"
#include "cli/sweep_command.h"
#include "cli/tune_command.h"
#include "common/process.h"

namespace {

// What reached stdout must have been written: a full disk or a closed pipe (`> /dev/full`) is a
// failure the exit code says, not a silent loss.
int finish(int code) {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    const int err = errno;
    std::fprintf(stderr, "zerosim: error[file]: writing to standard output failed%s%s\n",
                 err != 0 ? ": " : "", err != 0 ? std::strerror(err) : "");
    return code == 0 ? 1 : code;
  }
  return code;
}

}  // namespace

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
  std::function<int()> calibrate = zs::cli::add_calibrate_command(app);
  std::function<int()> validate = zs::cli::add_validate_command(app);
  zs::cli::name_option_types(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return finish(app.exit(e));
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    // A script that asked for --json gets the usage error as JSON too.
    for (int i = 1; i < argc; ++i) {
      if (std::string_view(argv[i]) == "--json") {
        zs::cli::print(zs::cli::error_json("usage", e.what(), 2));
        break;
      }
    }
    return finish(2);
  }
  int code = 2;
  if (app.got_subcommand("check")) code = check();
  if (app.got_subcommand("simulate")) code = simulate();
  if (app.got_subcommand("run")) code = run();
  if (app.got_subcommand("report")) code = report();
  if (app.got_subcommand("sweep")) code = sweep();
  if (app.got_subcommand("tune")) code = tune();
  if (app.got_subcommand("calibrate")) code = calibrate();
  if (app.got_subcommand("validate")) code = validate();
  return finish(code);
}
