// `zerosim calibrate [--backend cpu] [-o PROFILE] [--cluster-out CLUSTER] [--repeats N]`:
// measures this machine with the executor's own kernels and collectives (calibrate/) and writes
// the cost profile `simulate --profile` reads, stamped with the machine, date, commit and
// command, and, for the CPU backend, a cluster file describing this machine's cores as CPU
// devices (`--cluster`). Under mpirun (-np N) every rank runs every benchmark at once and the
// collectives are timed over the N ranks; the cluster file then has N ranks. A progress line per
// benchmark goes to stderr. `--backend cuda` is refused for now, saying so.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace zs::cli {

std::function<int()> add_calibrate_command(CLI::App& app);

}  // namespace zs::cli
