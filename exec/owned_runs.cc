#include "exec/owned_runs.h"

#include <algorithm>
#include <utility>

#include "common/check.h"
#include "exec/model_runner.h"
#include "plan/partition.h"

namespace zs::exec {

std::vector<OwnedRun> owned_runs(const plan::Layout& l, int rank) {
  std::int64_t numel = 0;
  const std::vector<std::int64_t> offsets = ModelRunner::param_offsets(l.params(), &numel);
  std::vector<OwnedRun> out;
  for (const plan::PartitionRun& r : plan::rank_partition(l, rank)) {
    const std::int64_t flat = offsets[static_cast<std::size_t>(r.param)] + r.begin;
    const std::int64_t n = r.end - r.begin;
    if (!out.empty() && out.back().first_elem + out.back().n == r.first_elem &&
        out.back().flat + out.back().n == flat) {
      out.back().n += n;
    } else {
      out.push_back({r.first_elem, flat, n});
    }
  }
  return out;
}

std::int64_t owned_elements(const std::vector<OwnedRun>& runs) {
  std::int64_t n = 0;
  for (const OwnedRun& r : runs) n += r.n;
  return n;
}

PartitionStore::PartitionStore(std::vector<OwnedRun> owned) : runs_(std::move(owned)) {
  std::sort(runs_.begin(), runs_.end(),
            [](const OwnedRun& a, const OwnedRun& b) { return a.flat < b.flat; });
  for (OwnedRun& r : runs_) {
    r.first_elem = size_;
    size_ += r.n;
  }
}

std::int64_t PartitionStore::index(std::int64_t offset, std::int64_t n) const {
  auto it = std::upper_bound(runs_.begin(), runs_.end(), offset,
                             [](std::int64_t x, const OwnedRun& r) { return x < r.flat; });
  ZS_CHECK(it != runs_.begin());
  --it;
  ZS_CHECK(n >= 1 && offset + n <= it->flat + it->n);
  return it->first_elem + offset - it->flat;
}

}  // namespace zs::exec
