// The host work of a Plan, in the units real DeepSpeed spends it: ATen calls that reach the
// dispatcher (those that run a kernel on the device and those that do not: views, allocations,
// scalar reads), nn.Module calls, DeepSpeed's Python calls per kind, host-device syncs, per
// phase of the step as DeepSpeed's engine calls them (forward, backward, step).
//
// The model's calls come from models/eager_dispatch.h per model op of each compute op (a
// recomputed block calls as its forward does); DeepSpeed's from its calls per kind of
// plan::HostTask (task_dispatch below), which the schedules place where DeepSpeed's code makes
// them; syncs from the Plan's sync ops (their rounds) and host waits. Collectives are the Plan's
// CollectiveWork ops and are counted apart. tests/plan/host_ops_test.cc holds the counts against
// real DeepSpeed's (scripts/record_host_ops.py, tests/plan/oracle/host_ops/); the simulator
// prices the same counts (sim/cost_model.h).
#pragma once

#include <array>
#include <cstdint>

#include "plan/model_graph.h"
#include "plan/plan.h"

namespace zs::plan {

// DeepSpeed's ATen calls in one call of a task: kernels (copies included) and the rest.
struct TaskDispatch {
  int kernels = 0;
  int other = 0;
};
TaskDispatch task_dispatch(HostTask task);

struct HostOps {
  std::int64_t kernels = 0;  // ATen calls that run a kernel (model and DeepSpeed)
  std::int64_t other = 0;    // ATen calls that run none
  std::int64_t modules = 0;  // nn.Module calls
  std::int64_t syncs = 0;    // host-device round trips the code always makes (sync rounds)
  // Event waits that stop the host only when the GPU lags (stage 3's fetch and reduce
  // throttles: an event the host has queried and found pending; Op::host_wait_for).
  std::int64_t waits = 0;
  std::int64_t collectives = 0;
  std::array<std::int64_t, kHostTaskCount> tasks{};  // DeepSpeed's calls per kind
  std::int64_t calls() const { return kernels + other; }
  HostOps& operator+=(const HostOps& o);
};

enum class HostPhase { kForward, kBackward, kStep };
inline constexpr int kHostPhaseCount = 3;
// engine.forward: Phase::kForward; engine.backward: the backward and the reductions its hooks
// and epilogue issue; engine.step: the optimizer step and what follows it.
HostPhase host_phase(Phase p);

// The host work before (and of) op `id`, once: its model calls (a compute op), DeepSpeed's calls
// (its host_calls), its syncs and collective. REQUIRES: graph is the plan's model graph.
HostOps op_host_ops(const Plan& plan, int id, const ModelGraph& graph);

// Per phase over the whole step, a repeated segment counted as often as it runs.
std::array<HostOps, kHostPhaseCount> host_ops_by_phase(const Plan& plan, const ModelGraph& graph);

}  // namespace zs::plan
