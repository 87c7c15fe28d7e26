#include "reports/simulate_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/json_writer.h"
#include "common/units.h"
#include "sim/expert_share.h"
#include "sim/uncertainty.h"

namespace zs::reports {
namespace {

using plan::Category;

constexpr Category kCategories[] = {Category::kParams,          Category::kGrads,
                                    Category::kOptimizerStates, Category::kActivations,
                                    Category::kBuffers,         Category::kOther};

std::string row(const std::string& name, const std::string& value, const std::string& note = "") {
  char buf[48];
  std::snprintf(buf, sizeof buf, "  %-18s %12s", name.c_str(), value.c_str());
  return buf + (note.empty() ? std::string() : "   " + note) + "\n";
}

std::string row(const std::string& name, Bytes bytes, const std::string& note = "") {
  return row(name, format_bytes(bytes), note);
}

std::string label(Category c) {
  std::string s(plan::category_name(c));
  for (char& ch : s) ch = ch == '_' ? ' ' : ch;
  return s;
}

std::string seconds_row(const std::string& name, double s, double step) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "  %-22s %10.2f ms  %5.1f%%\n", name.c_str(), s * 1e3,
                step > 0 ? 100.0 * s / step : 0.0);
  return buf;
}

// The host's time: launches, syncs and DeepSpeed's Python per kind, largest first.
std::string render_host_text(const sim::HostTime& h) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "  host time %.2f ms per step; the GPU waits for it %.2f ms:\n",
                h.busy_s * 1e3, h.gpu_idle_s * 1e3);
  std::string out = buf;
  struct Part {
    std::string name;
    double s;
    std::int64_t calls;
  };
  std::vector<Part> parts = {{"model ATen and module calls", h.launch_s, h.model_calls},
                             {"syncs with the GPU", h.sync_s, -1}};
  for (int k = 0; k < plan::kHostTaskCount; ++k) {
    if (h.task_calls[k] == 0) continue;
    parts.push_back(
        {"DeepSpeed " + std::string(plan::host_task_name(static_cast<plan::HostTask>(k))),
         h.task_s[k], h.task_calls[k]});
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [](const Part& a, const Part& b) { return a.s > b.s; });
  for (const Part& p : parts) {
    if (p.s <= 0) continue;
    if (p.calls >= 0) {
      std::snprintf(buf, sizeof buf, "    %-32s %9.2f ms  x %lld\n", p.name.c_str(), p.s * 1e3,
                    static_cast<long long>(p.calls));
    } else {
      std::snprintf(buf, sizeof buf, "    %-32s %9.2f ms\n", p.name.c_str(), p.s * 1e3);
    }
    out += buf;
  }
  return out;
}

