// The uncertainty a prediction has earned: the error zerosim's predictions of the same regime
// showed against measured runs (bench/data/published_runs.tsv, each row predicted by the fit to
// the others: `fidelity --bands`, run by scripts/calibrate_published.sh, writes
// configs/profiles/uncertainty_bands.json, and sim_uncertainty_test checks this file's table
// against it). A band is a relative error of the step time (and so of every throughput); it is
// "+-x%" in text and JSON, error bars in plots, and the width within which `tune` calls two
// variants a tie.
#pragma once

#include <string_view>

#include "sim/step_time.h"

namespace zs::sim {

enum class Regime {
  kGpuBound,   // the GPU is busy (compute or communication) for most of the step
  kHostBound,  // the GPU waits for the host for kHostBoundIdleFraction of the step or more
  kOffload,    // the optimizer (and parameters) offloaded to the CPU
  // zerosim's own CPU backend (StepTime::cpu_backend): its band is the error of `validate` runs
  // on CPU ranks (scripts/cpu_backend_band.py writes configs/profiles/cpu_backend_band.json),
  // not of published GPU runs.
  kCpuBackend,
};
inline constexpr int kRegimeCount = 4;

// "gpu-bound", "host-bound", "offload", "cpu-backend"
std::string_view regime_name(Regime r);

// CPU backend first; then offload when the optimizer or the parameters are offloaded;
// host-bound when the GPU idles waiting for the host for kHostBoundIdleFraction of the step or
// more; GPU-bound otherwise.
Regime classify_regime(const StepTime& t, bool offload);
// The same for a planned step (offload from its layout).
Regime classify_regime(const StepTime& t, const plan::Layout& layout);

struct Band {
  double fraction = 0;  // +- this fraction of the predicted value
  int rows = 0;         // the measured rows it comes from
  std::string_view basis;
};

// The step-time band of `r`: the 68th percentile (nearest rank) of the absolute left-out speed
// errors of the published rows of that regime, rounded up to a whole percent: 2 in 3 of them
// stay within it.
Band time_band(Regime r);

// The GPU peak's band: real DeepSpeed 0.19.6 on an H100 (GPT-2 124M, stages 0-3,
// results/gpu/2026-11-26-NVIDIA-H100-80GB-HBM3-deepspeed/NOTES.md): the allocator replay's
// allocated peak against torch.cuda.max_memory_allocated, -7.5% at stages 0-2 and -4.0% at
// stage 3; the largest, rounded up.
Band memory_band();

}  // namespace zs::sim
