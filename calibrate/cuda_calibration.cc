#include "calibrate/cuda_calibration.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>
#include <utility>

#include "configs/ds_config.h"
#include "configs/hardware/cluster.h"
#include "exec/device.h"
#include "exec/executor.h"
#include "exec/model_runner.h"
#include "models/zoo.h"
#include "plan/plan.h"
#include "sim/cost_profile.h"

namespace zs::calibrate {
namespace {

struct CalibrationModel {
  models::ModelSpec spec;
  int micro_batch = 1;
  std::int64_t seq_len = 0;
  bool offload = false;  // ZeRO 2 with the optimizer on the host: its copies and CPU Adam
};

// GEMM sides from about 400 to 6000 (the zoo's 7B models at 4k tokens are near 5000), GPT-2's
// unaligned 50257-word vocabulary, head_dims 64 and 128; each run is small enough for any
// preset's memory and a few seconds of a GPU.
Result<std::vector<CalibrationModel>> calibration_models() {
  std::vector<CalibrationModel> out;
  ZS_ASSIGN_OR_RETURN(const models::ModelSpec gpt, models::zoo_model("gpt2"));
  ZS_ASSIGN_OR_RETURN(const models::ModelSpec llama, models::zoo_model("llama2-7b"));
  const auto gpt_like = [&](const char* name, std::int64_t h, std::int64_t heads, int layers) {
    models::ModelSpec s = gpt;
    s.name = name;
    s.hidden_size = h;
    s.num_heads = heads;
    s.num_kv_heads = heads;
    s.head_dim = h / heads;
    s.intermediate_size = 4 * h;
    s.num_layers = layers;
    return s;
  };
  const auto llama_like = [&](const char* name, std::int64_t h, std::int64_t inter, int layers) {
    models::ModelSpec s = llama;
    s.name = name;
    s.hidden_size = h;
    s.num_heads = h / 128;
    s.num_kv_heads = h / 128;
    s.head_dim = 128;
    s.intermediate_size = inter;
    s.num_layers = layers;
    return s;
  };
  out.push_back({gpt_like("calibration-gpt-256", 256, 4, 2), 4, 256});
  out.push_back({gpt_like("calibration-gpt-512", 512, 8, 2), 4, 512});
  out.push_back({gpt_like("calibration-gpt-1024", 1024, 16, 2), 8, 1024});
  out.push_back({llama_like("calibration-llama-2048", 2048, 5504, 2), 2, 2048});
  out.push_back({llama_like("calibration-llama-4096", 4096, 11008, 1), 4, 1024});
  out.push_back({gpt_like("calibration-gpt-512-offload", 512, 8, 2), 4, 512, true});
  for (CalibrationModel& m : out) m.spec = exec::without_dropout(std::move(m.spec));
  return out;
}

// bf16, or fp16 on a GPU without bf16 (a V100); ZeRO 0, or 2 with the optimizer offloaded.
std::string config_text(int micro_batch, bool bf16, bool offload) {
  return R"({"train_micro_batch_size_per_gpu": )" + std::to_string(micro_batch) +
         R"(, "gradient_accumulation_steps": 1, )" +
         (bf16 ? R"("bf16": {"enabled": true})" : R"("fp16": {"enabled": true})") +
         R"(, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}, "zero_optimization": )" +
         (offload ? R"({"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": true}})"
                  : R"({"stage": 0})") +
         "}";
}

std::string describe(const CalibrationModel& m) {
  const models::ModelSpec& s = m.spec;
  return s.name + ": hidden " + std::to_string(s.hidden_size) + ", " +
         std::to_string(s.num_layers) + " layer(s), " + std::to_string(s.num_heads) + " x " +
         std::to_string(s.head_dim) + " heads, vocabulary " + std::to_string(s.vocab_size) + ", " +
         std::to_string(m.micro_batch) + " x " + std::to_string(m.seq_len) + " tokens";
}

}  // namespace

Result<std::vector<CalibrationPlan>> plan_cuda_calibration(const std::string& gpu_preset) {
  ZS_ASSIGN_OR_RETURN(const configs::Cluster cluster, configs::make_cluster(gpu_preset, 1, 1));
  ZS_ASSIGN_OR_RETURN(const std::vector<CalibrationModel> suite, calibration_models());
  std::vector<CalibrationPlan> out;
  for (const CalibrationModel& m : suite) {
    sim::SimulationRequest r;
    ZS_ASSIGN_OR_RETURN(
        json::Document doc,
        json::parse_text(
            config_text(m.micro_batch, cluster.gpu.bf16_flops_per_s.has_value(), m.offload),
            m.spec.name + ".json"));
    r.config_document = std::make_shared<const json::Document>(std::move(doc));
    r.model = m.spec;
    r.cluster = cluster;
    r.seq_len = m.seq_len;
    auto simulated = sim::simulate(r);
    if (!simulated.ok()) return simulated.status().with_context("calibrate: " + m.spec.name);
    out.push_back({m.spec.name, describe(m),
                   std::make_unique<sim::SimulationResult>(std::move(simulated).value()),
                   cluster.gpu});
  }
  return out;
}

Result<CudaCalibration> calibrate_cuda(const CudaCalibrateOptions& options) {
  ZS_RETURN_IF_ERROR(exec::cuda_backend_status());
  ZS_ASSIGN_OR_RETURN(const std::vector<CalibrationPlan> plans,
                      plan_cuda_calibration(options.gpu_preset));
  CudaCalibration c;
  c.device = exec::cuda_device_name();
  c.gpu_preset = options.gpu_preset;
  // The timelines the fit reads; stable addresses.
  std::vector<std::unique_ptr<std::vector<exec::OpTiming>>> timelines;
  std::vector<TimedRun> runs;
  for (const CalibrationPlan& p : plans) {
    const sim::SimulationResult& s = *p.sim;
    exec::ExecOptions o;
    o.steps = options.steps;
    o.seed = 1;
    o.backend = exec::Backend::kCuda;
    auto measured = exec::execute(s.built, s.config.config, o);
    if (!measured.ok()) return measured.status().with_context("calibrate: " + p.model);
    timelines.push_back(
        std::make_unique<std::vector<exec::OpTiming>>(std::move(measured->timeline)));
    runs.push_back({p.model, &s, timelines.back().get(), p.gpu,
                    configs::training_precision(s.config.config),
                    static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))});
    c.models.push_back(p.description);
    if (options.progress) {
      double total = 0;
      for (const exec::OpTiming& t : *timelines.back()) {
        total += static_cast<double>(t.end_ns - t.start_ns) * 1e-9;
      }
      char line[256];
      std::snprintf(line, sizeof line, "%s: %zu ops timed, %.3f ms in the last step",
                    p.model.c_str(), timelines.back()->size(), total * 1e3);
      options.progress(line);
    }
  }
  ZS_ASSIGN_OR_RETURN(c.fit, fit_device_rates(runs));
  return c;
}

