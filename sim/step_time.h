// Step time: prices a Plan (sim/cost_model.h), replays it (sim/engine.h) and explains where the
// time goes.
//
// Breakdown: every instant of the step is charged to one category, the first of compute >
// optimizer > other GPU work (casts, copies, norms) > communication > offload that is running
// on any stream; instants with nothing running are host time (launches, syncs, Python), also
// "other". So the parts sum to the step time, and "exposed" communication is communication
// that no compute hides. Throughput: samples/s = global batch / step time; model FLOPs are 3x
// the forward FLOPs (backward counted as twice forward, recomputation not counted) per
// micro-step, and MFU divides them by the dense peak of the activation dtype.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "configs/hardware/cluster.h"
#include "plan/build_plan.h"
#include "sim/cost_model.h"
#include "sim/cost_profile.h"
#include "sim/engine.h"

namespace zs::sim {

struct TimeBreakdown {
  double compute_s = 0;
  double optimizer_s = 0;
  double exposed_comm_s = 0;
  double exposed_offload_s = 0;
  double other_s = 0;  // other GPU work and host time
};

// Where the host's time goes in one step: the model's calls, waiting for the GPU, and DeepSpeed's
// calls per kind (plan::HostTask: their Python and ATen calls), repeated micro-steps counted as
// often as they run. The host issues work ahead of the GPU, so its time costs step time only where
// the GPU waits for it: gpu_idle_s, the instants of the step with nothing running on the GPU.
struct HostTime {
  // The model's ATen and module calls (HF's eager modules, plan/host_ops.h) and the
  // collectives' launches.
  double launch_s = 0;
  std::int64_t model_calls = 0;  // the model's ATen calls
  double sync_s = 0;             // host-device round trips (syncs, event waits)
  std::array<double, plan::kHostTaskCount> task_s{};
  std::array<std::int64_t, plan::kHostTaskCount> task_calls{};
  double busy_s = 0;  // all of the above
  double gpu_idle_s = 0;
};

// What CPU offload of the optimizer costs in one step (all zero without it): the host's CPU
// work (DeepSpeedCPUAdam with the unscale and cast passes around it), the copies over PCIe each
// way, each as the time it would take alone, and how much of the step they leave exposed.
struct OffloadTime {
  double cpu_s = 0;
  double cpu_bytes = 0;
  double cpu_bytes_per_s = 0;  // per rank
  int cpu_cores = 0;           // per rank
  double to_host_bytes = 0, to_host_s = 0;
  double to_device_bytes = 0, to_device_s = 0;
  double exposed_copies_s = 0;  // TimeBreakdown::exposed_offload_s
};

// The step is host-bound (its explanation and its uncertainty regime, sim/uncertainty.h) when the
// GPU waits for the host for at least this fraction of it.
inline constexpr double kHostBoundIdleFraction = 0.25;

struct StepTime {
  double step_s = 0;
  // Priced for zerosim's CPU backend (configs::GpuSpec::backend "cpu"): its own executor on CPU
  // ranks, whose band comes from validate runs (sim/uncertainty.h).
  bool cpu_backend = false;
  TimeBreakdown breakdown;
  HostTime host;
  // Busy time per kind of work, overlapped or not (for the explanation).
  double comm_busy_s = 0;
  double offload_busy_s = 0;
  double cpu_optimizer_s = 0;
  bool overflow_possible = false;  // fp16: a skipped step is simulated too
  double overflow_step_s = 0;
  double samples_per_s = 0;
  double tokens_per_s = 0;
  double model_flops = 0;  // per step and GPU: 3x the forward FLOPs of every micro-step
  double tflops_per_gpu = 0;
  double mfu = 0;
  double cpu_adam_bytes_per_s = 0;
  OffloadTime offload;
  int drained_repeats = 0;
  std::string bottleneck;  // one paragraph
  EngineResult timeline;   // the normal step (per-op times with StepTimeRequest::record_ops)
  PricedPlan priced;
  std::shared_ptr<const PricedModel> priced_model;  // the model's kernels, for reuse
};

struct StepTimeRequest {
  const plan::BuiltPlan* built = nullptr;
  const configs::Cluster* cluster = nullptr;
  const CostProfile* profile = nullptr;
  std::int64_t train_batch_size = 0;  // samples per optimizer step, all ranks
  double collective_slowdown = 1.0;   // a straggler's factor on every collective (cost_model.h)
  // A pricing of the model's kernels from an earlier simulation; used when it was priced for
  // this graph, GPU and profile (price_model).
  std::shared_ptr<const PricedModel> priced_model;
  // Per-op times in StepTime::timeline.ops (what a trace draws); the breakdown needs only the
  // transition log.
  bool record_ops = true;
};

// kInvalidArgument when the engine cannot time the plan (run_engine: rates far too small for the
// work, or costs that are not numbers).
Result<StepTime> simulate_step_time(const StepTimeRequest& request);

}  // namespace zs::sim
