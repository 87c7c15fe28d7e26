// Memory: replaying a Plan's allocations in host order gives the per-GPU memory timeline, its
// peak and what holds it, and the host memory each node needs.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "common/units.h"
#include "plan/plan.h"

namespace zs::plan {

// The CUDA context a PyTorch process creates on its GPU, outside the caching allocator: "around
// 400MB if CUDA >= 11.7 is used and lazy module loading enabled (default in PyTorch)"
// (NVIDIA's ptrblck, pytorch/pytorch#109888, 2023).
inline constexpr Bytes kCudaContextBytes = 400 * kMiB;
// NCCL's communicator buffers (per channel and peer FIFOs, NCCL_BUFFSIZE 4 MiB for the Simple
// protocol plus LL/LL128). NVIDIA/nccl#1685 reports 1.06 GB of non-PyTorch GPU memory per rank
// on 8x H100 after communicator setup, the CUDA context included; less the context above, about
// 660 MB. It depends on channels, algorithms and peers (sjeaugey in NVIDIA/nccl#986), so
// calibration replaces it.
inline constexpr Bytes kNcclWorkspaceBytes = 1'060'000'000 - kCudaContextBytes;

struct MemoryOptions {
  Bytes gpu_capacity_bytes = 0;   // what the device reports as total memory
  Bytes host_capacity_bytes = 0;  // one node's RAM
  int ranks_per_node = 1;         // host memory is shared by the ranks of a node
  Bytes cuda_context_bytes = kCudaContextBytes;
  Bytes nccl_workspace_bytes = kNcclWorkspaceBytes;
  // Caching-allocator fragmentation: reserved = allocated x (1 + fragmentation). 0 until
  // calibration measures it (DeepSpeed's stage 3 warns when allocator retries climb).
  double fragmentation = 0.0;
  // Runs the caching allocator (the reserve and its OOM verdict) only when the allocated peak
  // reaches kAllocatorNearCapacity of the capacity; below that gpu_reserved_peak_bytes is 0 (not
  // computed). A sweep sets it: the allocator's replay costs as much as the rest of the memory
  // replay, and only a step near capacity can fail in it.
  bool allocator_only_near_capacity = false;
  // What each rank holds on the host while it loads the model, before the step's buffers exist
  // (plan/model_load.h); the host peak is the larger of it and the step's.
  Bytes host_load_bytes_per_rank = 0;
};
// Reserved exceeded allocated by 3-13% of capacity in the cases measured
// (results/measurements/2026-11-25-fidelity-calibrated.md); 0.75 leaves twice that.
inline constexpr double kAllocatorNearCapacity = 0.75;

struct Breakdown {
  std::array<Bytes, 6> bytes{};  // indexed by Category
  Bytes& operator[](Category c) { return bytes[static_cast<int>(c)]; }
  Bytes operator[](Category c) const { return bytes[static_cast<int>(c)]; }
  Bytes total() const;
};

struct MemoryReport {
  // GPU, per rank: allocated tensors + fragmentation + CUDA context + NCCL ("other").
  Bytes gpu_peak_bytes = 0;
  // What PyTorch's caching allocator reserves at its peak (plan/caching_allocator.h: segments,
  // block rounding and splitting, over two steps so that the second starts from the first's
  // cache), plus the CUDA context and NCCL: nvidia-smi's figure for the process. Never below
  // gpu_peak_bytes when computed.
  Bytes gpu_reserved_peak_bytes = 0;  // 0: not computed (MemoryOptions)
  // The buffers alone: their allocated peak in exact sizes; and as the caching allocator's
  // replay counts them, its allocated peak (blocks rounded to 512 bytes: max_memory_allocated)
  // and reserved peak without the CUDA context and NCCL (both 0 when not computed). What an
  // executor measures of the Plan's buffers (exec/plan_buffers.h).
  Bytes gpu_allocated_peak_bytes = 0;
  Bytes gpu_allocator_allocated_peak_bytes = 0;
  Bytes gpu_allocator_reserved_peak_bytes = 0;
  // The largest request the allocator could not place even after releasing its cache (a CUDA
  // OOM at that point), 0 if none.
  Bytes gpu_failed_request_bytes = 0;
  Breakdown gpu_at_peak;
  int peak_op = -1;
  std::string peak_op_name;
  Phase peak_phase = Phase::kForward;
  Bytes gpu_capacity_bytes = 0;
  Bytes gpu_headroom_bytes = 0;  // capacity - peak; negative when it does not fit
  bool gpu_oom = false;          // the allocated peak exceeds capacity, or the allocator failed
  // Parameters, gradients and optimizer states as the ZeRO paper counts them (the
  // model_state_bytes of GPU buffers).
  Bytes model_states_bytes = 0;
  // Host, per node: every rank's host buffers, or the model load when it holds more
  // (host_peak_at_load; its bytes are parameters in host_at_peak).
  Bytes host_peak_bytes = 0;
  Breakdown host_at_peak;
  Bytes host_load_bytes = 0;  // per node: every rank's MemoryOptions::host_load_bytes_per_rank
  bool host_peak_at_load = false;
  Bytes host_capacity_bytes = 0;
  Bytes host_headroom_bytes = 0;
  bool host_oom = false;
  Bytes host_pinned_bytes = 0;  // of host_peak_bytes, page-locked (cannot be swapped)
  Bytes nvme_bytes = 0;         // per node, on the NVMe drives
};

// Replays `plan` (each segment once: repeated segments leave memory as they found it).
// REQUIRES: validate(plan).is_ok()
MemoryReport replay_memory(const Plan& plan, const MemoryOptions& options);

}  // namespace zs::plan
