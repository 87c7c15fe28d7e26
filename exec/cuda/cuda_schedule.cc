#include "exec/cuda/cuda_schedule.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <variant>

namespace zs::exec {
namespace {

bool is_device_kind(plan::StreamKind k) {
  return k == plan::StreamKind::kCompute || k == plan::StreamKind::kCollective ||
         k == plan::StreamKind::kCopyH2D || k == plan::StreamKind::kCopyD2H;
}

// Nanoseconds from `from` to `to`, both completed events with timing.
std::int64_t elapsed_ns(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  ZS_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return std::llround(static_cast<double>(ms) * 1e6);
}

}  // namespace

Result<std::unique_ptr<CudaSchedule>> CudaSchedule::create(const plan::Plan& plan) {
  int compute_stream = -1;  // the Plan stream of the ComputeWork
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const plan::Op& op = plan.ops[i];
    if (!std::holds_alternative<plan::ComputeWork>(op.work)) continue;
    if (compute_stream < 0) compute_stream = op.stream;
    if (op.stream != compute_stream ||
        plan.streams[static_cast<std::size_t>(op.stream)].kind != plan::StreamKind::kCompute) {
      return Status::invalid_argument(
          "the CUDA executor runs the model on one compute stream; op " + std::to_string(i) + " (" +
          std::string(plan.op_name(static_cast<int>(i))) + ") computes on stream \"" +
          plan.streams[static_cast<std::size_t>(op.stream)].name + "\"");
    }
  }
  if (compute_stream < 0) {
    for (std::size_t s = 0; s < plan.streams.size(); ++s) {
      if (plan.streams[s].kind == plan::StreamKind::kCompute) {
        compute_stream = static_cast<int>(s);
        break;
      }
    }
  }
  auto schedule = std::make_unique<CudaSchedule>(Key{}, plan);
  CudaSchedule& c = *schedule;
  c.stream_of_.assign(plan.streams.size(), -1);
  for (std::size_t s = 0; s < plan.streams.size(); ++s) {
    if (!is_device_kind(plan.streams[s].kind)) continue;
    c.stream_of_[s] = static_cast<int>(c.streams_.size());
    c.streams_.emplace_back();
  }
  if (compute_stream >= 0) {
    c.compute_ = c.stream_of_[static_cast<std::size_t>(compute_stream)];
  } else {  // a Plan without compute: its optimizer work still needs a stream
    c.compute_ = static_cast<int>(c.streams_.size());
    c.streams_.emplace_back();
  }
  c.last_run_.assign(plan.ops.size(), -1);
  c.last_stream_event_.assign(c.streams_.size(), -1);
  return schedule;
}

bool CudaSchedule::is_host_op(const plan::Op& op) const {
  return stream_of_[static_cast<std::size_t>(op.stream)] < 0 &&
         !std::holds_alternative<plan::OptimizerWork>(op.work);
}

int CudaSchedule::next_event() {
  if (used_events_ == static_cast<int>(events_.size())) events_.emplace_back();
  return used_events_++;
}

std::int64_t CudaSchedule::host_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - host_start_).count();
}

void CudaSchedule::begin_step(bool record) {
  record_ = record;
  runs_.clear();
  used_events_ = 0;
  std::fill(last_run_.begin(), last_run_.end(), -1);
  std::fill(last_stream_event_.begin(), last_stream_event_.end(), -1);
  ZS_CUDA_CHECK(cudaEventRecord(step_start_.get(), compute()));
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    if (static_cast<int>(s) == compute_) continue;
    ZS_CUDA_CHECK(cudaStreamWaitEvent(streams_[s].get(), step_start_.get(), 0));
  }
  if (record_) {
    // The device is idle: the start event completes at once, and host times count from here.
    ZS_CUDA_CHECK(cudaEventSynchronize(step_start_.get()));
    host_start_ = Clock::now();
  }
}

void CudaSchedule::host_wait(int op) {
  const int run = last_run_[static_cast<std::size_t>(op)];
  if (run < 0) return;  // not run this step
  const Run& r = runs_[static_cast<std::size_t>(run)];
  if (r.stream < 0) return;  // a host op: finished when the host went past it
  ZS_CUDA_CHECK(cudaEventSynchronize(events_[static_cast<std::size_t>(r.end_event)].get()));
}