json::Json cuda_profile_json(const CudaCalibration& c, const std::string& date,
                             const std::string& commit, const std::string& command) {
  const DeviceFit& f = c.fit;
  json::Json j = json::Json::object();
  j["backend"] = "cuda";
  j["machine"] = c.device + ", efficiencies of the " + c.gpu_preset + " preset's peaks";
  j["date"] = date;
  j["commit"] = commit;
  j["command"] = command;
  j["kernels"] = "fused";
  json::Json host = json::Json::object();
  for (int k = 0; k < plan::kHostTaskCount; ++k) {
    host[std::string(plan::host_task_name(static_cast<plan::HostTask>(k)))] = 0.0;
  }
  j["host_call_s"] = host;
  json::Json curve = json::Json::array();
  sim::CostProfile fitted;  // the curve, to read it as simulate will
  for (std::size_t i = 0; i < f.gemm_sides.size(); ++i) {
    if (f.gemm_efficiency[i] <= 0) continue;
    curve.push_back({f.gemm_sides[i], f.gemm_efficiency[i]});
    fitted.gemm_efficiency.push_back({f.gemm_sides[i], f.gemm_efficiency[i]});
  }
  if (!curve.empty()) {
    j["gemm_efficiency"] = curve;
    j["gemm_sustained"] = 1.0;  // the curve is what the executor sustained
  }
  // simulate prices an unaligned GEMM at the curve's rate for its size times this fraction.
  if (f.unaligned_efficiency > 0 && !fitted.gemm_efficiency.empty()) {
    const double base = sim::gemm_efficiency(fitted, f.unaligned_side);
    j["gemm_unaligned_efficiency"] = std::clamp(f.unaligned_efficiency / base, 1e-3, 1.0);
  }
  if (f.attention_efficiency > 0) j["attention_efficiency"] = f.attention_efficiency;
  if (f.hbm_efficiency > 0) j["hbm_efficiency"] = f.hbm_efficiency;
  if (f.pcie_pinned_bytes_per_s > 0) j["pcie_pinned_bytes_per_s"] = f.pcie_pinned_bytes_per_s;
  if (f.cpu_adam_bytes_per_s_per_core > 0) {
    j["cpu_adam_bytes_per_s_per_core"] = f.cpu_adam_bytes_per_s_per_core;
    j["cpu_cores_per_rank"] = f.cpu_cores;
  }
  json::Json fit = json::Json::object();
  fit["what"] =
      "non-negative least squares, in relative error, of the cost model's fused-kernel terms to "
      "every timed op of each calibration model's last step (calibrate/device_fit.h)";
  fit["models"] = c.models;
  fit["rows"] = static_cast<std::int64_t>(f.rows.size());
  fit["median_abs_error"] = f.median_abs_error;
  fit["time_weighted_abs_error"] = f.time_weighted_abs_error;
  fit["unaligned_efficiency_of_peak"] = f.unaligned_efficiency;
  fit["unaligned_side"] = f.unaligned_side;
  json::Json rows = json::Json::array();
  for (const FitRow& r : f.rows) {
    rows.push_back({r.model, r.name, r.measured_s, r.fitted_s});
  }
  fit["rows_model_op_measured_fitted_s"] = rows;
  json::Json excluded = json::Json::array();
  for (const FitRow& r : f.excluded) {
    excluded.push_back({r.model, r.name, r.measured_s, r.fitted_s});
  }
  fit["excluded_faster_than_peak_model_op_measured_at_peak_s"] = excluded;
  j["fit"] = fit;
  return j;
}

}  // namespace zs::calibrate
