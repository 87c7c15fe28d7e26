#include "sim/step_time.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <variant>

#include "common/check.h"
#include "common/overloaded.h"

namespace zs::sim {
namespace {

// Breakdown categories in priority order; kIdle when nothing runs.
enum Cat { kCompute, kOptimizer, kOtherGpu, kComm, kOffload, kIdle, kCats };

Cat category_of(const plan::Work& w) {
  return std::visit(Overloaded{
                        [](const plan::ComputeWork&) { return kCompute; },
                        [](const plan::OptimizerWork&) { return kOptimizer; },
                        [](const plan::MemoryWork&) { return kOtherGpu; },
                        [](const plan::CollectiveWork&) { return kComm; },
                        [](const plan::CopyWork&) { return kOffload; },
                        [](const plan::NvmeWork&) { return kOffload; },
                        [](const plan::SyncWork&) { return kIdle; },  // no device time
                    },
                    w);
}

struct Swept {
  double exposed[kCats] = {0, 0, 0, 0, 0, 0};  // seconds charged to each category
  // Busy seconds, overlapped or not (the sum of the ops' durations).
  double comm_busy_s = 0;
  double offload_busy_s = 0;
  double cpu_optimizer_s = 0;
};

// One pass over the engine's transition log, which is in time order. Every instant goes to the
// first category with a running op; a repeated segment's first repetition counts `repeat` times
// and the time its other repetitions were skipped over counts not at all.
Swept sweep(const plan::Plan& plan, const EngineResult& r) {
  // The weight of time before each end_ns (and after the previous one).
  struct Span {
    std::int64_t end_ns;
    double weight;
  };
  std::vector<Span> spans;
  for (const SegmentTime& s : r.segments) {
    if (s.repeat == 1) continue;
    spans.push_back({s.start_ns, 1.0});
    spans.push_back({s.start_ns + s.period_ns, static_cast<double>(s.repeat)});
    spans.push_back({s.start_ns + s.repeat * s.period_ns, 0.0});
  }
  spans.push_back({r.step_ns, 1.0});
  Swept out;
  int active[kCats] = {0, 0, 0, 0, 0, 0};
  int cpu_optimizers = 0;
  std::size_t span = 0;
  std::int64_t prev = 0;
  // Adds [prev, t) to the highest-priority active category, split at weight boundaries.
  auto advance_to = [&](std::int64_t t) {
    if (t <= prev) return;  // transitions at one instant (an op ends, the next starts)
    int c = kIdle;
    for (int k = 0; k < kIdle; ++k) {
      if (active[k] > 0) {
        c = k;
        break;
      }
    }
    while (prev < t) {
      while (span + 1 < spans.size() && spans[span].end_ns <= prev) ++span;
      const std::int64_t until = spans[span].end_ns > prev ? std::min(t, spans[span].end_ns) : t;
      const double s = static_cast<double>(until - prev) * 1e-9 * spans[span].weight;
      out.exposed[c] += s;
      out.comm_busy_s += s * active[kComm];
      out.offload_busy_s += s * active[kOffload];
      out.cpu_optimizer_s += s * cpu_optimizers;
      prev = until;
    }
  };
  for (const Transition& tr : r.transitions) {
    ZS_CHECK(tr.t_ns >= prev);
    advance_to(tr.t_ns);
    const plan::Work& w = plan.ops[tr.op].work;
    const Cat c = category_of(w);
    if (c != kIdle) active[c] += tr.delta;
    if (const auto* o = std::get_if<plan::OptimizerWork>(&w); o != nullptr && o->on_cpu) {
      cpu_optimizers += tr.delta;
    }
  }
  advance_to(r.step_ns);
  return out;
}

// The host's time per kind, from the priced ops (cost_ops) and their segments' repeats.
HostTime host_time(const plan::Plan& plan, const ModelOpTimes& m, const PricedPlan& priced,
                   const CostProfile& p) {
  HostTime h;
  const std::array<double, plan::kHostTaskCount> call_s = host_call_seconds(p);
  for (const plan::Segment& seg : plan.segments) {
    const double r = seg.repeat;
    for (int i = seg.first_op; i < seg.end_op; ++i) {
      const plan::Op& op = plan.ops[i];
      const OpCost& c = priced.costs[i];
      for (const plan::HostCall& hc : op.host_calls.calls()) {
        const int k = static_cast<int>(hc.task);
        const double s = hc.count * call_s[k];
        h.task_s[k] += r * s;
        h.task_calls[k] += static_cast<std::int64_t>(seg.repeat) * hc.count;
      }
      const double own = c.host_s;  // launches, or a sync's round trips
      if (std::holds_alternative<plan::SyncWork>(op.work)) {
        h.sync_s += r * own;
      } else {
        h.launch_s += r * own;
        if (const auto* w = std::get_if<plan::ComputeWork>(&op.work)) {
          const auto& pc =
              w->pass == plan::Pass::kBackward ? m.bwd_prefix_calls : m.fwd_prefix_calls;
          h.model_calls += seg.repeat * (pc[w->last_model_op + 1] - pc[w->first_model_op]);
        }
      }
      h.sync_s += r * c.host_wait_s;
    }
  }
  h.busy_s = h.launch_s + h.sync_s;
  for (double s : h.task_s) h.busy_s += s;
  return h;
}

// The offload's parts from the priced ops, repeated segments counted as often as they run.
OffloadTime offload_time(const plan::Plan& plan, const PricedPlan& priced) {
  OffloadTime o;
  for (const plan::Segment& seg : plan.segments) {
    for (int i = seg.first_op; i < seg.end_op; ++i) {
      const OpCost& c = priced.costs[i];
      if (const auto* w = std::get_if<plan::OptimizerWork>(&plan.ops[i].work); w && w->on_cpu) {
        o.cpu_s += seg.repeat * c.fixed_s;
        o.cpu_bytes += seg.repeat * static_cast<double>(w->bytes_touched);
      } else if (const auto* cw = std::get_if<plan::CopyWork>(&plan.ops[i].work)) {
        const double bytes = seg.repeat * static_cast<double>(cw->bytes);
        const double s = c.rate_cap > 0 ? bytes / c.rate_cap : 0;
        (cw->host_to_device ? o.to_device_bytes : o.to_host_bytes) += bytes;
        (cw->host_to_device ? o.to_device_s : o.to_host_s) += s;
      }
    }
  }
  o.cpu_bytes_per_s = priced.cpu_adam_bytes_per_s;
  o.cpu_cores = priced.cpu_cores_per_rank;
  return o;
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
    s = "The CPU optimizer is on the critical path: DeepSpeedCPUAdam with its unscale and cast "
        "passes takes " +
        secs(t.cpu_optimizer_s) + " of the " + secs(step) + " step (" +
        pct(t.cpu_optimizer_s, step) + ") at " +
        std::to_string(static_cast<int>(t.cpu_adam_bytes_per_s / 1e9)) + " GB/s per rank on " +
        std::to_string(t.offload.cpu_cores) +
        " cores, and nothing overlaps it. More CPU cores per GPU (deepspeed "
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
        pct(b.exposed_offload_s, step) + ") of host-device copies are not hidden.";
    // Only the knobs this config has and has not already set.
    std::vector<std::string> moves;
    const bool unpinned =
        (l.offload_optimizer && !l.pin_optimizer) || (l.offload_param && !l.pin_param);
    if (unpinned) moves.push_back("pinned buffers (pin_memory: true)");
    if (l.offload_param) {
      moves.push_back("keeping the parameters on the GPU (offload_param off) if they fit");
    }
    if (l.optimizer_on_nvme || l.param_on_nvme) moves.push_back("the CPU instead of NVMe");
    if (moves.empty()) {
      s += " Fewer bytes to copy (more GPUs to shrink each rank's partition, or the optimizer "
           "kept on the GPU if it fits) would move it.";
    } else {
      std::string list;
      for (std::size_t k = 0; k < moves.size(); ++k) {
        if (k > 0) list += k + 1 == moves.size() ? " or " : ", ";
        list += moves[k];
      }
      list[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(list[0])));
      s += " " + list + " would move it.";
    }
  } else if (t.host.gpu_idle_s >= kHostBoundIdleFraction * step) {
    // The host's largest part.
    std::string what = "the model's " + std::to_string(t.host.model_calls) +
                       " ATen calls and their modules (" + secs(t.host.launch_s) + ")";
    double largest = t.host.launch_s;
    for (int k = 0; k < plan::kHostTaskCount; ++k) {
      if (t.host.task_s[k] > largest) {
        largest = t.host.task_s[k];
        what = "DeepSpeed's " + std::string(plan::host_task_name(static_cast<plan::HostTask>(k))) +
               " (" + std::to_string(t.host.task_calls[k]) + " calls, " + secs(t.host.task_s[k]) +
               ")";
      }
    }
    s = "The host is on the critical path: for " + secs(t.host.gpu_idle_s) + " (" +
        pct(t.host.gpu_idle_s, step) + ") the GPU waits for the host, whose largest part is " +
        what + " of " + secs(t.host.busy_s) + " of host time.";
    if (l.stage == 3 && t.host.task_s[static_cast<int>(plan::HostTask::kModuleVisit)] == largest) {
      s += " ZeRO-3 runs Python hooks on every module, forward and backward; stage 1 or 2 "
           "(if the model states fit), a larger micro-batch, or fewer, larger modules move it.";
    } else {
      // The host's work per step hardly depends on the micro-batch (the same calls on larger
      // tensors) while the GPU's grows with it: the micro-batch whose GPU work would cover it.
      const double gpu_busy = step - t.host.gpu_idle_s;
      std::int64_t mb = l.micro_batch;
      while (gpu_busy > 0 && static_cast<double>(mb) / l.micro_batch * gpu_busy < t.host.busy_s &&
             mb < (std::int64_t{1} << 20)) {
        mb *= 2;
      }
      s += " A larger micro-batch makes each launch and hook worth more";
      if (gpu_busy > 0 && mb > l.micro_batch) {
        s += ": at about " + std::to_string(mb) + " (now " + std::to_string(l.micro_batch) +
             ") the GPU's work would cover the host's, if it fits in memory";
      }
      s += ".";
    }
  } else if (b.other_s > 0.25 * step) {
    s = "Other GPU work is on the critical path: for " + secs(b.other_s) + " (" +
        pct(b.other_s, step) +
        ") the GPU runs casts, copies and norms rather than model "
        "kernels.";
  } else {
    s = "Compute-bound: model kernels take " + secs(b.compute_s) + " (" + pct(b.compute_s, step) +
        ") of the step, at " + pct(t.mfu, 1.0) + " MFU. Only faster kernels (" +
        (l.graph->workload.flash_attention ? std::string()
                                           : std::string("fused (flash) attention, ")) +
        "larger GEMMs from a larger micro-batch)" +
        (l.checkpointing ? std::string(" or fewer recomputed layers") : std::string()) +
        " would move it; communication is hidden.";
  }
  // Worth saying whatever bounds the step when it is a tenth of a micro-step's compute or more.
  const ModelOpTimes& m = t.priced_model->times;
  const double micro_compute_s = m.fwd_prefix_s.back() + m.bwd_prefix_s.back();
  if (m.unaligned_extra_s > 0.1 * (micro_compute_s - m.unaligned_extra_s)) {
    s += " GEMMs with a dimension off cuBLAS's 16-byte alignment (8 elements in fp16/bf16; " +
         m.unaligned_example + ") run on cuBLAS's unaligned kernels, " + secs(m.unaligned_extra_s) +
         " slower per forward and backward than aligned ones; a vocabulary padded to a multiple "
         "of 64 (GPT-2: 50304) removes that.";
  }
  return s;
}

}  // namespace

