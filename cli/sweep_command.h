// `zerosim sweep CONFIG --model M <cluster> --vary KEY=V1,V2,... [--vary ...] [--out DIR]
// [--jobs J] [--global-batch N] [--headroom F]`: simulate every combination of the varied
// settings (tuning/sweep.h) and write results.json, results.csv and best_ds_config.json.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace zs::cli {

// Adds the `sweep` subcommand; the callback runs it and returns the exit code: 0 when the
// results were written (with or without a feasible variant), 1 for bad input.
std::function<int()> add_sweep_command(CLI::App& app);

}  // namespace zs::cli
