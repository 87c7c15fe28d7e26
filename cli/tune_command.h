// `zerosim tune CONFIG --model M <cluster> [--budget N] [--out DIR] [--jobs J]
// [--global-batch N] [--headroom F]`: search the config's settings for the fastest that fits
// (tuning/tune.h) and write the same files as sweep.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace zs::cli {

// Adds the `tune` subcommand; the callback runs it and returns the exit code: 0 when the
// results were written, 1 for bad input.
std::function<int()> add_tune_command(CLI::App& app);

}  // namespace zs::cli
