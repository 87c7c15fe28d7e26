#include "sim/step_time.h"

#include <algorithm>
#include <cstdio>

namespace zs::sim {
namespace {

// Breakdown categories in priority order; kIdle when nothing runs.
enum Cat { kCompute, kOptimizer, kOtherGpu, kComm, kOffload, kIdle, kCats };

Cat category_of(const plan::Work& w) {
  if (std::holds_alternative<plan::ComputeWork>(w)) return kCompute;
  if (std::holds_alternative<plan::OptimizerWork>(w)) return kOptimizer;
  if (std::holds_alternative<plan::MemoryWork>(w)) return kOtherGpu;
  if (std::holds_alternative<plan::CollectiveWork>(w)) return kComm;
  if (std::holds_alternative<plan::CopyWork>(w) || std::holds_alternative<plan::NvmeWork>(w)) {
    return kOffload;
  }
  return kIdle;  // syncs take no device time
}

struct Point {
  std::int64_t t;
  int delta;  // +1 start, -1 end, 0 boundary
  int cat;
};

// Seconds per category over the step; a repeated segment's first repetition counts `repeat`
// times and the time its other repetitions were skipped over counts not at all.
std::vector<double> sweep(const plan::Plan& plan, const EngineResult& r) {
  std::vector<Point> pts;
  pts.reserve(2 * plan.ops.size() + 2 * r.segments.size() + 2);
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const OpTime& t = r.ops[i];
    const Cat c = category_of(plan.ops[i].work);
    if (c == kIdle || t.end_ns <= t.start_ns) continue;
    pts.push_back({t.start_ns, +1, c});
    pts.push_back({t.end_ns, -1, c});
  }
  for (const SegmentTime& s : r.segments) {
    pts.push_back({s.start_ns, 0, 0});
    pts.push_back({s.start_ns + s.period_ns, 0, 0});
  }
  pts.push_back({r.step_ns, 0, 0});
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) {
    return a.t != b.t ? a.t < b.t : a.delta < b.delta;
  });
  auto weight = [&](std::int64_t t) {
    for (const SegmentTime& s : r.segments) {
      if (s.repeat == 1) continue;
      if (t >= s.start_ns && t < s.start_ns + s.period_ns) return static_cast<double>(s.repeat);
      if (t >= s.start_ns + s.period_ns && t < s.start_ns + s.repeat * s.period_ns) return 0.0;
    }
    return 1.0;
  };
  std::vector<double> out(kCats, 0.0);
  int active[kCats] = {0, 0, 0, 0, 0, 0};
  std::int64_t prev = 0;
  for (const Point& p : pts) {
    if (p.t > prev) {
      int c = kIdle;
      for (int k = 0; k < kIdle; ++k) {
        if (active[k] > 0) {
          c = k;
          break;
        }
      }
      out[c] += static_cast<double>(p.t - prev) * 1e-9 * weight(prev);
      prev = p.t;
    }
    if (p.delta != 0) active[p.cat] += p.delta;
  }
  return out;
}

std::string pct(double part, double whole) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return b;
}

std::string secs(double s) {
  char b[32];
  if (s >= 1) {
    std::snprintf(b, sizeof b, "%.2f s", s);
  } else {
    std::snprintf(b, sizeof b, "%.1f ms", s * 1e3);
  }
  return b;
}

