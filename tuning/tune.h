// Tune: searches a config's settings for the fastest that fits, without trying every
// combination.
//
// What it searches (the axes of its outcome): ZeRO stage, offload (none, optimizer,
// optimizer+param), micro-batch, activation checkpointing, overlap_comm, reduce_bucket_size and,
// at stage 3, stage3_prefetch_bucket_size and stage3_param_persistence_threshold. Precision is
// kept (it changes the numerics, not just the speed), and so is the global batch: the config's
// train_batch_size unless SweepSetup::global_batch says otherwise, so micro-batches are those
// whose micro-batch x world divides it.
//
// How:
//  1. Prune by memory: for each structure (stage, offload, checkpointing) the micro-batches are
//     tried in ascending order with memory only (plan + replay, no time simulation) and with the
//     settings that need least memory (overlap_comm off, the smallest buckets); the first that
//     does not fit ends that structure (memory grows with the micro-batch).
//  2. Structures: each surviving structure at its largest micro-batch that fits, simulated in
//     full; then the others' micro-batches and overlap_comm for the structures ranked best,
//     skipping those under half the best throughput (a dominated region).
//  3. Buckets: coordinate descent on the bucket sizes of the best points, by factors of 4 and
//     then 2 (successive refinement), moving while throughput rises and the point still fits.
// Every full simulation is a row; the baseline (the config as given) is row 0, so the winner is
// never slower than a baseline that fits.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "tuning/sweep.h"

namespace zs::tuning {

struct TuneOptions {
  std::int64_t budget = 2000;         // most full simulations (the baseline not counted)
  std::int64_t max_micro_batch = 64;  // largest micro-batch tried
  int refine_points = 3;              // points whose buckets are refined
};

// The axes of a tune's outcome, values empty (run_tune fills them with the values tried).
std::vector<Axis> tune_axes();

// setup.axes is ignored (tune defines its own). kInvalidArgument when the global batch is not
// known (no --global-batch and the config as given cannot be simulated) or not a multiple of the
// world size; the row sink's Status when it failed.
Result<SweepOutcome> run_tune(SweepSetup setup, const TuneOptions& options);

}  // namespace zs::tuning
