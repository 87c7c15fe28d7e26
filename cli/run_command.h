// `zerosim run CONFIG --model M [--steps N] [--backend cpu|cuda] [--seq-len S] [--data FILE]
//  [--seed N] [--json]`: trains the model with the config for real on one rank, by executing
// the same Plan `simulate` predicts (exec/executor.h), and prints measured loss, step time,
// tokens/s and TFLOP/s per step next to the prediction.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace zs::cli {

std::function<int()> add_run_command(CLI::App& app);

}  // namespace zs::cli
