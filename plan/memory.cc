#include "plan/memory.h"

#include <cmath>

#include "common/check.h"

namespace zs::plan {

Bytes Breakdown::total() const {
  Bytes t = 0;
  for (Bytes b : bytes) t += b;
  return t;
}

namespace {

bool on_host(Device d) { return d == Device::kHostPinned || d == Device::kHostPageable; }

// Live bytes by category on one side (GPU or host), plus the pinned share on the host.
struct Live {
  Breakdown gpu;
  Breakdown host;
  Bytes gpu_total = 0;  // gpu.total() and host.total(), kept as buffers come and go
  Bytes host_total = 0;
  Bytes pinned = 0;
  Bytes nvme = 0;

  void add(const Buffer& b, Bytes sign) {
    if (b.device == Device::kGpu) {
      gpu[b.category] += sign * b.bytes;
      gpu_total += sign * b.bytes;
    } else if (on_host(b.device)) {
      host[b.category] += sign * b.bytes;
      host_total += sign * b.bytes;
      if (b.device == Device::kHostPinned) pinned += sign * b.bytes;
    } else {
      nvme += sign * b.bytes;
    }
  }
};

Bytes with_fragmentation(Bytes allocated, double fragmentation) {
  if (fragmentation == 0) return allocated;
  return allocated +
         static_cast<Bytes>(std::llround(static_cast<double>(allocated) * fragmentation));
}

}  // namespace

MemoryReport replay_memory(const Plan& plan, const MemoryOptions& o) {
  MemoryReport r;
  Live live;
  for (const Buffer& b : plan.buffers) {
    if (b.persistent) live.add(b, 1);
    if (b.device == Device::kGpu) r.model_states_bytes += b.model_state_bytes;
  }
  const Bytes fixed = o.cuda_context_bytes + o.nccl_workspace_bytes;
  Bytes host_peak = -1;
  Bytes nvme_peak = live.nvme;
  auto consider = [&](int op_id, Bytes transient) {
    const Bytes allocated = live.gpu_total + transient;
    const Bytes reserved = with_fragmentation(allocated, o.fragmentation);
    const Bytes gpu = reserved + fixed;
    if (gpu > r.gpu_peak_bytes) {
      r.gpu_peak_bytes = gpu;
      r.gpu_at_peak = live.gpu;
      r.gpu_at_peak[Category::kActivations] += transient;
      r.gpu_at_peak[Category::kOther] += fixed + (reserved - allocated);
      r.peak_op = op_id;
    }
    const Bytes host = live.host_total;
    if (host > host_peak) {
      host_peak = host;
      r.host_at_peak = live.host;
      r.host_pinned_bytes = live.pinned;
    }
    nvme_peak = std::max(nvme_peak, live.nvme);
  };
  const BufferEvents events = buffer_events(plan);
  consider(-1, 0);  // before the step: persistent state only
  for (const Segment& s : plan.segments) {
    for (int i = s.first_op; i < s.end_op; ++i) {
      for (int b : events.allocs(i)) live.add(plan.buffers[b], 1);
      consider(i, plan.ops[i].transient_bytes);
      for (int b : events.frees(i)) live.add(plan.buffers[b], -1);
    }
  }
  if (r.peak_op >= 0) {
    r.peak_op_name = std::string(plan.op_name(r.peak_op));
    r.peak_phase = plan.ops[r.peak_op].phase;
  } else {
    r.peak_op_name = "before the step";
  }
  r.gpu_capacity_bytes = o.gpu_capacity_bytes;
  r.gpu_headroom_bytes = o.gpu_capacity_bytes - r.gpu_peak_bytes;
  r.gpu_oom = r.gpu_headroom_bytes < 0;
  const Bytes ranks = std::max(1, o.ranks_per_node);
  r.host_peak_bytes = host_peak * ranks;
  for (Bytes& b : r.host_at_peak.bytes) b *= ranks;
  r.host_pinned_bytes *= ranks;
  r.nvme_bytes = nvme_peak * ranks;
  r.host_capacity_bytes = o.host_capacity_bytes;
  r.host_headroom_bytes = o.host_capacity_bytes - r.host_peak_bytes;
  r.host_oom = r.host_headroom_bytes < 0;
  return r;
}

}  // namespace zs::plan
