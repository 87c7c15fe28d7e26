// The discrete-event engine: replays a Plan over time, given what each op costs.
//
// It is a plain interpreter of the Plan (plan/plan.h): it knows nothing of ZeRO. Events are
// ordered by (time in integer nanoseconds, sequence number), so equal times resolve in the order
// events were scheduled and a run is deterministic. At most one event is pending per stream, per
// link and for the host, so they sit in one slot each rather than in a heap (engine.cc).
//
// - The host issues ops in plan order: first it spends OpCost::host_before_s (framework work that
//   runs before the launch: the op cannot start earlier), then issuing op i takes OpCost::host_s
//   of host time, during which the op may run (it launches kernel by kernel). After an
//   op marked host_waits (and every op on the host stream) the host stops until it finishes.
//   Before an op with Op::host_wait_for >= 0 the host spends OpCost::host_wait_s on the
//   round trip and stops until that op has finished.
// - Each stream is a FIFO serial resource: an issued op starts when the op before it on its
//   stream has finished and its dependencies have; it cannot finish before the host has
//   finished issuing it (a compute op launches its kernels one by one).
// - An op runs for OpCost::fixed_s, then, if it moves data over a shared link, joins that link
//   as a flow of OpCost::link_amount. A link divides its capacity among its flows by max-min
//   fairness (each flow capped at OpCost::rate_cap) and re-divides whenever a flow starts or
//   ends: a PCIe link carrying an H2D and a D2H copy, or NCCL's bandwidth shared by an
//   all-gather and a reduce-scatter running on two streams.
// - Repeated segments (Segment::repeat > 1): when the GPU is idle both where a segment starts
//   and where its first repetition ends (DeepSpeed's ThroughputTimer synchronizes there by
//   default), every repetition takes the same time and the engine replays one and advances the
//   clock by the rest. Otherwise the host drains the device before each repetition (an
//   approximation the result reports in `drained_repeats`).
// - Ops marked skipped_on_overflow take no time, on the device or the host (no launch, no
//   DeepSpeed call, no sync), when `overflow` is set (an fp16 step whose loss scaler found
//   inf/NaN).
// - One representative rank is simulated: the data-parallel ranks are symmetric, and a
//   collective's cost already holds the other ranks' part (sim/collective_cost.h). A straggler,
//   which makes everyone wait at each collective, is a cost (sim/cost_model.h), not an engine
//   matter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "plan/plan.h"

namespace zs::sim {

struct OpCost {
  double host_before_s = 0;  // host work before the op can be issued (DeepSpeed's calls)
  double host_s = 0;         // host time to issue the op (its launches, overlapping its run)
  double host_wait_s = 0;    // host time of the synchronize before it (Op::host_wait_for)
  double fixed_s = 0;        // time on its stream before (or without) a flow
  int link = -1;             // the shared link its flow uses, or -1
  double link_amount = 0;    // units of the link's capacity (bytes, or seconds for NCCL)
  double rate_cap = 0;       // the most the flow can take per second (0: the link's capacity)
};

struct Link {
  std::string name;
  double capacity = 0;  // per second, in the unit of link_amount
};

struct EngineOptions {
  bool overflow = false;
  // The host runs every op itself, one at a time in issue order, as zerosim's CPU execution
  // backend does (no device whose streams overlap the host or each other): an op starts once
  // the host has issued it (its host_s spent) and the host waits for it to end, so a step is
  // the sum of the ops' host_s, fixed_s and flow times.
  bool serial = false;
  bool record = false;              // keep per-op times and flows (traces), and transitions
  bool record_transitions = false;  // keep the transition log (breakdowns) without op times
};

struct OpTime {
  std::int64_t wait_ns = -1;  // when the host began its Op::host_wait_for wait; -1: none
  std::int64_t issue_ns = -1;
  std::int64_t start_ns = -1;
  std::int64_t flow_start_ns = -1;  // -1: no flow
  std::int64_t end_ns = -1;
};

// An op starting (+1) or ending (-1) on its stream. With EngineOptions::record or
// record_transitions the engine logs
// them as they happen, so the log is in nondecreasing time order: a sweep over it needs no sort.
struct Transition {
  std::int64_t t_ns = 0;
  int op = 0;
  int delta = 0;
};

// One segment's first repetition as simulated; the others are copies shifted by period_ns.
struct SegmentTime {
  std::int64_t start_ns = 0;
  std::int64_t period_ns = 0;  // the duration of one repetition
  int repeat = 1;
};

struct EngineResult {
  std::int64_t step_ns = 0;
  std::vector<OpTime> ops;              // when EngineOptions::record: the first repetition's times
  std::vector<Transition> transitions;  // with record or record_transitions, in time order
  std::vector<SegmentTime> segments;    // one per plan segment, in order
  int drained_repeats = 0;              // repetitions that needed an implicit drain
  // Time model-compute ops (plan::ComputeWork) ran past their own duration because the host
  // had not finished issuing them (launching their kernels, running the hooks before them):
  // the GPU waiting for the host inside an op. Repetitions counted.
  std::int64_t compute_host_bound_ns = 0;
};

// Times past this are not simulated: an op's duration saturates at kMaxDurationNs, and a run
// whose clock would pass kHorizonNs (about 73 years) stops with an error, so that no rate, however
// small, overflows the clock or keeps the engine running.
inline constexpr std::int64_t kHorizonNs = std::int64_t{1} << 61;
inline constexpr std::int64_t kMaxDurationNs = std::int64_t{1} << 61;

// REQUIRES: costs.size() == plan.ops.size(); every OpCost::link < links.size(); plan valid.
// kInvalidArgument when a cost is negative or NaN, a link has no capacity, or the step would
// run past kHorizonNs (rates far too small for the work).
Result<EngineResult> run_engine(const plan::Plan& plan, const std::vector<OpCost>& costs,
                                const std::vector<Link>& links, const EngineOptions& options);

}  // namespace zs::sim
