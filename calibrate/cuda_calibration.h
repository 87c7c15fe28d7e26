// CUDA calibration: what zerosim's CUDA backend takes on this GPU, for
// `zerosim calibrate --backend cuda`.
//
// It trains five small calibration models (GPT-2 and Llama shapes, hidden sizes 256 to 4096,
// head_dims 64 and 128, one to two layers; none of them a zoo model, so a zoo model validated
// with the profile is out of sample) for a few steps each through the executor itself
// (exec::execute, Backend::kCuda, bf16 (fp16 on a GPU without it), ZeRO 0, one GPU), and one of
// them again with ZeRO 2 and the optimizer offloaded. It fits the GPU cost model's rates to the
// ops of each run's last step (calibrate/device_fit.h): the GEMM efficiency curve (cuBLASLt),
// the unaligned GEMMs' rate, the attention kernel's rate and the memory-bound kernels' share of
// HBM bandwidth, all against the named GPU preset's peaks; and the host's pinned copy rate and
// CPU Adam per core, over this machine's hardware threads.
//
// The profile it writes describes zerosim's executor, not DeepSpeed on PyTorch: kernels
// "fused" (one kernel per op, no eager temporaries), no DeepSpeed Python (host_call_s 0), and
// the preset's figures for everything it did not measure (host launch time, NCCL: one GPU has
// no collectives to time).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "calibrate/device_fit.h"
#include "common/json_reader.h"
#include "common/status.h"

namespace zs::calibrate {

struct CudaCalibrateOptions {
  std::string gpu_preset = "h100-80gb-sxm";  // whose peaks the efficiencies are fractions of
  int steps = 3;                             // per model; the last one's ops are fitted
  std::function<void(const std::string&)> progress;  // one line per model as it ends
};

struct CudaCalibration {
  std::string device;  // the CUDA device's name
  std::string gpu_preset;
  std::vector<std::string> models;  // CalibrationPlan::description
  DeviceFit fit;
};

// One calibration model's run as simulate plans it for the preset (no device needed).
struct CalibrationPlan {
  std::string model;
  std::string description;  // "name: hidden, layers, heads x head_dim, vocabulary, tokens"
  std::unique_ptr<sim::SimulationResult> sim;
  configs::GpuSpec gpu;
};
// kInvalidArgument for an unknown preset.
Result<std::vector<CalibrationPlan>> plan_cuda_calibration(const std::string& gpu_preset);

// kInvalidArgument without a CUDA device (exec::cuda_backend_status's message) or for an unknown
// preset; a run's failure with the model named.
Result<CudaCalibration> calibrate_cuda(const CudaCalibrateOptions& options);

// The profile `simulate --profile` reads for the preset's cluster: backend "cuda", kernels
// "fused", host_call_s 0, the fitted rates (a rate the fit did not measure is left out, so the
// preset's stays), and "fit": the calibration models, the residual summary and every row.
json::Json cuda_profile_json(const CudaCalibration& c, const std::string& date,
                             const std::string& commit, const std::string& command);

}  // namespace zs::calibrate
