#include "reports/simulate_report.h"

#include <cstdio>

#include "common/units.h"

namespace zs::reports {
namespace {

using plan::Category;

constexpr Category kCategories[] = {Category::kParams,           Category::kGrads,
                                    Category::kOptimizerStates,  Category::kActivations,
                                    Category::kBuffers,          Category::kOther};

std::string row(const std::string& name, Bytes bytes, const std::string& note = "") {
  char buf[160];
  std::snprintf(buf, sizeof buf, "  %-18s %12s%s%s\n", name.c_str(), format_bytes(bytes).c_str(),
                note.empty() ? "" : "   ", note.c_str());
  return buf;
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
         "\n";

  out += "\nGPU memory per rank, at its peak (" + std::string(plan::phase_name(m.peak_phase)) +
         ", op " + m.peak_op_name + "):\n";
  for (Category c : kCategories) {
    std::string note;
    if (c == Category::kOther) {
      note = "CUDA context " + format_bytes(plan::kCudaContextBytes) + ", NCCL " +
             format_bytes(plan::kNcclWorkspaceBytes) + ", fragmentation allowance " +
             std::to_string(static_cast<int>(request.fragmentation * 100)) + "%";
    }
    out += row(label(c), m.gpu_at_peak[c], note);
  }
  out += row("peak", m.gpu_peak_bytes, "of " + format_bytes(m.gpu_capacity_bytes));
  out += row("model states", m.model_states_bytes,
             "parameters, gradients and optimizer states as the ZeRO paper counts them");
  if (m.gpu_oom) {
    out += "  OUT OF MEMORY: " + format_bytes(-m.gpu_headroom_bytes) + " over the " +
           format_bytes(m.gpu_capacity_bytes) + " of each GPU\n";
  } else {
    out += "  fits: " + format_bytes(m.gpu_headroom_bytes) + " of headroom per GPU\n";
  }

  out += "\nHost memory per node (" + std::to_string(request.cluster.gpus_per_node) +
         " ranks):\n";
  for (Category c : kCategories) {
    if (m.host_at_peak[c] > 0) out += row(label(c), m.host_at_peak[c]);
  }
  out += row("peak", m.host_peak_bytes,
             "of " + format_bytes(m.host_capacity_bytes) + " (" + format_bytes(m.host_pinned_bytes) +
                 " pinned)");
  if (m.nvme_bytes > 0) out += row("on NVMe", m.nvme_bytes);
  out += m.host_oom ? "  OUT OF HOST MEMORY\n" : "";
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
  out["memory"] = {
      {"gpu",
       {{"peak_bytes", m.gpu_peak_bytes},
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
  out["plan"] = {{"ops", r.built.plan.ops.size()},
                 {"buffers", r.built.plan.buffers.size()},
                 {"segments", r.built.plan.segments.size()}};
  out["warnings"] = r.config.diagnostics.count(Severity::kWarning);
  out["lints"] = r.config.diagnostics.count(Severity::kLint);
  return out;
}

}  // namespace zs::reports
