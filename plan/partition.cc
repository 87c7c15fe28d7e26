#include "plan/partition.h"

#include <algorithm>

#include "common/check.h"

namespace zs::plan {

std::vector<PartitionRun> rank_partition(const Layout& l, int rank) {
  ZS_CHECK(rank >= 0 && rank < l.world);
  std::vector<PartitionRun> runs;
  const std::vector<models::ParamTensor>& params = l.params();
  if (l.stage == 0) {
    std::int64_t at = 0;
    for (int p : l.real_params()) {
      const std::int64_t n = params[p].numel;
      if (n > 0) runs.push_back({at, p, 0, n});
      at += n;
    }
  } else if (l.stage <= 2) {
    const std::int64_t lo = rank * l.partition;
    const std::int64_t hi = lo + l.partition;
    for (int p : l.real_params()) {
      const std::int64_t off = l.flat_offset[p];
      const std::int64_t b = std::max(lo, off);
      const std::int64_t e = std::min(hi, off + params[p].numel);
      if (off >= 0 && b < e) runs.push_back({b - lo, p, b - off, e - off});
    }
    std::sort(runs.begin(), runs.end(), [](const PartitionRun& a, const PartitionRun& b) {
      return a.first_elem < b.first_elem;
    });
  } else {
    std::int64_t at = 0;
    for (int p : l.real_params()) {
      const std::int64_t k = l.partition_elems[p];
      const std::int64_t b = std::min(params[p].numel, rank * k);
      const std::int64_t e = std::min(params[p].numel, b + k);
      if (b < e) runs.push_back({at, p, b, e});
      at += k;
    }
  }
  return runs;
}

}  // namespace zs::plan