std::string render_time_text(const sim::SimulationResult& r) {
  const sim::StepTime& t = r.time;
  const sim::TimeBreakdown& b = t.breakdown;
  std::string out = "\nStep time (one optimizer step, " +
                    std::to_string(r.built.layout.micro_steps) + " micro-step(s)):\n";
  out += seconds_row("compute", b.compute_s, t.step_s);
  out += seconds_row("optimizer", b.optimizer_s, t.step_s);
  out += seconds_row("exposed communication", b.exposed_comm_s, t.step_s);
  out += seconds_row("exposed offload", b.exposed_offload_s, t.step_s);
  out += seconds_row("other (host, casts)", b.other_s, t.step_s);
  out += seconds_row("step", t.step_s, t.step_s);
  const sim::Regime regime = sim::classify_regime(t, r.built.layout);
  const sim::Band band = sim::time_band(regime);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "  uncertainty: step time and throughput ±%.0f%%, a %s step (%.*s)\n",
                100 * band.fraction, std::string(sim::regime_name(regime)).c_str(),
                static_cast<int>(band.basis.size()), band.basis.data());
  out += buf;
  std::snprintf(buf, sizeof buf,
                "  throughput: %.2f samples/s, %.0f tokens/s, %.1f TFLOP/s per GPU, MFU %.1f%%\n",
                t.samples_per_s, t.tokens_per_s, t.tflops_per_gpu, 100.0 * t.mfu);
  out += buf;
  if (t.overflow_possible) {
    std::snprintf(buf, sizeof buf, "  a step the fp16 loss scaler skips takes %.2f ms\n",
                  t.overflow_step_s * 1e3);
    out += buf;
  }
  out += "  " + t.bottleneck + "\n";
  out += render_host_text(t.host);
  const sim::OffloadTime& o = t.offload;
  if (o.cpu_s > 0 || o.to_host_bytes > 0) {
    std::snprintf(buf, sizeof buf,
                  "  offload: CPU work %.2f ms (DeepSpeedCPUAdam, the unscale and cast passes: "
                  "%.2f GB at %.1f GB/s per rank on %d cores); gradients to the host %.2f GB "
                  "(%.2f ms alone), parameters back %.2f GB (%.2f ms alone), %.2f ms of copies "
                  "exposed\n",
                  o.cpu_s * 1e3, o.cpu_bytes / 1e9, o.cpu_bytes_per_s / 1e9, o.cpu_cores,
                  o.to_host_bytes / 1e9, o.to_host_s * 1e3, o.to_device_bytes / 1e9,
                  o.to_device_s * 1e3, o.exposed_copies_s * 1e3);
    out += buf;
  }
  out += "  (rates: " + r.profile.source + ")\n";
  return out;
}

// A mixture of experts' share of the step (sim/expert_share.h).
std::string render_experts_text(const sim::ExpertShare& e, const sim::SimulationResult& r) {
  const plan::Layout& l = r.built.layout;
  const models::MoeSpec& moe = l.graph->spec.moe;
  char buf[512];
  const std::string layers =
      moe.dense_layers > 0
          ? " in each layer after the first " + std::to_string(moe.dense_layers) + " (dense)"
          : " per layer";
  std::string out =
      "\nExperts (" + std::to_string(moe.num_experts) + layers + ", " +
      std::to_string(moe.experts_per_token) + " routed per token" +
      (moe.shared_expert_size > 0 ? ", and a shared expert of width " +
                                        std::to_string(moe.shared_expert_size) + " counted as dense"
                                  : "") +
      "):\n";
  std::snprintf(buf, sizeof buf, "of %s (%.1f%%); %s active per token; routers %s",
                format_grouped(e.params).c_str(), 100 * e.param_fraction,
                format_grouped(e.active_params).c_str(), format_grouped(e.router_params).c_str());
  out += row("parameters", format_grouped(e.expert_params), buf);
  out += row("model states", e.model_states_bytes,
             "per GPU: every expert's parameters, gradients and optimizer states, " +
                 std::to_string(static_cast<int>(std::lround(100 * e.param_fraction))) +
                 "% of the model states, however few are routed to");
  if (e.model_kernel_s > 0) {
    std::snprintf(buf, sizeof buf, "%.2f ms", e.kernel_s * 1e3);
    const std::string ms = buf;
    std::snprintf(buf, sizeof buf,
                  "of %.2f ms per micro-step (%.1f%%): routers, routing and the expert GEMMs, "
                  "forward and backward",
                  e.model_kernel_s * 1e3, 100 * e.kernel_s / e.model_kernel_s);
    out += row("GPU kernels", ms, buf);
  }
  std::string hooks;
  if (l.stage != 3) {
    hooks = "ZeRO-" + std::to_string(l.stage) + " hooks no modules (leaf modules are ZeRO-3's)";
  } else if (e.leaf_blocks == e.moe_blocks) {
    hooks = "each MoE block is a leaf module (" + std::to_string(e.leaf_blocks) +
            "; zero_optimization.leaf_module): gathered whole, its gradients reduced when its "
            "backward ends";
  } else if (e.leaf_blocks == 0) {
    hooks =
        "no MoE block is a leaf module: router and experts are fetched as separate "
        "modules, their gradients reduced as autograd finishes them";
  } else {
    hooks = std::to_string(e.leaf_blocks) + " of " + std::to_string(e.moe_blocks) +
            " MoE blocks are leaf modules (zero_optimization.leaf_module)";
  }
  out += "  ZeRO-3 hooks: " + hooks + "\n";
  return out;
}

