// Fit advice: when a config is predicted out of memory (GPU or host), the changes a user makes
// first, simulated, so that the advice names the cheapest change that fits and what it costs.
//
// The changes: activation checkpointing on, a smaller micro-batch (the global batch kept, so
// gradient accumulation grows), a higher ZeRO stage, and CPU offload (of the optimizer; with the
// parameters at stage 3; or less offload when the host is what runs out). Only changes that apply
// are tried: nothing already on, no parameter offload below stage 3, no offload at stage 0.
// Every combination of them is replayed for memory; those that fit are simulated in full and
// ranked by tokens/s read with the prediction's band (tuning/ranking.h choose_winner): of the
// changes the band cannot tell apart, the one with fewest changed knobs comes first.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "tuning/sweep.h"

namespace zs::tuning {

struct FitChange {
  // What to change, as a user would write it: "activation checkpointing on, micro-batch 4
  // (gradient accumulation 16)".
  std::string text;
  // The knobs it changes, each "axis=value" (stage=3, offload=optimizer, micro_batch=4,
  // checkpointing=true), in that order.
  std::vector<std::string> changes;
  SweepRow row;  // its simulation; row.metrics holds the peak, band and tokens/s
};

struct FitAdvice {
  std::vector<FitChange> changes;  // best first: the first is the cheapest that fits
  std::int64_t tried = 0;          // combinations replayed for memory
  std::int64_t fitting = 0;        // of those, the ones that fit
};

// Up to `count` fitting changes of setup.base, each a different set of knobs (the best of its
// set), best first. setup.axes is ignored; setup.global_batch defaults to the config's
// train_batch_size. Empty when the config as given fits or nothing in the space does.
// kInvalidArgument when the config as given cannot be simulated.
Result<FitAdvice> changes_that_fit(SweepSetup setup, int count);

}  // namespace zs::tuning
