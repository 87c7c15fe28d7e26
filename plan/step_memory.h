// step_memory: what a planned step holds in memory on a cluster: its buffers replayed on the GPU
// and the host (plan/memory.h) with the cluster's capacities, and the host's peak while the
// script loads the model when asked (plan/model_load.h). The half of a simulation that needs no
// timing: sim/simulate.h adds the step time to it, and plan tests need nothing more.
#pragma once

#include <cstdint>
#include <optional>

#include "configs/hardware/cluster.h"
#include "models/model_spec.h"
#include "plan/build_plan.h"
#include "plan/memory.h"
#include "plan/model_load.h"

namespace zs::plan {

struct MemoryRequest {
  double fragmentation = 0.0;  // MemoryOptions::fragmentation
  // A sweep's row: the caching allocator replays the Plan only near capacity
  // (MemoryOptions::allocator_only_near_capacity).
  bool allocator_near_capacity_only = false;
  // How the script loads the model before initialize; unset: not counted.
  std::optional<LoadDtype> load_dtype = std::nullopt;
};

struct StepMemory {
  MemoryReport memory;
  std::optional<ModelLoad> load;  // set when the request's load_dtype is
};

// The memory of `built`, a plan of `model` on `cluster`. A CPU cluster (gpu.backend "cpu") has no
// CUDA context or NCCL workspace.
StepMemory step_memory(const BuiltPlan& built, const models::ModelSpec& model,
                       const configs::Cluster& cluster, const MemoryRequest& request);

}  // namespace zs::plan