std::string explain(const StepTime& t, const plan::Layout& l) {
  const TimeBreakdown& b = t.breakdown;
  const double step = t.step_s;
  std::string s;
  if (t.cpu_optimizer_s > 0.2 * step) {
    s = "The CPU optimizer is on the critical path: DeepSpeedCPUAdam takes " +
        secs(t.cpu_optimizer_s) + " of the " + secs(step) + " step (" +
        pct(t.cpu_optimizer_s, step) + ") at " + std::to_string(static_cast<int>(
                                                     t.cpu_adam_bytes_per_s / 1e9)) +
        " GB/s per rank, and nothing overlaps it. More CPU cores per GPU (deepspeed "
        "--bind_cores_to_rank), more GPUs to shrink each rank's partition, or keeping the "
        "optimizer on the GPU would move it; a larger gradient accumulation spreads it over "
        "more samples.";
  } else if (b.exposed_comm_s > 0.2 * step) {
    s = "Communication is on the critical path: " + secs(b.exposed_comm_s) + " (" +
        pct(b.exposed_comm_s, step) + ") of collectives run with no compute to hide them, out of " +
        secs(t.comm_busy_s) + " of communication in all.";
    if (!l.overlap_comm && l.stage > 0) {
      s += " overlap_comm is off, so reductions wait on the compute stream; turning it on lets "
           "them run during backward.";
    } else if (l.stage == 3) {
      s += " Larger stage3_prefetch_bucket_size / reduce_bucket_size cut per-collective "
           "latency; a larger micro-batch gives each gathered byte more compute.";
    } else {
      s += " A larger micro-batch or gradient accumulation gives each reduced byte more "
           "compute; the NICs between nodes are the usual limit.";
    }
  } else if (b.exposed_offload_s > 0.2 * step) {
    s = "PCIe/NVMe traffic is on the critical path: " + secs(b.exposed_offload_s) + " (" +
        pct(b.exposed_offload_s, step) +
        ") of host-device copies are not hidden. Pinned buffers (pin_memory) and fewer "
        "offloaded tensors would move it.";
  } else if (b.other_s > 0.25 * step) {
    s = "The host is on the critical path: for " + secs(b.other_s) + " (" + pct(b.other_s, step) +
        ") the GPU runs no model kernel, waiting for Python to launch kernels and for host "
        "syncs, or running casts and copies. A larger micro-batch makes each launch worth more.";
  } else {
    s = "Compute-bound: model kernels take " + secs(b.compute_s) + " (" + pct(b.compute_s, step) +
        ") of the step, at " + pct(t.mfu, 1.0) +
        " MFU. Only faster kernels (flash attention, larger GEMMs from a larger micro-batch) or "
        "fewer recomputed layers would move it; communication is hidden.";
  }
  return s;
}

}  // namespace

StepTime simulate_step_time(const StepTimeRequest& req) {
  const plan::Plan& plan = req.built->plan;
  const plan::Layout& l = req.built->layout;
  const plan::ModelGraph& graph = *l.graph;
  StepTime st;
  const ModelOpTimes model_ops = time_model_ops(graph, req.cluster->gpu, *req.profile);
  st.priced = cost_ops(plan, model_ops, *req.cluster, *req.profile, req.collective_slowdown);
  st.cpu_adam_bytes_per_s = st.priced.cpu_adam_bytes_per_s;
  EngineOptions eo;
  eo.record = true;
  st.timeline = run_engine(plan, st.priced.costs, st.priced.links, eo);
  st.step_s = static_cast<double>(st.timeline.step_ns) * 1e-9;
  st.drained_repeats = st.timeline.drained_repeats;

  const std::vector<double> cats = sweep(plan, st.timeline);
  st.breakdown.compute_s = cats[kCompute];
  st.breakdown.optimizer_s = cats[kOptimizer];
  st.breakdown.exposed_comm_s = cats[kComm];
  st.breakdown.exposed_offload_s = cats[kOffload];
  st.breakdown.other_s = cats[kOtherGpu] + cats[kIdle];
  // Busy time: the ops of a repeated segment count once per repetition.
  for (const plan::Segment& seg : plan.segments) {
    for (int i = seg.first_op; i < seg.end_op; ++i) {
      const OpTime& t = st.timeline.ops[i];
      const double d = static_cast<double>(t.end_ns - t.start_ns) * 1e-9 * seg.repeat;
      const plan::Work& w = plan.ops[i].work;
      if (std::holds_alternative<plan::CollectiveWork>(w)) st.comm_busy_s += d;
      if (category_of(w) == kOffload) st.offload_busy_s += d;
      if (const auto* o = std::get_if<plan::OptimizerWork>(&w); o != nullptr && o->on_cpu) {
        st.cpu_optimizer_s += d;
      }
    }
  }

  st.overflow_possible = l.precision == configs::Precision::kFp16;
  if (st.overflow_possible) {
    EngineOptions ov;
    ov.overflow = true;
    st.overflow_step_s =
        static_cast<double>(run_engine(plan, st.priced.costs, st.priced.links, ov).step_ns) * 1e-9;
  }

  double fwd_flops = 0;
  for (const models::Op& op : graph.ops) fwd_flops += static_cast<double>(op.cost.fwd_flops);
  const double model_flops = 3.0 * fwd_flops * l.micro_steps;
  if (st.step_s > 0) {
    st.samples_per_s = static_cast<double>(req.train_batch_size) / st.step_s;
    st.tokens_per_s = st.samples_per_s * static_cast<double>(l.seq_len);
    st.tflops_per_gpu = model_flops / st.step_s / 1e12;
    st.mfu = model_flops / st.step_s / peak_flops(req.cluster->gpu, graph.workload.act_bytes);
  }
  st.bottleneck = explain(st, l);
  return st;
}

}  // namespace zs::sim
