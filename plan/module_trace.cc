#include "plan/module_trace.h"

namespace zs::plan {

std::vector<ModuleVisit> module_trace(const Layout& l) {
  const ModuleOrder& order = l.graph->modules;
  const int blocks = static_cast<int>(l.blocks().size());
  // Per block, the modules fetched before its compute in each pass: a parameter-free module
  // goes with the next parameter module's block, trailing ones with the pass's last block.
  auto per_block = [&](const std::vector<int>& modules) {
    std::vector<std::vector<int>> out(blocks);
    std::size_t pending = 0;
    int last = -1;
    for (std::size_t k = 0; k < modules.size(); ++k) {
      const int blk = order.modules[modules[k]].block;
      if (blk < 0) continue;
      for (; pending <= k; ++pending) out[blk].push_back(modules[pending]);
      last = blk;
    }
    for (; pending < modules.size() && last >= 0; ++pending) out[last].push_back(modules[pending]);
    return out;
  };
  const std::vector<std::vector<int>> fwd = per_block(order.forward);
  const std::vector<std::vector<int>> bwd = per_block(order.backward);
  std::vector<ModuleVisit> visits;
  for (int pos = 0; pos < static_cast<int>(l.trace.size()); ++pos) {
    const TraceEntry& e = l.trace[pos];
    for (int m : e.pass == Pass::kBackward ? bwd[e.block] : fwd[e.block]) {
      visits.push_back(ModuleVisit{m, pos});
    }
  }
  return visits;
}

}  // namespace zs::plan