Result<StepTime> simulate_step_time(const StepTimeRequest& req) {
  const plan::Plan& plan = req.built->plan;
  const plan::Layout& l = req.built->layout;
  const plan::ModelGraph& graph = *l.graph;
  StepTime st;
  st.priced_model =
      price_model(l.graph, req.cluster->gpu, l.precision, *req.profile, req.priced_model);
  st.priced =
      cost_ops(plan, st.priced_model->times, *req.cluster, *req.profile, req.collective_slowdown);
  st.cpu_adam_bytes_per_s = st.priced.cpu_adam_bytes_per_s;
  EngineOptions eo;
  eo.record = req.record_ops;
  eo.record_transitions = true;
  // A CPU rank is its own host: it runs each op as it issues it (configs::GpuSpec::backend).
  const bool serial = req.cluster->gpu.backend == "cpu";
  eo.serial = serial;
  st.cpu_backend = serial;
  ZS_ASSIGN_OR_RETURN(st.timeline, run_engine(plan, st.priced.costs, st.priced.links, eo));
  st.step_s = static_cast<double>(st.timeline.step_ns) * 1e-9;
  st.drained_repeats = st.timeline.drained_repeats;

  const Swept swept = sweep(plan, st.timeline);
  // Compute ops stretched by the host are the GPU waiting for it: host time, not compute.
  const double host_bound_s = std::min(
      swept.exposed[kCompute], static_cast<double>(st.timeline.compute_host_bound_ns) * 1e-9);
  st.breakdown.compute_s = swept.exposed[kCompute] - host_bound_s;
  st.breakdown.optimizer_s = swept.exposed[kOptimizer];
  st.breakdown.exposed_comm_s = swept.exposed[kComm];
  st.breakdown.exposed_offload_s = swept.exposed[kOffload];
  st.breakdown.other_s = swept.exposed[kOtherGpu] + swept.exposed[kIdle] + host_bound_s;
  st.host = host_time(plan, st.priced_model->times, st.priced, *req.profile);
  st.host.gpu_idle_s = swept.exposed[kIdle] + host_bound_s;
  st.comm_busy_s = swept.comm_busy_s;
  st.offload_busy_s = swept.offload_busy_s;
  st.cpu_optimizer_s = swept.cpu_optimizer_s;
  if (!serial && (l.offload_optimizer || l.offload_param)) {
    st.offload = offload_time(plan, st.priced);
    st.offload.exposed_copies_s = st.breakdown.exposed_offload_s;
  }

  st.overflow_possible = l.precision == configs::Precision::kFp16;
  if (st.overflow_possible) {
    EngineOptions ov;
    ov.overflow = true;
    ov.serial = serial;
    ZS_ASSIGN_OR_RETURN(const EngineResult skipped,
                        run_engine(plan, st.priced.costs, st.priced.links, ov));
    st.overflow_step_s = static_cast<double>(skipped.step_ns) * 1e-9;
  }

  double fwd_flops = 0;
  for (const models::Op& op : graph.ops) fwd_flops += static_cast<double>(op.cost.fwd_flops);
  st.model_flops = 3.0 * fwd_flops * l.micro_steps;
  if (st.step_s > 0) {
    st.samples_per_s = static_cast<double>(req.train_batch_size) / st.step_s;
    st.tokens_per_s = st.samples_per_s * static_cast<double>(l.seq_len);
    st.tflops_per_gpu = st.model_flops / st.step_s / 1e12;
    st.mfu = st.model_flops / st.step_s / peak_flops(req.cluster->gpu, l.precision);
  }
  st.bottleneck = explain(st, l);
  return st;
}

}  // namespace zs::sim