cudaStream_t CudaSchedule::begin_op(int op, int repetition) {
  const plan::Op& o = plan_.ops[static_cast<std::size_t>(op)];
  if (o.host_wait_for >= 0) host_wait(o.host_wait_for);
  Run r{.op = op, .repetition = repetition};
  if (is_host_op(o)) {
    for (int dep : plan_.deps(o)) host_wait(dep);  // a sync finishes when its deps have
    if (record_) r.host_start_ns = host_ns();
  } else {
    const int plan_stream = stream_of_[static_cast<std::size_t>(o.stream)];
    r.stream = plan_stream >= 0 ? plan_stream : compute_;
    cudaStream_t stream = streams_[static_cast<std::size_t>(r.stream)].get();
    for (int dep : plan_.deps(o)) {
      const int run = last_run_[static_cast<std::size_t>(dep)];
      if (run < 0) continue;
      const Run& d = runs_[static_cast<std::size_t>(run)];
      // One on the same stream is ordered by the stream's FIFO. A host op is done, but device
      // work it queued is on the compute stream, before its end event there.
      if ((d.stream < 0 ? compute_ : d.stream) == r.stream) continue;
      ZS_CUDA_CHECK(
          cudaStreamWaitEvent(stream, events_[static_cast<std::size_t>(d.end_event)].get(), 0));
    }
    if (record_) {
      r.start_event = next_event();
      ZS_CUDA_CHECK(
          cudaEventRecord(events_[static_cast<std::size_t>(r.start_event)].get(), stream));
    }
  }
  last_run_[static_cast<std::size_t>(op)] = static_cast<int>(runs_.size());
  runs_.push_back(r);
  return r.stream >= 0 ? streams_[static_cast<std::size_t>(r.stream)].get() : compute();
}

void CudaSchedule::end_op(int op) {
  ZS_CHECK(!runs_.empty() && runs_.back().op == op);
  Run& r = runs_.back();
  if (r.stream < 0) {
    if (record_) r.host_end_ns = host_ns();
    // Device work a host op queued (the step's gradient checks, when it is the first op an
    // overflow would skip) went to the compute stream: later joins wait for it too.
    r.end_event = next_event();
    ZS_CUDA_CHECK(cudaEventRecord(events_[static_cast<std::size_t>(r.end_event)].get(), compute()));
    last_stream_event_[static_cast<std::size_t>(compute_)] = r.end_event;
    return;
  }
  r.end_event = next_event();
  cudaEvent_t end = events_[static_cast<std::size_t>(r.end_event)].get();
  ZS_CUDA_CHECK(cudaEventRecord(end, streams_[static_cast<std::size_t>(r.stream)].get()));
  last_stream_event_[static_cast<std::size_t>(r.stream)] = r.end_event;
  if (plan_.ops[static_cast<std::size_t>(op)].host_waits) ZS_CUDA_CHECK(cudaEventSynchronize(end));
}

void CudaSchedule::join_into(cudaStream_t stream) {
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    const int e = last_stream_event_[s];
    if (e < 0 || streams_[s].get() == stream) continue;
    ZS_CUDA_CHECK(cudaStreamWaitEvent(stream, events_[static_cast<std::size_t>(e)].get(), 0));
  }
}

std::vector<OpTiming> CudaSchedule::end_step() {
  ZS_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<OpTiming> timeline;
  if (!record_) return timeline;
  timeline.reserve(runs_.size());
  for (const Run& r : runs_) {
    OpTiming t{.op = r.op, .repetition = r.repetition};
    if (r.stream < 0) {
      t.start_ns = r.host_start_ns;
      t.end_ns = r.host_end_ns;
    } else {
      t.start_ns =
          elapsed_ns(step_start_.get(), events_[static_cast<std::size_t>(r.start_event)].get());
      t.end_ns =
          elapsed_ns(step_start_.get(), events_[static_cast<std::size_t>(r.end_event)].get());
    }
    timeline.push_back(t);
  }
  return timeline;
}

}  // namespace zs::exec
