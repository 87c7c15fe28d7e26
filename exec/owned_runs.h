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

// A backend's storage of its partition (fp32 master weights, Adam states): the owned elements
// back to back in flat order, found by flat offset.
class PartitionStore {
 public:
  explicit PartitionStore(std::vector<OwnedRun> owned);
  // Elements stored.
  std::int64_t size() const { return size_; }
  // Where flat elements [offset, offset + n) are stored. REQUIRES: they lie in one owned run.
  std::int64_t index(std::int64_t offset, std::int64_t n) const;
  // The owned runs in flat order, first_elem being where each starts in the store.
  const std::vector<OwnedRun>& runs() const { return runs_; }

 private:
  std::vector<OwnedRun> runs_;
  std::int64_t size_ = 0;
};

}  // namespace zs::exec
