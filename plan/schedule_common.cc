#include <algorithm>

#include "plan/schedules.h"

namespace zs::plan {

std::vector<MicroStepRun> micro_step_runs(const Layout& l, bool uniform) {
  const int g = l.micro_steps;
  std::vector<MicroStepRun> runs;
  auto add = [&](int first, int last) {
    runs.push_back(MicroStepRun{first, last, micro_step_label(first, last), last == g - 1});
  };
  if (uniform) {
    add(0, g - 1);
  } else {
    add(0, 0);
    if (g >= 3) add(1, g - 2);
    if (g >= 2) add(g - 1, g - 1);
  }
  return runs;
}

void begin_micro_steps(PlanBuilder& b, const MicroStepRun& run) {
  b.begin_segment("micro_step." + run.label.substr(2), run.last - run.first + 1);
  // engine.forward() wraps the model's forward, ZeRO-3's fetches included. Its prologue starts
  // the ThroughputTimer, which synchronizes the device (utils/timer.py start); the GPU is idle
  // there already (end_micro_steps), so it costs a round trip.
  b.host_calls_before_next(HostTask::kEngineForward, 1);
  if (b.layout().timer_sync) b.device_sync({run.label, ".timer_start"}, Phase::kForward);
}

void end_micro_steps(PlanBuilder& b, const MicroStepRun& run, bool uniform) {
  // ThroughputTimer.stop at the end of engine.step() and .start at the next forward: with
  // nothing issued in between, one device sync (utils/timer.py). The boundary micro-step's
  // stop comes after the optimizer step (end_of_step_sync).
  if (b.layout().timer_sync && (!run.boundary || uniform)) {
    b.device_sync({run.label, ".timer_sync"}, Phase::kStep);
  }
  b.end_segment();
}

void end_of_step_sync(PlanBuilder& b) {
  if (b.layout().timer_sync) b.device_sync({"step.timer_sync"}, Phase::kPostStep);
}

int overflow_check(PlanBuilder& b, int after) {
  // has_overflow: the flag is a ByteTensor all-reduced with MAX (stage_1_and_2.py,
  // stage3.py); the oracle records one uint8 element, in bf16 runs too.
  const int flag = b.op({"step.overflow_allreduce"}, b.compute_stream(), Phase::kStep,
                        CollectiveWork{.kind = CollectiveKind::kAllReduce,
                                       .dtype = Dtype::kU8,
                                       .role = CollectiveRole::kOverflowFlag,
                                       .bytes = 1,
                                       .group_size = b.layout().world},
                        {after});
  const int check = b.host_sync({"step.overflow_check"}, Phase::kStep, {flag});
  b.at(check).step_role = StepRole::kOverflowDecision;
  return check;
}

int grad_norm(PlanBuilder& b, Bytes bytes_read, Dtype dtype, int after, int rounds) {
  const int norm = b.op({"step.grad_norm"}, b.compute_stream(), Phase::kStep,
                        MemoryWork{bytes_read, 0}, {after});
  const int sum = b.op({"step.grad_norm_allreduce"}, b.compute_stream(), Phase::kStep,
                       CollectiveWork{.kind = CollectiveKind::kAllReduce,
                                      .dtype = dtype,
                                      .role = CollectiveRole::kNormSquares,
                                      .bytes = dtype_size(dtype),
                                      .group_size = b.layout().world},
                       {norm});
  const int synced = b.host_sync({"step.grad_norm_sync"}, Phase::kStep, {sum}, rounds);
  b.at(synced).step_role = StepRole::kGradNorm;
  return synced;
}

CollectiveWork gather_flat_group(PlanBuilder& b, const Layout& l) {
  CollectiveWork w{.kind = CollectiveKind::kAllGather,
                   .dtype = l.param_dtype,
                   .role = CollectiveRole::kParams,
                   .bytes = l.padded * l.param_bytes,
                   .group_size = l.world};
  w.slices = b.flat_group();
  return w;
}

CollectiveWork gather_params(PlanBuilder& b, std::span<const int> params, int group) {
  const Layout& l = b.layout();
  std::int64_t elems = 0;
  for (int p : params) elems += l.world * l.partition_elems[p];
  CollectiveWork w{.kind = CollectiveKind::kAllGather,
                   .dtype = l.param_dtype,
                   .role = CollectiveRole::kParams,
                   .layout = SliceLayout::kRankPieces,
                   .bytes = elems * l.param_bytes,
                   .group_size = group};
  w.slices = b.whole_params(params);
  return w;
}

void mark_skipped_on_overflow(PlanBuilder& b, int first_op) {
  for (int i = first_op; i < static_cast<int>(b.plan().ops.size()); ++i) {
    b.at(i).skipped_on_overflow = true;
  }
}

}  // namespace zs::plan
