// `zerosim simulate CONFIG --model M <cluster>`: memory (and, later, step time) of one step.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace zs::cli {

// Adds the `simulate` subcommand; the callback runs it and returns the exit code: 0 when it
// ran (a predicted OOM is a result, not an error), 1 for bad input.
std::function<int()> add_simulate_command(CLI::App& app);

}  // namespace zs::cli
