// Internal to plan/: one micro-step's stage-3 module fetches (plan/module_order.h) laid on the
// Plan's trace of block computations.
#pragma once

#include <vector>

#include "plan/layout.h"

namespace zs::plan {

struct ModuleVisit {
  int module = 0;     // index in ModuleOrder::modules (l.graph->modules)
  int trace_pos = 0;  // the Layout::trace entry whose compute it precedes
};

// The fetches of one micro-step for `l.trace`, in order (recomputed blocks fetch their modules
// again, as forward). Each visit is tied to the trace entry whose compute runs next: a parameter
// module to its block's entry, a parameter-free module to the next parameter module's.
std::vector<ModuleVisit> module_trace(const Layout& l);

}  // namespace zs::plan
