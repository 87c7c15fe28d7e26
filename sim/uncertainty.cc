#include "sim/uncertainty.h"

#include "common/check.h"

namespace zs::sim {

std::string_view regime_name(Regime r) {
  switch (r) {
    case Regime::kGpuBound:
      return "gpu-bound";
    case Regime::kHostBound:
      return "host-bound";
    case Regime::kOffload:
      return "offload";
    case Regime::kCpuBackend:
      return "cpu-backend";
  }
  ZS_CHECK(false);
  return "";
}

Regime classify_regime(const StepTime& t, bool offload) {
  if (t.cpu_backend) return Regime::kCpuBackend;
  if (offload) return Regime::kOffload;
  if (t.step_s > 0 && t.host.gpu_idle_s >= kHostBoundIdleFraction * t.step_s) {
    return Regime::kHostBound;
  }
  return Regime::kGpuBound;
}

Regime classify_regime(const StepTime& t, const plan::Layout& layout) {
  return classify_regime(t, layout.offload_optimizer || layout.offload_param);
}

Band time_band(Regime r) {
  // configs/profiles/uncertainty_bands.json (sim_uncertainty_test checks these against it).
  switch (r) {
    case Regime::kGpuBound:
      return {0.19, 19,
              "2 in 3 of 19 published GPU-bound runs, each predicted by a fit to the others"};
    case Regime::kHostBound:
      return {0.11, 6,
              "2 in 3 of 6 published host-bound runs, each predicted by a fit to the others"};
    case Regime::kOffload:
      return {0.25, 3,
              "2 in 3 of 3 published CPU-offload runs, each predicted by a fit to the others"};
    case Regime::kCpuBackend:
      // configs/profiles/cpu_backend_band.json (sim_uncertainty_test checks it).
      return {0.15, 27,
              "2 in 3 of 27 validate runs of zerosim's CPU backend on 2 ranks of a 2-vCPU VM "
              "(results/measurements/*/validation), each calibrated on that machine"};
  }
  ZS_CHECK(false);
  return {};
}

Band memory_band() {
  return {0.08, 4,
          "real DeepSpeed 0.19.6 on an H100, stages 0-3: allocated peak -7.5% to -4.0% "
          "(results/gpu/2026-11-26-NVIDIA-H100-80GB-HBM3-deepspeed)"};
}

}  // namespace zs::sim
