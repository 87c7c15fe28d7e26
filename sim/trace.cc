#include "sim/trace.h"

#include <cstdio>

#include "common/output_file.h"

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

// The repetitions of a segment that a trace draws: all of them up to kDrawnRepetitions, else
// the first kDrawnRepetitions - 1 and the last (every repetition is the same, so the trace stays
// the size of one micro-step's ops however long the gradient accumulation).
std::vector<int> drawn_repetitions(int repeat) {
  std::vector<int> shown;
  for (int k = 0; k < repeat && k < kDrawnRepetitions - 1; ++k) shown.push_back(k);
  if (repeat >= kDrawnRepetitions) shown.push_back(repeat - 1);
  return shown;
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
  out +=
      "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"rank "
      "(simulated)\"}},\n";
  for (int s = 0; s < n_streams; ++s) meta(s, "stream " + plan.streams[s].name);
  for (std::size_t k = 0; k < time.priced.links.size(); ++k) {
    meta(link_tid0 + static_cast<int>(k), "link " + time.priced.links[k].name);
  }
  // The host's waits before launches (Op::host_wait_for) get a track of their own.
  const int wait_tid = link_tid0 + static_cast<int>(time.priced.links.size());
  meta(wait_tid, "host waits");
  // The host issuing each op: launching its kernels and the DeepSpeed hooks that run first.
  const int issue_tid = wait_tid + 1;
  meta(issue_tid, "host issues (launches, DeepSpeed hooks)");
  // A track for the repetitions not drawn, only when some are folded.
  const int folded_tid = issue_tid + 1;
  for (const SegmentTime& st : r.segments) {
    if (st.repeat > kDrawnRepetitions) {
      meta(folded_tid, "folded repetitions");
      break;
    }
  }
  // GPU memory: persistent buffers, then each op's allocations at its issue time.
  const plan::BufferEvents ev = plan::buffer_events(plan);
  std::int64_t allocated = 0;
  for (const plan::Buffer& b : plan.buffers) {
    if (b.persistent && b.device == plan::Device::kGpu) allocated += b.bytes;
  }
  // One op's events, its segment's repetition shifted by `shift`.
  auto emit_op = [&](int i, std::int64_t shift, Bytes memory_delta) {
    const OpTime& t = r.ops[i];
    const plan::Op& op = plan.ops[i];
    if (t.end_ns > t.start_ns || std::holds_alternative<plan::SyncWork>(op.work)) {
      out += "{\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(op.stream) +
             ",\"ts\":" + us(t.start_ns + shift) + ",\"dur\":" + us(t.end_ns - t.start_ns) +
             ",\"name\":\"";
      append_escaped(&out, plan.op_name(i));
      out += "\",\"args\":{\"op\":" + std::to_string(i) + ",\"work\":\"";
      append_escaped(&out, plan::describe_work(op.work));
      out += "\",\"issued_us\":" + us(t.issue_ns + shift) + "}},\n";
    }
    // DeepSpeed's calls before the launch (and before any wait), then the launch itself.
    const auto before_ns = static_cast<std::int64_t>(time.priced.costs[i].host_before_s * 1e9);
    if (t.issue_ns >= 0 && before_ns > 0) {
      const std::int64_t end = t.wait_ns >= 0 ? t.wait_ns : t.issue_ns;
      out += "{\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(issue_tid) +
             ",\"ts\":" + us(end - before_ns + shift) + ",\"dur\":" + us(before_ns) +
             ",\"name\":\"DeepSpeed before ";
      append_escaped(&out, plan.op_name(i));
      out += "\",\"args\":{";
      std::string args;
      for (const plan::HostCall& c : op.host_calls.calls()) {
        args += (args.empty() ? "\"" : ",\"") + std::string(plan::host_task_name(c.task)) +
                "\":" + std::to_string(c.count);
      }
      out += args + "}},\n";
    }
    const double host_s = time.priced.costs[i].host_s;
    if (t.issue_ns >= 0 && host_s > 0) {
      out += "{\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(issue_tid) +
             ",\"ts\":" + us(t.issue_ns + shift) +
             ",\"dur\":" + us(static_cast<std::int64_t>(host_s * 1e9)) + ",\"name\":\"issue ";
      append_escaped(&out, plan.op_name(i));
      out += "\"},\n";
    }
    if (t.wait_ns >= 0 && t.issue_ns > t.wait_ns) {
      out += "{\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(wait_tid) +
             ",\"ts\":" + us(t.wait_ns + shift) + ",\"dur\":" + us(t.issue_ns - t.wait_ns) +
             ",\"name\":\"wait for op " + std::to_string(op.host_wait_for) + " before ";
      append_escaped(&out, plan.op_name(i));
      out += "\"},\n";
    }
    if (t.flow_start_ns >= 0) {
      const int link = time.priced.costs[i].link;
      out += "{\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(link_tid0 + link) +
             ",\"ts\":" + us(t.flow_start_ns + shift) +
             ",\"dur\":" + us(t.end_ns - t.flow_start_ns) + ",\"name\":\"";
      append_escaped(&out, plan.op_name(i));
      out += "\"},\n";
    }
    if (memory_delta != 0 || i == 0) {
      allocated += memory_delta;
      out += "{\"ph\":\"C\",\"pid\":0,\"name\":\"gpu memory allocated\",\"ts\":" +
             us(t.issue_ns + shift) + ",\"args\":{\"bytes\":" + std::to_string(allocated) + "}},\n";
    }
  };
  // Ops, once per drawn repetition of their segment (segments tile the ops in order); the
  // repetitions not drawn are one span on the "folded" track.
  for (std::size_t si = 0; si < plan.segments.size(); ++si) {
    const SegmentTime& st = r.segments[si];
    const std::vector<int> shown = drawn_repetitions(st.repeat);
    for (int i = plan.segments[si].first_op; i < plan.segments[si].end_op; ++i) {
      Bytes delta = 0;
      for (int b : ev.allocs(i)) {
        if (plan.buffers[b].device == plan::Device::kGpu) delta += plan.buffers[b].bytes;
      }
      for (int b : ev.frees(i)) {
        if (plan.buffers[b].device == plan::Device::kGpu) delta -= plan.buffers[b].bytes;
      }
      for (int k : shown) emit_op(i, k * st.period_ns, delta);
    }
    if (static_cast<int>(shown.size()) < st.repeat) {
      const int first_hidden = kDrawnRepetitions - 1;
      const int hidden = st.repeat - kDrawnRepetitions;
      out += "{\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(folded_tid) +
             ",\"ts\":" + us(st.start_ns + first_hidden * st.period_ns) +
             ",\"dur\":" + us(hidden * st.period_ns) + ",\"name\":\"" + std::to_string(hidden) +
             " more repetitions of segment " + std::to_string(si) + ", each " + us(st.period_ns) +
             " us like the first\"},\n";
    }
  }
  out += "{\"ph\":\"i\",\"pid\":0,\"tid\":0,\"s\":\"g\",\"name\":\"step end\",\"ts\":" +
         us(r.step_ns) + "}\n]}\n";
  return out;
}

Status write_trace(const std::string& path, const plan::Plan& plan, const StepTime& time) {
  return write_output_file(path, trace_json(plan, time)).with_context("--trace");
}

}  // namespace zs::sim