// What the model load holds and why (plan/model_load.h).
std::string load_note(const plan::ModelLoad& load, int stage,
                      const sim::SimulationRequest& request) {
  const std::string stored(plan::load_dtype_name(load.stored));
  const std::string loaded(plan::load_dtype_name(load.loaded));
  const std::string flag =
      "--load-dtype " + std::string(plan::load_dtype_name(*request.load_dtype));
  const std::string ckpt =
      "the " + stored + " checkpoint" +
      (request.model.checkpoint_dtype.empty() ? " (no dtype stated: fp32)" : "");
  if (load.cast && stage < 3) {
    return std::to_string(request.cluster.gpus_per_node) + " ranks each hold the model in " +
           loaded + " while from_pretrained casts " + ckpt + " (" + flag +
           "), until initialize moves it to the GPU";
  }
  std::string note = "from_pretrained (" + flag + ") ";
  note += load.cast ? "copies " + ckpt + " module by module into zero.Init's GPU partitions"
                    : "maps " + ckpt + " without a copy";
  return note + "; its pages, " + format_bytes(load.page_cache_bytes) +
         " per node, are shared, reclaimable page cache";
}

}  // namespace

std::string render_simulation_text(const sim::SimulationResult& r,
                                   const sim::SimulationRequest& request) {
  const plan::Layout& l = r.built.layout;
  const plan::MemoryReport& m = r.memory;
  std::string out = "zerosim simulate " + r.config.document.source + "\n";
  out += "  " + r.built.plan.summary + "\n";
  out += "  " + request.model.name + ": " + format_grouped(r.params) + " parameters; cluster " +
         std::to_string(request.cluster.nodes) + " x " +
         std::to_string(request.cluster.gpus_per_node) + " " + request.cluster.preset +
         "; train_batch_size " + std::to_string(r.train_batch_size) + "; DeepSpeed " +
         request.check.version.str() + " rules\n";
  if (l.checkpointing) out += "  activation checkpointing: every layer\n";
  const bool flash = l.graph->workload.flash_attention;
  out += std::string("  attention: ") +
         (flash                     ? "fused (flash)"
          : request.flash_attention ? "eager (the model's attention has no SDPA path)"
                                    : "eager") +
         "; other kernels: " +
         (r.profile.kernel_style == sim::KernelStyle::kEager
              ? "eager (HF modules, one kernel per PyTorch op)"
              : "fused (one kernel per op)") +
         "\n";

  out += "\nGPU memory per rank, at its peak (" + std::string(plan::phase_name(m.peak_phase)) +
         ", op " + m.peak_op_name + "):\n";
  for (Category c : kCategories) {
    std::string note;
    if (c == Category::kOther) {
      // A CPU rank has neither (sim/simulate.cc leaves them out).
      note = (request.cluster.gpu.backend == "cpu"
                  ? std::string("no CUDA context or NCCL on CPU ranks")
                  : "CUDA context " + format_bytes(plan::kCudaContextBytes) + ", NCCL " +
                        format_bytes(plan::kNcclWorkspaceBytes)) +
             ", fragmentation allowance " +
             std::to_string(static_cast<int>(request.fragmentation * 100)) + "%";
    }
    out += row(label(c), m.gpu_at_peak[c], note);
  }
  const sim::Band memory_band = sim::memory_band();
  const std::string memory_pm =
      "±" + std::to_string(static_cast<int>(std::lround(100 * memory_band.fraction))) + "%";
  out += row("peak", m.gpu_peak_bytes, memory_pm + ", of " + format_bytes(m.gpu_capacity_bytes));
  if (m.gpu_oom) {
    out += row("reserved", "-", "none: the caching allocator runs out of memory before its peak");
  } else if (m.gpu_reserved_peak_bytes > 0) {
    out += row("reserved", m.gpu_reserved_peak_bytes,
               "PyTorch's caching allocator at its peak, context and NCCL included (nvidia-smi)");
  }
  out += row("model states", m.model_states_bytes,
             "parameters, gradients and optimizer states as the ZeRO paper counts them");
  out += "  uncertainty: memory " + memory_pm + " (" + std::string(memory_band.basis) + ")\n";
  if (m.gpu_oom && m.gpu_headroom_bytes < 0) {
    out += "  OUT OF MEMORY: " + format_bytes(-m.gpu_headroom_bytes) + " over the " +
           format_bytes(m.gpu_capacity_bytes) + " of each GPU\n";
  } else if (m.gpu_oom) {
    out += "  OUT OF MEMORY: the tensors fit (" + format_bytes(m.gpu_headroom_bytes) +
           " of headroom), but the caching allocator cannot place a " +
           format_bytes(m.gpu_failed_request_bytes) +
           " request in what its cached segments leave free\n";
  } else if (static_cast<double>(m.gpu_headroom_bytes) <
             memory_band.fraction * static_cast<double>(m.gpu_peak_bytes)) {
    out += "  fits, but only by " + format_bytes(m.gpu_headroom_bytes) +
           " per GPU, inside the peak's " + memory_pm + ": it may run out of memory\n";
  } else {
    out += "  fits: " + format_bytes(m.gpu_headroom_bytes) + " of headroom per GPU\n";
  }

  out += "\nHost memory per node (" + std::to_string(request.cluster.gpus_per_node) + " ranks):\n";
  for (Category c : kCategories) {
    if (m.host_at_peak[c] > 0) out += row(label(c), m.host_at_peak[c]);
  }
  out += row("peak", m.host_peak_bytes,
             memory_pm + ", of " + format_bytes(m.host_capacity_bytes) + " (" +
                 format_bytes(m.host_pinned_bytes) + " pinned)" +
                 (m.host_peak_at_load ? ", while the model loads" : ""));
  if (r.load) out += row("model load", m.host_load_bytes, load_note(*r.load, l.stage, request));
  if (m.nvme_bytes > 0) out += row("on NVMe", m.nvme_bytes);
  out += m.host_oom ? "  OUT OF HOST MEMORY\n" : "";
  out += render_time_text(r);
  if (const auto e = sim::expert_share(r)) out += render_experts_text(*e, r);
  const int warnings = r.config.diagnostics.count(Severity::kWarning);
  const int lints = r.config.diagnostics.count(Severity::kLint);
  if (warnings + lints > 0) {
    out += "\nThe config check found " + std::to_string(warnings) + " warning(s) and " +
           std::to_string(lints) + " lint(s): run `zerosim check` for them.\n";
  }
  return out;
}

