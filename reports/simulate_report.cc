#include "reports/simulate_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/units.h"
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

json::Json breakdown_json(const plan::Breakdown& b) {
  json::Json out = json::Json::object();
  for (Category c : kCategories) out[std::string(plan::category_name(c)) + "_bytes"] = b[c];
  return out;
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
  out += std::string("  attention: ") + (request.flash_attention ? "fused (flash)" : "eager") +
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
      "+-" + std::to_string(static_cast<int>(std::lround(100 * memory_band.fraction))) + "%";
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
  const int warnings = r.config.diagnostics.count(Severity::kWarning);
  const int lints = r.config.diagnostics.count(Severity::kLint);
  if (warnings + lints > 0) {
    out += "\nThe config check found " + std::to_string(warnings) + " warning(s) and " +
           std::to_string(lints) + " lint(s): run `zerosim check` for them.\n";
  }
  return out;
}

json::Json render_simulation_json(const sim::SimulationResult& r,
                                  const sim::SimulationRequest& request) {
  using json::Json;
  const plan::Layout& l = r.built.layout;
  const plan::MemoryReport& m = r.memory;
  Json out = Json::object();
  out["config"] = r.config.document.source;
  out["deepspeed_version"] = request.check.version.str();
  out["model"] = {{"name", request.model.name}, {"params", r.params}};
  out["cluster"] = {{"preset", request.cluster.preset},
                    {"nodes", request.cluster.nodes},
                    {"gpus_per_node", request.cluster.gpus_per_node}};
  out["world_size"] = l.world;
  out["zero_stage"] = l.stage;
  out["precision"] = std::string(configs::precision_name(l.precision));
  out["seq_len"] = r.seq_len;
  out["activation_checkpointing"] = l.checkpointing;
  out["batch"] = {{"micro_batch_per_gpu", l.micro_batch},
                  {"gradient_accumulation_steps", l.micro_steps},
                  {"train_batch_size", r.train_batch_size}};
  out["memory"] = {{"gpu",
                    {{"peak_bytes", m.gpu_peak_bytes},
                     {"reserved_bytes", m.gpu_reserved_peak_bytes},
                     // The buffers alone (no CUDA context, NCCL or fragmentation): exact sizes,
                     // and the allocator replay's allocated and reserved peaks.
                     {"buffers_peak_bytes", m.gpu_allocated_peak_bytes},
                     {"allocator_allocated_peak_bytes", m.gpu_allocator_allocated_peak_bytes},
                     {"allocator_reserved_peak_bytes", m.gpu_allocator_reserved_peak_bytes},
                     {"failed_request_bytes", m.gpu_failed_request_bytes},
                     {"capacity_bytes", m.gpu_capacity_bytes},
                     {"headroom_bytes", m.gpu_headroom_bytes},
                     {"oom", m.gpu_oom},
                     {"model_states_bytes", m.model_states_bytes},
                     {"peak_phase", std::string(plan::phase_name(m.peak_phase))},
                     {"peak_op", m.peak_op_name},
                     {"breakdown", breakdown_json(m.gpu_at_peak)}}},
                   {"cpu",
                    {{"peak_bytes", m.host_peak_bytes},
                     {"capacity_bytes", m.host_capacity_bytes},
                     {"headroom_bytes", m.host_headroom_bytes},
                     {"oom", m.host_oom},
                     {"pinned_bytes", m.host_pinned_bytes},
                     {"nvme_bytes", m.nvme_bytes},
                     {"breakdown", breakdown_json(m.host_at_peak)}}}};
  if (r.load) {
    out["memory"]["cpu"]["model_load"] = {
        {"load_dtype", std::string(plan::load_dtype_name(*request.load_dtype))},
        {"checkpoint_dtype", std::string(plan::load_dtype_name(r.load->stored))},
        {"cast", r.load->cast},
        {"per_rank_bytes", r.load->per_rank_bytes},
        {"per_node_bytes", m.host_load_bytes},
        {"page_cache_bytes", r.load->page_cache_bytes},
        {"at_peak", m.host_peak_at_load}};
  }
  out["plan"] = {{"ops", r.built.plan.ops.size()},
                 {"buffers", r.built.plan.buffers.size()},
                 {"segments", r.built.plan.segments.size()}};
  const sim::StepTime& t = r.time;
  out["time"] = {{"step_s", t.step_s},
                 {"compute_s", t.breakdown.compute_s},
                 {"optimizer_s", t.breakdown.optimizer_s},
                 {"exposed_comm_s", t.breakdown.exposed_comm_s},
                 {"exposed_offload_s", t.breakdown.exposed_offload_s},
                 {"other_s", t.breakdown.other_s},
                 {"comm_busy_s", t.comm_busy_s},
                 {"offload_busy_s", t.offload_busy_s},
                 {"cpu_optimizer_s", t.cpu_optimizer_s},
                 {"offload",
                  {{"cpu_s", t.offload.cpu_s},
                   {"cpu_bytes", t.offload.cpu_bytes},
                   {"cpu_bytes_per_s", t.offload.cpu_bytes_per_s},
                   {"cpu_cores", t.offload.cpu_cores},
                   {"to_host_bytes", t.offload.to_host_bytes},
                   {"to_host_s", t.offload.to_host_s},
                   {"to_device_bytes", t.offload.to_device_bytes},
                   {"to_device_s", t.offload.to_device_s},
                   {"exposed_copies_s", t.offload.exposed_copies_s}}},
                 {"bottleneck", t.bottleneck}};
  if (t.overflow_possible) out["time"]["overflow_step_s"] = t.overflow_step_s;
  json::Json tasks = json::Json::object();
  for (int k = 0; k < plan::kHostTaskCount; ++k) {
    tasks[std::string(plan::host_task_name(static_cast<plan::HostTask>(k)))] = {
        {"s", t.host.task_s[k]}, {"calls", t.host.task_calls[k]}};
  }
  out["time"]["host"] = {{"busy_s", t.host.busy_s},     {"gpu_idle_s", t.host.gpu_idle_s},
                         {"launch_s", t.host.launch_s}, {"model_calls", t.host.model_calls},
                         {"sync_s", t.host.sync_s},     {"deepspeed", tasks}};
  out["throughput"] = {{"samples_per_s", t.samples_per_s},
                       {"tokens_per_s", t.tokens_per_s},
                       {"tflops_per_gpu", t.tflops_per_gpu},
                       {"mfu", t.mfu}};
  // Each figure's band: +- this fraction of it (sim/uncertainty.h).
  const sim::Regime regime = sim::classify_regime(t, l);
  const sim::Band time_band = sim::time_band(regime);
  const sim::Band memory_band = sim::memory_band();
  out["time"]["band"] = time_band.fraction;
  out["throughput"]["band"] = time_band.fraction;
  out["memory"]["gpu"]["band"] = memory_band.fraction;
  out["memory"]["cpu"]["band"] = memory_band.fraction;
  out["uncertainty"] = {{"regime", std::string(sim::regime_name(regime))},
                        {"time_band", time_band.fraction},
                        {"time_rows", time_band.rows},
                        {"time_basis", std::string(time_band.basis)},
                        {"memory_band", memory_band.fraction},
                        {"memory_rows", memory_band.rows},
                        {"memory_basis", std::string(memory_band.basis)}};
  out["cost_profile"] = r.profile.source;
  out["kernels"] = std::string(sim::kernel_style_name(r.profile.kernel_style));
  out["warnings"] = r.config.diagnostics.count(Severity::kWarning);
  out["lints"] = r.config.diagnostics.count(Severity::kLint);
  return out;
}

}  // namespace zs::reports
