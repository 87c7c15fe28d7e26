#include "plan/plan.h"

#include <cstdio>

#include "common/units.h"

namespace zs::plan {

std::string_view device_name(Device d) {
  switch (d) {
    case Device::kGpu:
      return "gpu";
    case Device::kHostPinned:
      return "host_pinned";
    case Device::kHostPageable:
      return "host";
    case Device::kNvme:
      return "nvme";
  }
  return "?";
}

std::string_view category_name(Category c) {
  switch (c) {
    case Category::kParams:
      return "params";
    case Category::kGrads:
      return "grads";
    case Category::kOptimizerStates:
      return "optimizer_states";
    case Category::kActivations:
      return "activations";
    case Category::kBuffers:
      return "buffers";
    case Category::kOther:
      return "other";
  }
  return "?";
}

std::string_view stream_kind_name(StreamKind k) {
  switch (k) {
    case StreamKind::kCompute:
      return "compute";
    case StreamKind::kCollective:
      return "collective";
    case StreamKind::kCopyH2D:
      return "h2d";
    case StreamKind::kCopyD2H:
      return "d2h";
    case StreamKind::kCpu:
      return "cpu";
    case StreamKind::kNvme:
      return "nvme";
  }
  return "?";
}

std::string_view pass_name(Pass p) {
  switch (p) {
    case Pass::kForward:
      return "fwd";
    case Pass::kBackward:
      return "bwd";
    case Pass::kRecompute:
      return "recompute";
  }
  return "?";
}

std::string_view collective_name(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllReduce:
      return "all_reduce";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kBroadcast:
      return "broadcast";
    case CollectiveKind::kReduce:
      return "reduce";
  }
  return "?";
}

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::kForward:
      return "forward";
    case Phase::kBackward:
      return "backward";
    case Phase::kReduce:
      return "gradient reduction";
    case Phase::kStep:
      return "optimizer step";
    case Phase::kPostStep:
      return "parameter all-gather";
  }
  return "?";
}

int Plan::add_stream(std::string name, StreamKind kind) {
  streams.push_back(Stream{std::move(name), kind});
  return static_cast<int>(streams.size()) - 1;
}

int Plan::add_buffer(Buffer b) {
  buffers.push_back(std::move(b));
  return static_cast<int>(buffers.size()) - 1;
}

int Plan::add_op(Op op) {
  ops.push_back(std::move(op));
  return static_cast<int>(ops.size()) - 1;
}

namespace {

Status bad(const std::string& what) { return Status::invalid_argument("invalid plan: " + what); }

std::string describe_work(const Work& w) {
  char buf[160];
  if (const auto* c = std::get_if<ComputeWork>(&w)) {
    std::snprintf(buf, sizeof buf, "compute %s ops %d-%d flops %lld bytes %lld",
                  std::string(pass_name(c->pass)).c_str(), c->first_model_op, c->last_model_op,
                  static_cast<long long>(c->flops), static_cast<long long>(c->hbm_bytes));
  } else if (const auto* k = std::get_if<CollectiveWork>(&w)) {
    std::snprintf(buf, sizeof buf, "%s %lld bytes over %d ranks",
                  std::string(collective_name(k->kind)).c_str(), static_cast<long long>(k->bytes),
                  k->group_size);
  } else if (const auto* m = std::get_if<MemoryWork>(&w)) {
    std::snprintf(buf, sizeof buf, "memory read %lld write %lld",
                  static_cast<long long>(m->bytes_read), static_cast<long long>(m->bytes_written));
  } else if (const auto* p = std::get_if<CopyWork>(&w)) {
    std::snprintf(buf, sizeof buf, "copy %s %lld bytes %s", p->host_to_device ? "h2d" : "d2h",
                  static_cast<long long>(p->bytes), p->pinned ? "pinned" : "pageable");
  } else if (const auto* o = std::get_if<OptimizerWork>(&w)) {
    std::snprintf(buf, sizeof buf, "optimizer %s numel %lld bytes %lld", o->on_cpu ? "cpu" : "gpu",
                  static_cast<long long>(o->numel), static_cast<long long>(o->bytes_touched));
  } else if (const auto* n = std::get_if<NvmeWork>(&w)) {
    std::snprintf(buf, sizeof buf, "nvme %s %lld bytes", n->read ? "read" : "write",
                  static_cast<long long>(n->bytes));
  } else {
    std::snprintf(buf, sizeof buf, "?");
  }
  return buf;
}

std::string ids(const std::vector<int>& v) {
  std::string out;
  for (int i : v) out += (out.empty() ? "" : ",") + std::to_string(i);
  return out.empty() ? "-" : out;
}

}  // namespace

