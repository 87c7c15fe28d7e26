#include "plan/memory.h"

#include <algorithm>
#include <cmath>

#include "common/check.h"
#include "plan/caching_allocator.h"

namespace zs::plan {

Bytes Breakdown::total() const {
  Bytes t = 0;
  for (Bytes b : bytes) t += b;
  return t;
}

namespace {

bool on_host(Device d) { return d == Device::kHostPinned || d == Device::kHostPageable; }

Bytes with_fragmentation(Bytes allocated, double fragmentation) {
  if (fragmentation == 0) return allocated;
  return allocated +
         static_cast<Bytes>(std::llround(static_cast<double>(allocated) * fragmentation));
}

// Bytes an op's issue allocates (in) and its release frees (out), per place.
// Bytes allocated when an op is issued (in) and released after it (out), per op.
struct Delta {
  Bytes in = 0, out = 0;
};

// The caching allocator over the plan's GPU buffers: the persistent ones first, then two steps
// (the second starts from the first's cached segments, as training does).
void replay_allocator(const Plan& plan, const MemoryOptions& o, MemoryReport* r) {
  const Bytes fixed = o.cuda_context_bytes + o.nccl_workspace_bytes;
  CachingAllocator a(std::max<Bytes>(0, o.gpu_capacity_bytes - fixed),
                     static_cast<int>(plan.buffers.size()));
  std::vector<int> handle(plan.buffers.size(), -1);
  const int n = static_cast<int>(plan.ops.size());
  // Per op, the buffers allocated at its issue and freed after it (a persistent buffer's gap
  // included); only GPU ones go through the allocator.
  const BufferEvents events = buffer_events(plan);
  auto on_gpu = [&plan](int id) {
    return plan.buffers[id].device == Device::kGpu && plan.buffers[id].bytes > 0;
  };
  for (int id = 0; id < static_cast<int>(plan.buffers.size()); ++id) {
    if (on_gpu(id) && plan.buffers[id].persistent) handle[id] = a.malloc(plan.buffers[id].bytes);
  }
  for (int step = 0; step < 2; ++step) {
    for (int i = 0; i < n; ++i) {
      for (int id : events.allocs(i)) {
        if (on_gpu(id)) handle[id] = a.malloc(plan.buffers[id].bytes);
      }
      const Bytes t = plan.ops[i].transient_bytes;
      if (t > 0) a.malloc_and_free(t);
      for (int id : events.frees(i)) {
        if (handle[id] >= 0) a.free(handle[id]);
        handle[id] = -1;
      }
    }
  }
  // What the allocator reserves holds every allocated byte, so the figure never reads below the
  // peak it bounds: the peak's fragmentation allowance (MemoryOptions) can exceed what the
  // replay's own rounding and splitting leave.
  r->gpu_reserved_peak_bytes = std::max(a.peak_reserved() + fixed, r->gpu_peak_bytes);
  r->gpu_allocator_allocated_peak_bytes = a.peak_allocated();
  r->gpu_allocator_reserved_peak_bytes = a.peak_reserved();
  r->gpu_failed_request_bytes = a.failed_bytes();
}

}  // namespace

// Two passes over the buffers and one over the ops: the running totals find the peaks, then
// the buffers alive at each peak give its breakdown. (Tracking the breakdown op by op would
// cost a per-category update for every allocation of a 10^4-op plan; a sweep replays thousands.)
MemoryReport replay_memory(const Plan& plan, const MemoryOptions& o) {
  MemoryReport r;
  const int n = static_cast<int>(plan.ops.size());
  // GPU buffers are most of a plan's; host and NVMe ones (offload) get their arrays when any
  // comes and goes during the step. Small arrays keep a sweep's working set in the cache.
  std::vector<Delta> gpu_delta(static_cast<std::size_t>(n));
  std::vector<Delta> host_delta, nvme_delta;
  Bytes gpu = 0, host = 0, nvme = 0;  // live now
  for (const Buffer& b : plan.buffers) {
    if (b.device == Device::kGpu) r.model_states_bytes += b.model_state_bytes;
    Bytes* now = b.device == Device::kGpu ? &gpu : on_host(b.device) ? &host : &nvme;
    if (b.persistent) *now += b.bytes;
    if (b.persistent && b.alloc_op < 0) continue;
    // A non-persistent buffer's lifetime, or a persistent one's gap (free_op < alloc_op).
    std::vector<Delta>& deltas = b.device == Device::kGpu ? gpu_delta
                                 : on_host(b.device)      ? host_delta
                                                          : nvme_delta;
    if (deltas.empty()) deltas.resize(static_cast<std::size_t>(n));
    deltas[static_cast<std::size_t>(b.alloc_op)].in += b.bytes;
    deltas[static_cast<std::size_t>(b.free_op)].out += b.bytes;
  }
  const Bytes fixed = o.cuda_context_bytes + o.nccl_workspace_bytes;
  Bytes gpu_allocated_at_peak = 0, gpu_transient_at_peak = 0;
  int host_peak_op = -1;
  Bytes host_peak = -1;
  Bytes nvme_peak = nvme;
  auto consider = [&](int op_id, Bytes transient) {
    const Bytes allocated = gpu + transient;
    const Bytes total = with_fragmentation(allocated, o.fragmentation) + fixed;
    if (total > r.gpu_peak_bytes) {
      r.gpu_peak_bytes = total;
      r.peak_op = op_id;
      gpu_allocated_at_peak = allocated;
      gpu_transient_at_peak = transient;
    }
    if (host > host_peak) {
      host_peak = host;
      host_peak_op = op_id;
    }
    nvme_peak = std::max(nvme_peak, nvme);
  };
  consider(-1, 0);  // before the step: persistent state only
  const bool host_moves = !host_delta.empty(), nvme_moves = !nvme_delta.empty();
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    gpu += gpu_delta[k].in;
    if (host_moves) host += host_delta[k].in;
    if (nvme_moves) nvme += nvme_delta[k].in;
    consider(i, plan.ops[k].transient_bytes);
    gpu -= gpu_delta[k].out;
    if (host_moves) host -= host_delta[k].out;
    if (nvme_moves) nvme -= nvme_delta[k].out;
  }
  for (const Buffer& b : plan.buffers) {
    if (b.device == Device::kGpu && live_during(b, r.peak_op)) r.gpu_at_peak[b.category] += b.bytes;
    if (on_host(b.device) && live_during(b, host_peak_op)) {
      r.host_at_peak[b.category] += b.bytes;
      if (b.device == Device::kHostPinned) r.host_pinned_bytes += b.bytes;
    }
  }
  r.gpu_allocated_peak_bytes = gpu_allocated_at_peak;
  r.gpu_at_peak[Category::kActivations] += gpu_transient_at_peak;
  r.gpu_at_peak[Category::kOther] += r.gpu_peak_bytes - gpu_allocated_at_peak;
  if (r.peak_op >= 0) {
    r.peak_op_name = std::string(plan.op_name(r.peak_op));
    r.peak_phase = plan.ops[r.peak_op].phase;
  } else {
    r.peak_op_name = "before the step";
  }
  r.gpu_capacity_bytes = o.gpu_capacity_bytes;
  r.gpu_headroom_bytes = o.gpu_capacity_bytes - r.gpu_peak_bytes;
  if (!o.allocator_only_near_capacity ||
      static_cast<double>(r.gpu_peak_bytes) >=
          kAllocatorNearCapacity * static_cast<double>(o.gpu_capacity_bytes)) {
    replay_allocator(plan, o, &r);
  }
  r.gpu_oom = r.gpu_headroom_bytes < 0 || r.gpu_failed_request_bytes > 0;
  const Bytes ranks = std::max(1, o.ranks_per_node);
  r.host_peak_bytes = host_peak * ranks;
  for (Bytes& b : r.host_at_peak.bytes) b *= ranks;
  r.host_pinned_bytes *= ranks;
  r.nvme_bytes = nvme_peak * ranks;
  r.host_load_bytes = o.host_load_bytes_per_rank * ranks;
  if (r.host_load_bytes > r.host_peak_bytes) {
    r.host_peak_bytes = r.host_load_bytes;
    r.host_at_peak = Breakdown{};
    r.host_at_peak[Category::kParams] = r.host_load_bytes;
    r.host_pinned_bytes = 0;  // from_pretrained's tensors are pageable
    r.host_peak_at_load = true;
  }
  r.host_capacity_bytes = o.host_capacity_bytes;
  r.host_headroom_bytes = o.host_capacity_bytes - r.host_peak_bytes;
  r.host_oom = r.host_headroom_bytes < 0;
  return r;
}

}  // namespace zs::plan
