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

// Per op, the bytes its issue allocates and its release frees, per place: the GPU's always;
// the host's and NVMe's when any buffer there comes and goes during the step (small arrays keep
// a sweep's working set in the cache). `now`: what is live before the step (the persistent
// buffers).
struct Deltas {
  std::vector<Delta> gpu, host, nvme;
  Bytes gpu_now = 0, host_now = 0, nvme_now = 0;
};

Deltas buffer_deltas(const Plan& plan, MemoryReport* r) {
  const auto n = plan.ops.size();
  Deltas d;
  d.gpu.resize(n);
  for (const Buffer& b : plan.buffers) {
    if (b.device == Device::kGpu) r->model_states_bytes += b.model_state_bytes;
    Bytes* now = b.device == Device::kGpu ? &d.gpu_now
                 : on_host(b.device)      ? &d.host_now
                                          : &d.nvme_now;
    if (b.persistent) *now += b.bytes;
    if (b.persistent && b.alloc_op < 0) continue;
    // A non-persistent buffer's lifetime, or a persistent one's gap (free_op < alloc_op).
    std::vector<Delta>& deltas = b.device == Device::kGpu ? d.gpu
                                 : on_host(b.device)      ? d.host
                                                          : d.nvme;
    if (deltas.empty()) deltas.resize(n);
    deltas[static_cast<std::size_t>(b.alloc_op)].in += b.bytes;
    deltas[static_cast<std::size_t>(b.free_op)].out += b.bytes;
  }
  return d;
}

// Where the running totals peak: the GPU's (with the op's working memory, the fragmentation
// allowance and the fixed context) into r's gpu_peak_bytes and peak_op, the host's and NVMe's.
struct Peaks {
  Bytes gpu_allocated = 0, gpu_transient = 0;  // at the GPU's peak
  int host_op = -1;
  Bytes host = -1, nvme = 0;
};

Peaks find_peaks(const Plan& plan, const MemoryOptions& o, const Deltas& d, MemoryReport* r) {
  const int n = static_cast<int>(plan.ops.size());
  const Bytes fixed = o.cuda_context_bytes + o.nccl_workspace_bytes;
  Bytes gpu = d.gpu_now, host = d.host_now, nvme = d.nvme_now;
  Peaks p;
  p.nvme = nvme;
  auto consider = [&](int op_id, Bytes transient) {
    const Bytes allocated = gpu + transient;
    const Bytes total = with_fragmentation(allocated, o.fragmentation) + fixed;
    if (total > r->gpu_peak_bytes) {
      r->gpu_peak_bytes = total;
      r->peak_op = op_id;
      p.gpu_allocated = allocated;
      p.gpu_transient = transient;
    }
    if (host > p.host) {
      p.host = host;
      p.host_op = op_id;
    }
    p.nvme = std::max(p.nvme, nvme);
  };
  consider(-1, 0);  // before the step: persistent state only
  const bool host_moves = !d.host.empty(), nvme_moves = !d.nvme.empty();
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    gpu += d.gpu[k].in;
    if (host_moves) host += d.host[k].in;
    if (nvme_moves) nvme += d.nvme[k].in;
    consider(i, plan.ops[k].transient_bytes);
    gpu -= d.gpu[k].out;
    if (host_moves) host -= d.host[k].out;
    if (nvme_moves) nvme -= d.nvme[k].out;
  }
  return p;
}

// The buffers alive at each peak, by category; the GPU peak's working memory as activations,
// its fragmentation and fixed context as other.
void breakdown_at_peaks(const Plan& plan, const Peaks& p, MemoryReport* r) {
  for (const Buffer& b : plan.buffers) {
    if (b.device == Device::kGpu && live_during(b, r->peak_op)) {
      r->gpu_at_peak[b.category] += b.bytes;
    }
    if (on_host(b.device) && live_during(b, p.host_op)) {
      r->host_at_peak[b.category] += b.bytes;
      if (b.device == Device::kHostPinned) r->host_pinned_bytes += b.bytes;
    }
  }
  r->gpu_allocated_peak_bytes = p.gpu_allocated;
  r->gpu_at_peak[Category::kActivations] += p.gpu_transient;
  r->gpu_at_peak[Category::kOther] += r->gpu_peak_bytes - p.gpu_allocated;
  if (r->peak_op >= 0) {
    r->peak_op_name = std::string(plan.op_name(r->peak_op));
    r->peak_phase = plan.ops[r->peak_op].phase;
  } else {
    r->peak_op_name = "before the step";
  }
}

// The host's figures for the node (every rank's), and its peak at loading the model when that
// is higher (from_pretrained's tensors are pageable).
void host_per_node(const MemoryOptions& o, const Peaks& p, MemoryReport* r) {
  const Bytes ranks = std::max(1, o.ranks_per_node);
  r->host_peak_bytes = p.host * ranks;
  for (Bytes& b : r->host_at_peak.bytes) b *= ranks;
  r->host_pinned_bytes *= ranks;
  r->nvme_bytes = p.nvme * ranks;
  r->host_load_bytes = o.host_load_bytes_per_rank * ranks;
  if (r->host_load_bytes > r->host_peak_bytes) {
    r->host_peak_bytes = r->host_load_bytes;
    r->host_at_peak = Breakdown{};
    r->host_at_peak[Category::kParams] = r->host_load_bytes;
    r->host_pinned_bytes = 0;
    r->host_peak_at_load = true;
  }
  r->host_capacity_bytes = o.host_capacity_bytes;
  r->host_headroom_bytes = o.host_capacity_bytes - r->host_peak_bytes;
  r->host_oom = r->host_headroom_bytes < 0;
}

}  // namespace

// Two passes over the buffers and one over the ops: the running totals find the peaks, then
// the buffers alive at each peak give its breakdown. (Tracking the breakdown op by op would
// cost a per-category update for every allocation of a 10^4-op plan; a sweep replays thousands.)
MemoryReport replay_memory(const Plan& plan, const MemoryOptions& o) {
  MemoryReport r;
  const Deltas deltas = buffer_deltas(plan, &r);
  const Peaks peaks = find_peaks(plan, o, deltas, &r);
  breakdown_at_peaks(plan, peaks, &r);
  r.gpu_capacity_bytes = o.gpu_capacity_bytes;
  r.gpu_headroom_bytes = o.gpu_capacity_bytes - r.gpu_peak_bytes;
  if (!o.allocator_only_near_capacity ||
      static_cast<double>(r.gpu_peak_bytes) >=
          kAllocatorNearCapacity * static_cast<double>(o.gpu_capacity_bytes)) {
    replay_allocator(plan, o, &r);
  }
  r.gpu_oom = r.gpu_headroom_bytes < 0 || r.gpu_failed_request_bytes > 0;
  host_per_node(o, peaks, &r);
  return r;
}

}  // namespace zs::plan
