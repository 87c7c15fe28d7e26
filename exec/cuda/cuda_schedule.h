// CudaSchedule: the Plan's streams as CUDA streams, and the CUDA events that order and time
// its ops as the CUDA executor issues them (exec/cuda/cuda_executor.h states the rules).
//
// Device ops are the ops on a device stream (compute, collective, H2D, D2H) and OptimizerWork
// anywhere (it runs on the compute stream); host ops are the others on the host-thread or NVMe
// stream. A device op gets a start event (when recording) and an end event on its stream; a
// host op gets host-clock times, and an end event on the compute stream, where any device work
// it queued went, so that join_into() covers that work too. Events come from a pool that grows to the most a step needs
// and is reused by every step: a step must end with the device synchronized (end_step()).
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/status.h"
#include "exec/cuda/cuda_handles.h"
#include "exec/exec_types.h"
#include "plan/plan.h"

namespace zs::exec {

class CudaSchedule {
 public:
  // Creates one CUDA stream per device-kind stream of `plan` (plus one for compute when the
  // Plan has none). kInvalidArgument when ComputeWork ops are on more than one stream or on a
  // stream that is not of kind kCompute. REQUIRES: `plan` outlives the schedule; a current
  // CUDA device.
  static Result<std::unique_ptr<CudaSchedule>> create(const plan::Plan& plan);
  // Private: create() makes schedules (Key is its passkey for std::make_unique).
  class Key {
    explicit Key() = default;
    friend class CudaSchedule;
  };
  CudaSchedule(Key, const plan::Plan& plan) : plan_(plan) {}
  CudaSchedule(const CudaSchedule&) = delete;
  CudaSchedule& operator=(const CudaSchedule&) = delete;

  // The stream of every ComputeWork (the model runner's).
  cudaStream_t compute() const { return streams_[static_cast<std::size_t>(compute_)].get(); }

  // Starts a step: an event on the compute stream that every stream waits for. `record`: keep
  // start times for timeline(). REQUIRES: no device work queued (the last step ended).
  void begin_step(bool record);
  // Issues the waits before op `op` (repetition `repetition` of its segment) and starts its
  // timing. Returns the stream its device work goes on (the compute stream for a host op: the
  // stream a host op's own device work, if any, is queued on after join_into()).
  cudaStream_t begin_op(int op, int repetition);
  // Ends the timing of the op begin_op started; the host waits for it when it is host_waits.
  void end_op(int op);
  // Makes `stream` wait for the last op ended on every other stream, so that what is queued on
  // it next runs after everything issued so far.
  void join_into(cudaStream_t stream);
  // Synchronizes the device and returns every op's run this step in issue order, with start
  // and end from the step's start (empty unless begin_step recorded).
  std::vector<OpTiming> end_step();

 private:
  using Clock = std::chrono::steady_clock;
  // One op's run in this step.
  struct Run {
    int op = 0;
    int repetition = 0;
    int stream = -1;                 // index into streams_; -1: a host op
    int start_event = -1;            // into events_ (device op, recording)
    int end_event = -1;              // into events_ (a host op: on compute, for joins)
    std::int64_t host_start_ns = 0;  // host op
    std::int64_t host_end_ns = 0;
  };

  bool is_host_op(const plan::Op& op) const;
  // Index of a fresh event of the pool.
  int next_event();
  // The host waits until `op`'s last run this step (if any, and on the device) has finished.
  void host_wait(int op);
  std::int64_t host_ns() const;

  const plan::Plan& plan_;
  std::vector<CudaStream> streams_;
  std::vector<int> stream_of_;  // per Plan stream: index into streams_, or -1 (host)
  int compute_ = 0;             // index into streams_
  std::vector<CudaEvent> events_;
  int used_events_ = 0;
  CudaEvent step_start_;
  Clock::time_point host_start_;  // when step_start_ completed (recording)
  bool record_ = false;
  std::vector<Run> runs_;
  std::vector<int> last_run_;           // per op: index into runs_ this step, or -1
  std::vector<int> last_stream_event_;  // per stream: end event of its last op this step, or -1
};

}  // namespace zs::exec
