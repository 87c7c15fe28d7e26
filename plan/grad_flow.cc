#include "plan/grad_flow.h"

#include <algorithm>

namespace zs::plan {

GradFlow make_grad_flow(const Layout& l) {
  const int n = static_cast<int>(l.blocks.size());
  GradFlow f;
  f.created.resize(n);
  f.completed.resize(n);
  f.largest.assign(n, 0);
  std::vector<int> first_block(l.params.size(), n), last_block(l.params.size(), -1);
  for (int b = 0; b < n; ++b) {
    for (int p : l.blocks[b].params) {
      first_block[p] = std::min(first_block[p], b);
      last_block[p] = std::max(last_block[p], b);
      f.largest[b] = std::max(f.largest[b], l.params[p].numel);
    }
  }
  for (int p : l.real_params) {
    if (last_block[p] >= 0) f.created[last_block[p]].push_back(p);
  }
  for (int p : l.grad_order) {
    if (first_block[p] < n) f.completed[first_block[p]].push_back(p);
  }
  return f;
}

}  // namespace zs::plan