Status validate(const Plan& plan) {
  const int n_ops = static_cast<int>(plan.ops.size());
  const int n_buf = static_cast<int>(plan.buffers.size());
  std::vector<int> alloc_at(n_buf, -1), free_at(n_buf, -1);
  for (int i = 0; i < n_ops; ++i) {
    const Op& op = plan.ops[i];
    const std::string where = "op " + std::to_string(i) + " \"" + op.name + "\"";
    if (op.stream < 0 || op.stream >= static_cast<int>(plan.streams.size())) {
      return bad(where + " runs on unknown stream " + std::to_string(op.stream));
    }
    for (int d : op.deps) {
      if (d < 0 || d >= i) return bad(where + " depends on op " + std::to_string(d));
    }
    for (int b : op.allocs) {
      if (b < 0 || b >= n_buf) return bad(where + " allocates unknown buffer");
      if (plan.buffers[b].persistent) return bad(where + " allocates a persistent buffer");
      if (alloc_at[b] >= 0) return bad(where + " allocates \"" + plan.buffers[b].name + "\" again");
      alloc_at[b] = i;
    }
    for (int b : op.frees) {
      if (b < 0 || b >= n_buf) return bad(where + " frees unknown buffer");
      if (plan.buffers[b].persistent) return bad(where + " frees a persistent buffer");
      if (alloc_at[b] < 0)
        return bad(where + " frees \"" + plan.buffers[b].name + "\" before it is allocated");
      if (free_at[b] >= 0) return bad(where + " frees \"" + plan.buffers[b].name + "\" twice");
      free_at[b] = i;
    }
  }
  for (int b = 0; b < n_buf; ++b) {
    if (plan.buffers[b].persistent) continue;
    if (alloc_at[b] < 0 || free_at[b] < 0) {
      return bad("buffer \"" + plan.buffers[b].name + "\" is " +
                 (alloc_at[b] < 0 ? "never allocated" : "never freed"));
    }
  }
  int next = 0;
  for (const Segment& s : plan.segments) {
    if (s.first_op != next || s.end_op < s.first_op || s.repeat < 1) {
      return bad("segment \"" + s.name + "\" does not continue the op list");
    }
    next = s.end_op;
    if (s.repeat == 1) continue;
    for (int b = 0; b < n_buf; ++b) {
      const bool in_a = alloc_at[b] >= s.first_op && alloc_at[b] < s.end_op;
      const bool in_f = free_at[b] >= s.first_op && free_at[b] < s.end_op;
      if (in_a != in_f) {
        return bad("repeated segment \"" + s.name + "\" does not free \"" + plan.buffers[b].name +
                   "\" that it allocates, or the reverse");
      }
    }
  }
  if (next != n_ops) return bad("segments do not cover every op");
  return Status::ok();
}

std::string to_text(const Plan& plan) {
  std::string out = "plan: " + plan.summary + "\n";
  for (const Segment& s : plan.segments) {
    out += "segment " + s.name + " ops " + std::to_string(s.first_op) + "-" +
           std::to_string(s.end_op - 1) + " x" + std::to_string(s.repeat) + "\n";
  }
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const Op& op = plan.ops[i];
    out += std::to_string(i) + " [" + plan.streams[op.stream].name + "] " +
           std::string(phase_name(op.phase)) + " " + op.name + ": " + describe_work(op.work) +
           " deps " + ids(op.deps) + " alloc " + ids(op.allocs) + " free " + ids(op.frees);
    if (op.transient_bytes > 0) out += " temp " + std::to_string(op.transient_bytes);
    out += "\n";
  }
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    const Buffer& buf = plan.buffers[b];
    out += "buffer " + std::to_string(b) + " " + buf.name + " " + std::to_string(buf.bytes) + " " +
           std::string(device_name(buf.device)) + " " + std::string(category_name(buf.category)) +
           (buf.persistent ? " persistent" : "") + (buf.model_state_bytes > 0 ? " model_state " + std::to_string(buf.model_state_bytes) : "") + "\n";
  }
  return out;
}

}  // namespace zs::plan
