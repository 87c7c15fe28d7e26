#include "plan/module_trace.h"

namespace zs::plan {

std::vector<ModuleVisit> module_trace(const Layout& l) {
  const ModuleOrder& order = l.graph->modules;
  std::vector<ModuleVisit> visits;
  for (int pos = 0; pos < static_cast<int>(l.trace.size()); ++pos) {
    const TraceEntry& e = l.trace[pos];
    const auto& by_block =
        e.pass == Pass::kBackward ? order.backward_by_block : order.forward_by_block;
    for (int m : by_block[e.block]) visits.push_back(ModuleVisit{m, pos});
  }
  return visits;
}

}  // namespace zs::plan
