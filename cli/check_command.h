// `zerosim check CONFIG`: validate a ds_config and explain it (configs/check.h).
#pragma once

#include <CLI/CLI.hpp>

namespace zs::cli {

// Adds the `check` subcommand to `app`; the returned callback runs it and gives the exit code:
// 0 valid (warnings and lints allowed), 1 errors or bad input.
std::function<int()> add_check_command(CLI::App& app);

}  // namespace zs::cli