std::string render_simulation_json_text(const sim::SimulationResult& r,
                                        const sim::SimulationRequest& request) {
  const plan::Layout& l = r.built.layout;
  const plan::MemoryReport& m = r.memory;
  const sim::StepTime& t = r.time;
  // Each figure's band: +- this fraction of it (sim/uncertainty.h).
  const sim::Regime regime = sim::classify_regime(t, l);
  const sim::Band time_band = sim::time_band(regime);
  const sim::Band memory_band = sim::memory_band();
  json::JsonWriter w;
  auto breakdown = [&w](const plan::Breakdown& b) {
    w.begin_object();
    for (Category c : kCategories)
      w.key(std::string(plan::category_name(c)) + "_bytes").value(b[c]);
    w.end_object();
  };
  w.begin_object();
  w.key("config").value(r.config.document.source);
  w.key("deepspeed_version").value(request.check.version.str());
  w.key("model").begin_object();
  w.key("name").value(request.model.name).key("params").value(r.params);
  w.end_object();
  w.key("cluster").begin_object();
  w.key("preset").value(request.cluster.preset);
  w.key("nodes").value(request.cluster.nodes);
  w.key("gpus_per_node").value(request.cluster.gpus_per_node);
  w.end_object();
  w.key("world_size").value(l.world);
  w.key("zero_stage").value(l.stage);
  w.key("precision").value(configs::precision_name(l.precision));
  w.key("seq_len").value(r.seq_len);
  w.key("activation_checkpointing").value(l.checkpointing);
  w.key("batch").begin_object();
  w.key("micro_batch_per_gpu").value(l.micro_batch);
  w.key("gradient_accumulation_steps").value(l.micro_steps);
  w.key("train_batch_size").value(r.train_batch_size);
  w.end_object();
  w.key("memory").begin_object();
  w.key("gpu").begin_object();
  w.key("peak_bytes").value(m.gpu_peak_bytes);
  w.key("reserved_bytes").value(m.gpu_reserved_peak_bytes);
  // The buffers alone (no CUDA context, NCCL or fragmentation): exact sizes, and the allocator
  // replay's allocated and reserved peaks.
  w.key("buffers_peak_bytes").value(m.gpu_allocated_peak_bytes);
  w.key("allocator_allocated_peak_bytes").value(m.gpu_allocator_allocated_peak_bytes);
  w.key("allocator_reserved_peak_bytes").value(m.gpu_allocator_reserved_peak_bytes);
  w.key("failed_request_bytes").value(m.gpu_failed_request_bytes);
  w.key("capacity_bytes").value(m.gpu_capacity_bytes);
  w.key("headroom_bytes").value(m.gpu_headroom_bytes);
  w.key("oom").value(m.gpu_oom);
  w.key("model_states_bytes").value(m.model_states_bytes);
  w.key("peak_phase").value(plan::phase_name(m.peak_phase));
  w.key("peak_op").value(m.peak_op_name);
  w.key("breakdown");
  breakdown(m.gpu_at_peak);
  w.key("band").value(memory_band.fraction);
  w.end_object();
  w.key("cpu").begin_object();
  w.key("peak_bytes").value(m.host_peak_bytes);
  w.key("capacity_bytes").value(m.host_capacity_bytes);
  w.key("headroom_bytes").value(m.host_headroom_bytes);
  w.key("oom").value(m.host_oom);
  w.key("pinned_bytes").value(m.host_pinned_bytes);
  w.key("nvme_bytes").value(m.nvme_bytes);
  w.key("breakdown");
  breakdown(m.host_at_peak);
  if (r.load) {
    w.key("model_load").begin_object();
    w.key("load_dtype").value(plan::load_dtype_name(*request.load_dtype));
    w.key("checkpoint_dtype").value(plan::load_dtype_name(r.load->stored));
    w.key("cast").value(r.load->cast);
    w.key("per_rank_bytes").value(r.load->per_rank_bytes);
    w.key("per_node_bytes").value(m.host_load_bytes);
    w.key("page_cache_bytes").value(r.load->page_cache_bytes);
    w.key("at_peak").value(m.host_peak_at_load);
    w.end_object();
  }
  w.key("band").value(memory_band.fraction);
  w.end_object();
  w.end_object();  // memory
  w.key("plan").begin_object();
  w.key("ops").value(static_cast<std::uint64_t>(r.built.plan.ops.size()));
  w.key("buffers").value(static_cast<std::uint64_t>(r.built.plan.buffers.size()));
  w.key("segments").value(static_cast<std::uint64_t>(r.built.plan.segments.size()));
  w.end_object();
  w.key("time").begin_object();
  w.key("step_s").value(t.step_s);
  w.key("compute_s").value(t.breakdown.compute_s);
  w.key("optimizer_s").value(t.breakdown.optimizer_s);
  w.key("exposed_comm_s").value(t.breakdown.exposed_comm_s);
  w.key("exposed_offload_s").value(t.breakdown.exposed_offload_s);
  w.key("other_s").value(t.breakdown.other_s);
  w.key("comm_busy_s").value(t.comm_busy_s);
  w.key("offload_busy_s").value(t.offload_busy_s);
  w.key("cpu_optimizer_s").value(t.cpu_optimizer_s);
  w.key("offload").begin_object();
  w.key("cpu_s").value(t.offload.cpu_s);
  w.key("cpu_bytes").value(t.offload.cpu_bytes);
  w.key("cpu_bytes_per_s").value(t.offload.cpu_bytes_per_s);
  w.key("cpu_cores").value(t.offload.cpu_cores);
  w.key("to_host_bytes").value(t.offload.to_host_bytes);
  w.key("to_host_s").value(t.offload.to_host_s);
  w.key("to_device_bytes").value(t.offload.to_device_bytes);
  w.key("to_device_s").value(t.offload.to_device_s);
  w.key("exposed_copies_s").value(t.offload.exposed_copies_s);
  w.end_object();
  w.key("bottleneck").value(t.bottleneck);
  if (t.overflow_possible) w.key("overflow_step_s").value(t.overflow_step_s);
  w.key("host").begin_object();
  w.key("busy_s").value(t.host.busy_s);
  w.key("gpu_idle_s").value(t.host.gpu_idle_s);
  w.key("launch_s").value(t.host.launch_s);
  w.key("model_calls").value(t.host.model_calls);
  w.key("sync_s").value(t.host.sync_s);
  w.key("deepspeed").begin_object();
  for (int k = 0; k < plan::kHostTaskCount; ++k) {
    w.key(plan::host_task_name(static_cast<plan::HostTask>(k))).begin_object();
    w.key("s").value(t.host.task_s[k]).key("calls").value(t.host.task_calls[k]);
    w.end_object();
  }
  w.end_object();
  w.end_object();  // host
  w.key("band").value(time_band.fraction);
  w.end_object();  // time
  w.key("throughput").begin_object();
  w.key("samples_per_s").value(t.samples_per_s);
  w.key("tokens_per_s").value(t.tokens_per_s);
  w.key("tflops_per_gpu").value(t.tflops_per_gpu);
  w.key("mfu").value(t.mfu);
  w.key("band").value(time_band.fraction);
  w.end_object();
  w.key("uncertainty").begin_object();
  w.key("regime").value(sim::regime_name(regime));
  w.key("time_band").value(time_band.fraction);
  w.key("time_rows").value(time_band.rows);
  w.key("time_basis").value(time_band.basis);
  w.key("memory_band").value(memory_band.fraction);
  w.key("memory_rows").value(memory_band.rows);
  w.key("memory_basis").value(memory_band.basis);
  w.end_object();
  if (const auto e = sim::expert_share(r)) {
    w.key("experts").begin_object();
    w.key("num_experts").value(l.graph->spec.moe.num_experts);
    w.key("experts_per_token").value(l.graph->spec.moe.experts_per_token);
    w.key("shared_expert_size").value(l.graph->spec.moe.shared_expert_size);
    w.key("expert_params").value(e->expert_params);
    w.key("router_params").value(e->router_params);
    w.key("active_params").value(e->active_params);
    w.key("param_fraction").value(e->param_fraction);
    w.key("model_states_bytes").value(e->model_states_bytes);
    w.key("kernel_s").value(e->kernel_s);
    w.key("model_kernel_s").value(e->model_kernel_s);
    w.key("moe_blocks").value(e->moe_blocks);
    w.key("leaf_blocks").value(e->leaf_blocks);
    w.end_object();
  }
  w.key("cost_profile").value(r.profile.source);
  w.key("kernels").value(sim::kernel_style_name(r.profile.kernel_style));
  w.key("warnings").value(r.config.diagnostics.count(Severity::kWarning));
  w.key("lints").value(r.config.diagnostics.count(Severity::kLint));
  w.end_object();
  return w.text();
}

json::Json render_simulation_json(const sim::SimulationResult& r,
                                  const sim::SimulationRequest& request) {
  return json::Json::parse(render_simulation_json_text(r, request));
}

}  // namespace zs::reports
