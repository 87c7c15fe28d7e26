// Where one rank's ZeRO partition (plan/partition.h) lies in the model's flat arrays
// (ModelRunner order): runs of consecutive elements, in partition order, neighbours merged.
#pragma once

#include <cstdint>
#include <vector>

#include "plan/layout.h"

namespace zs::exec {

// Partition elements [first_elem, first_elem + n) are flat elements [flat, flat + n).
struct OwnedRun {
  std::int64_t first_elem = 0;
  std::int64_t flat = 0;
  std::int64_t n = 0;
};

// REQUIRES: 0 <= rank < l.world.
std::vector<OwnedRun> owned_runs(const plan::Layout& l, int rank);

// Elements in `runs`.
std::int64_t owned_elements(const std::vector<OwnedRun>& runs);

}  // namespace zs::exec
