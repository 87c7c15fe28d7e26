// Which model elements one rank's ZeRO partition holds, in the order of its flat fp32 master
// weights and optimizer states: what OptimizerWork::first_elem counts in, and which gradient
// elements a rank keeps after a reduction (plan.h CollectiveRole::kGradients).
//
// - Stage 0: every parameter, whole, in registration order (each rank holds all of them).
// - Stage 1/2: elements [rank * P, (rank + 1) * P) of the flat group (Layout::flat_offset's
//   order, padded to N * P; stage_1_and_2.py get_data_parallel_partitions). The padding holds no
//   parameter and has no run.
// - Stage 3: each real parameter's piece `rank`, elements [rank * k, min((rank + 1) * k, numel))
//   with k = Layout::partition_elems, at consecutive offsets of k each (partition_parameters.py
//   ds_tensor; stage3.py flattens the padded partitions into fp32_partitioned_groups_flat).
#pragma once

#include <cstdint>
#include <vector>

#include "plan/layout.h"

namespace zs::plan {

// Master-weight elements [first_elem, first_elem + (end - begin)) are elements [begin, end) of
// parameter `param`, flattened.
struct PartitionRun {
  std::int64_t first_elem = 0;
  int param = 0;
  std::int64_t begin = 0;
  std::int64_t end = 0;
};

// Rank `rank`'s partition as runs in first_elem order, none empty.
// REQUIRES: 0 <= rank < l.world.
std::vector<PartitionRun> rank_partition(const Layout& l, int rank);

}  // namespace zs::plan
