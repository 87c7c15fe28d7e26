// `zerosim run CONFIG --model M [--steps N] [--backend cpu|cuda] [--seq-len S] [--data FILE]
//  [--seed N] [--json]`: trains the model with the config for real on one rank, by executing
// the same Plan `simulate` predicts (exec/executor.h), on the CPU or on the current CUDA device,
// and prints measured loss, step time, tokens/s and TFLOP/s per step next to the prediction;
// with CUDA also the device's peak memory (the caching allocator's allocated and reserved
// peaks). `--backend cuda` without CUDA in the build or without a device exits 1 saying which.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace zs::cli {

std::function<int()> add_run_command(CLI::App& app);

// `zerosim validate CONFIG --model M [--profile P] [--cluster C] [--steps N] [--warmup W]
//  [-o DIR] [--name NAME] [--tolerance T] [--json]`: `run` with the comparison of
// cli/validation.h; writes DIR/NAME.json (the `run --json` object with "validation", which
// `zerosim report` reads from a sweep's validation/ folder) and prints the comparison and a
// verdict. Exit 0 whatever the verdict says: it is a measurement, not a test.
std::function<int()> add_validate_command(CLI::App& app);

}  // namespace zs::cli
