#include "sim/trace.h"

#include <cstdio>
#include <fstream>

namespace zs::sim {
namespace {

void append_escaped(std::string* out, std::string_view s) {
  for (char c : s) {
    if (c == '"' || c == '\\') out->push_back('\\');
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out->push_back(c);
  }
}

// Microseconds with nanosecond precision, as the format expects.
std::string us(std::int64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%lld.%03lld", static_cast<long long>(ns / 1000),
                static_cast<long long>(ns % 1000));
  return b;
}

}  // namespace

std::string trace_json(const plan::Plan& plan, const StepTime& time) {
  const EngineResult& r = time.timeline;
  const int n_streams = static_cast<int>(plan.streams.size());
  const int link_tid0 = n_streams;
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  auto meta = [&](int tid, std::string_view name) {
    out += "{\"ph\":\"M\",\"pid\":0,\"tid\":" + std::to_string(tid) +
           ",\"name\":\"thread_name\",\"args\":{\"name\":\"";
    append_escaped(&out, name);
    out += "\"}},\n";
  };
  out += "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"rank (simulated)\"}},\n";
  for (int s = 0; s < n_streams; ++s) meta(s, "stream " + plan.streams[s].name);
  for (std::size_t k = 0; k < time.priced.links.size(); ++k) {
    meta(link_tid0 + static_cast<int>(k), "link " + time.priced.links[k].name);
  }
  // Ops, once per repetition.
  std::vector<int> seg_of(plan.ops.size(), 0);
  for (std::size_t s = 0; s < plan.segments.size(); ++s) {
    for (int i = plan.segments[s].first_op; i < plan.segments[s].end_op; ++i) {
      seg_of[i] = static_cast<int>(s);
    }
  }
  // GPU memory: persistent buffers, then each op's allocations at its issue time.
  const plan::BufferEvents ev = plan::buffer_events(plan);
  std::int64_t allocated = 0;
  for (const plan::Buffer& b : plan.buffers) {
    if (b.persistent && b.device == plan::Device::kGpu) allocated += b.bytes;
  }
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const OpTime& t = r.ops[i];
    const plan::Op& op = plan.ops[i];
    const std::size_t si = static_cast<std::size_t>(seg_of[i]);
    const SegmentTime st = si < r.segments.size() ? r.segments[si] : SegmentTime{};
    for (int k = 0; k < st.repeat; ++k) {
      const std::int64_t shift = k * st.period_ns;
      if (t.end_ns > t.start_ns || std::holds_alternative<plan::SyncWork>(op.work)) {
        out += "{\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(op.stream) +
               ",\"ts\":" + us(t.start_ns + shift) + ",\"dur\":" + us(t.end_ns - t.start_ns) +
               ",\"name\":\"";
        append_escaped(&out, plan.op_name(static_cast<int>(i)));
        out += "\",\"args\":{\"op\":" + std::to_string(i) + ",\"work\":\"";
        append_escaped(&out, plan::describe_work(op.work));
        out += "\",\"issued_us\":" + us(t.issue_ns + shift) + "}},\n";
      }
      if (t.flow_start_ns >= 0) {
        const int link = time.priced.costs[i].link;
        out += "{\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(link_tid0 + link) +
               ",\"ts\":" + us(t.flow_start_ns + shift) +
               ",\"dur\":" + us(t.end_ns - t.flow_start_ns) + ",\"name\":\"";
        append_escaped(&out, plan.op_name(static_cast<int>(i)));
        out += "\"},\n";
      }
      Bytes delta = 0;
      for (int b : ev.allocs(static_cast<int>(i))) {
        if (plan.buffers[b].device == plan::Device::kGpu) delta += plan.buffers[b].bytes;
      }
      for (int b : ev.frees(static_cast<int>(i))) {
        if (plan.buffers[b].device == plan::Device::kGpu) delta -= plan.buffers[b].bytes;
      }
      if (delta != 0 || i == 0) {
        allocated += delta;
        out += "{\"ph\":\"C\",\"pid\":0,\"name\":\"gpu memory allocated\",\"ts\":" +
               us(t.issue_ns + shift) + ",\"args\":{\"bytes\":" + std::to_string(allocated) +
               "}},\n";
      }
    }
  }
  out += "{\"ph\":\"i\",\"pid\":0,\"tid\":0,\"s\":\"g\",\"name\":\"step end\",\"ts\":" +
         us(r.step_ns) + "}\n]}\n";
  return out;
}

Status write_trace(const std::string& path, const plan::Plan& plan, const StepTime& time) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return Status::io_error("cannot write the trace to \"" + path + "\"");
    f << trace_json(plan, time);
    if (!f.flush()) {
      std::remove(tmp.c_str());
      return Status::io_error("cannot write the trace to \"" + path + "\"");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status::io_error("cannot write the trace to \"" + path + "\"");
  }
  return Status::ok();
}

}  // namespace zs::sim
