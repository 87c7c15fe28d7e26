// Default effective figures, by GPU generation (Volta: no bf16; Ampere: bf16, no fp8; Hopper:
// fp8), each from a published measurement. Where none was found for a generation, the figure
// of the nearest one is used and the comment says so. GB/s are decimal.
#include "sim/cost_profile.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "common/json_path.h"
#include "common/json_reader.h"
#include "common/units.h"
#include "plan/host_ops.h"

namespace zs::sim {
namespace {

constexpr double kGBps = 1e9;
// scripts/derive_unaligned_gemm.sh (default_cost_profile cites the measurement).
constexpr double kUnalignedGemmEfficiency = 0.40;

enum class Generation { kVolta, kAmpere, kHopper };

Generation generation_of(const configs::GpuSpec& g) {
  if (g.fp8_flops_per_s.has_value()) return Generation::kHopper;
  if (g.bf16_flops_per_s.has_value()) return Generation::kAmpere;
  return Generation::kVolta;
}

// What NCCL reaches per NIC, from the NIC's line rate (bytes/s, one direction).
// EDR 100 Gb/s: "12.2 GB/s (for a 100Gbps card) is as good as you can get" (NVIDIA/nccl-tests#29,
// NCCL maintainer). HDR 200 Gb/s: "24GB/s inter-node" (NVIDIA/nccl#412, NCCL maintainer).
// NDR 400 Gb/s: "you should see 46-48GB/s per NIC" (NVIDIA/nccl-tests#290, NVIDIA); 47 taken.
// Other rates: the NDR fraction of line rate (47/50).
double nic_busbw(double line_bytes_per_s) {
  if (std::abs(line_bytes_per_s - 12.5 * kGBps) < 0.1 * kGBps) return 12.2 * kGBps;
  if (std::abs(line_bytes_per_s - 25 * kGBps) < 0.1 * kGBps) return 24 * kGBps;
  if (std::abs(line_bytes_per_s - 50 * kGBps) < 0.1 * kGBps) return 47 * kGBps;
  return line_bytes_per_s * 47.0 / 50.0;
}

}  // namespace

namespace {

// A CPU device without a profile of its own: what `zerosim calibrate --backend cpu` measured on
// the development VM (AMD EPYC, 2 cores under KVM, SSE2 build, 2 ranks under mpirun, 7 repeats),
// results/measurements/2026-11-26-cpu-validation/cpu.json, rounded to 3 digits. Another
// machine's figures differ: simulate a CPU cluster with the profile calibrate wrote beside its
// cluster file.
CostProfile default_cpu_profile() {
  CostProfile p;
  p.source = "defaults for a CPU device (the development VM's calibration)";
  p.backend = "cpu";
  p.kernel_style = KernelStyle::kFused;
  p.gemm_efficiency = {{16, 0.386},  {32, 0.533},  {64, 0.619},
                       {128, 0.782}, {256, 0.893}, {512, 0.880}};
  const auto set = [&p](models::OpKind k, double fwd_s, double bwd_s) {
    p.cpu_s_per_unit[static_cast<std::size_t>(k)] = {fwd_s, bwd_s};
  };
  set(models::OpKind::kEmbedding, 0.741e-9, 1.05e-9);
  set(models::OpKind::kNorm, 1.66e-9, 1.98e-9);
  set(models::OpKind::kRotary, 0.590e-9, 0.718e-9);
  set(models::OpKind::kAttention, 22.6e-12, 34.1e-12);
  set(models::OpKind::kActivation, 13.8e-9, 15.3e-9);
  set(models::OpKind::kSwiGlu, 3.34e-9, 4.12e-9);
  set(models::OpKind::kResidualAdd, 0.306e-9, 0.599e-9);
  set(models::OpKind::kCrossEntropy, 7.76e-9, 13.9e-9);
  p.cpu_attention_pair_s = {4.26e-9, 7.05e-9};
  p.hbm_efficiency = 0.791;  // fp32 -> bf16 rounding over the memcpy's read + write rate
  p.pcie_pinned_bytes_per_s = 8.06 * kGBps;  // memcpy
  p.pcie_duplex_bytes_per_s = p.pcie_pinned_bytes_per_s;
  p.pageable_slowdown = 1;
  p.cpu_adam_bytes_per_s_per_core = 6.73 * kGBps;
  p.host_memory_efficiency = 1;
  p.cpu_cores_per_rank = 1;
  p.kernel_launch_s = 47.6e-9;
  p.sync_s = p.kernel_launch_s;  // the executor's syncs are ops that do nothing but be issued
  p.mpi_latency_s = 1.14e-6;
  p.mpi_busbw_bytes_per_s = 8.42 * kGBps;
  p.mpi_allreduce_latency_s = 2.48e-6;
  p.mpi_allreduce_busbw_bytes_per_s = 5.04 * kGBps;
  return p;
}

}  // namespace

CostProfile default_cost_profile(const configs::Cluster& cluster) {
  const configs::GpuSpec& g = cluster.gpu;
  if (g.backend == "cpu") return default_cpu_profile();
  const configs::NodeSpec& n = cluster.node;
  const Generation gen = generation_of(g);
  CostProfile p;
  p.source = "defaults for " + cluster.preset;

  // GEMM efficiency: torch.matmul on square bf16/fp16 matrices, TFLOP/s over the dense peak.
  switch (gen) {
    case Generation::kVolta:
      // Tesla V100-SXM2, fp16, torch 2.7.0+cu128: 1024: 57.30, 2048: 78.23, 4096: 95.73,
      // 8192: 97.36 TFLOP/s of 125 (zzc0721/torch-performance-test-data#140).
      p.gemm_efficiency = {{1024, 0.458}, {2048, 0.626}, {4096, 0.766}, {8192, 0.779}};
      break;
    case Generation::kAmpere:
      // A800 80GB PCIe fp16 n=512: 31.5 of 312 (mli/transformers-benchmarks#4); A100-PCIE-40GB
      // bf16 1024: 94.89, 4096: 234.14 (zzc0721/torch-performance-test-data#108); A800 2048:
      // 192.5; the A100 SXM's best shape reaches 271.2 = 86.9% (stas00/ml-engineering MAMF
      // table), taken from 8192 on: the PCIe cards above are power-capped at large sizes.
      p.gemm_efficiency = {
          {512, 0.101}, {1024, 0.304}, {2048, 0.617}, {4096, 0.750}, {8192, 0.869}};
      break;
    case Generation::kHopper:
      // H100 SXM 80GB HBM3, bf16, torch 2.7.0+cu128: 1024: 176.62, 2048: 676.59, 4096: 788.72,
      // 8192: 797.51 TFLOP/s of 989.5 (zzc0721/torch-performance-test-data#79). H200 has the
      // same tensor cores ("H200 is the same", stas00/ml-engineering MAMF table).
      p.gemm_efficiency = {{1024, 0.179}, {2048, 0.684}, {4096, 0.797}, {8192, 0.806}};
      break;
  }
  // FlashAttention-2 reaches 35% of H100's peak ("FlashAttention-2 achieving only 35%
  // utilization on the H100 GPU", FlashAttention-3 paper abstract). No text figure was found
  // for A100 or V100; 35% is used for every generation.
  p.attention_efficiency = 0.35;
  // Memory-bound kernels: A100 40GB device memcpy 1355 of 1555 GB/s = 87%
  // (PTsolvers/gpu-workshop-JuliaCon23#7); H100 SXM gather kernels 2646-2771 of 3350 GB/s =
  // 79-83% (pytorch/FBGEMM#3993), 80% taken. V100 (no figure found) uses A100's; H200 H100's.
  p.hbm_efficiency = gen == Generation::kHopper ? 0.80 : 0.87;
  // The host's work on the reference host, priced per call of what plan/host_ops.h counts:
  // - an ATen call that launches a kernel: 7 us, the launch-overhead floor of Meta's
  //   autoparallel cost model fitted on H100 (meta-pytorch/autoparallel compute_estimation.py
  //   `kernel_launch_overhead = 7`), matching torch.add's 7.1 us per call on an A100 host
  //   (flagos-ai/FlagGems#4558) and within HTA's 5-20 us;
  // - one that launches nothing: 1.155 us, torch.add on 1-element CPU tensors on the development
  //   VM (results/measurements/2026-11-25-deepspeed-host-costs.md, unit (a)), which is what a
  //   dispatch through Python costs without a device;
  // - an nn.Module call's own Python: 5 us, "~5 microseconds extra per module call for
  //   nn.Linear" (pytorch/pytorch#50431, with a bare torch op at 0.91 us there, near unit (a)).
  p.kernel_launch_s = 7e-6;
  p.dispatch_s = 1.155e-6;
  p.module_call_s = 5e-6;
  // A sync's round trip: fitted with the published runs (below) within 5-50 us; 5-20 us is the
  // range estimates give for an idle cudaStreamSynchronize (vllm-project/vllm-omni#1614), and an
  // .item() per parameter also waits each time for the launch latency of the kernels before it.
  // The fit lands on the range's top (the rows would take up to 100 us for 0.4 points of mean
  // error: configs/profiles/published_runs_fit.json, mean_abs_speed_error_along).
  p.sync_s = 50e-6;
  // DeepSpeed 0.19.6's Python per call, its ATen calls apart: the per-call times measured with
  // real DeepSpeed on the development VM (Python 3.11, torch 2.13) by
  // scripts/measure_host_costs.py (results/measurements/2026-11-25-deepspeed-host-costs.md, tiny
  // GPT-2/Llama, collectives excluded), less the task's ATen calls (plan/host_ops.cc) at unit (a).
  // The measured figures each comes from (medians unless said):
  // - engine.forward minus the module's forward, 110-225 us per micro-step; engine.backward
  //   outside autograd, 100-210 us;
  // - the boundary engine.step minus the inner optimizer: stage 0 2.9 ms, stages 1-2 2.6-2.7
  //   ms, stage 3 2.1 ms over 52 parameters, shared as below between the engine's step (its
  //   zero_grad and scheduler), the per-parameter and per-gradient loops and the rest;
  // - ZeRO-1's hook without a reduction 2.0 us, ZeRO-2's reducing hook 18.7 us, a bucket flush
  //   (reduce_ipg_grads) 214-269 us with its partition copies;
  // - ZeRO-3's hooks per module run 178 us forward and 162 us backward, its gradient hook 29-31
  //   us, a bucket flush 306-383 us, a gather launch 143-158 us.
  // The offload tasks (no measurement yet) are taken as their non-offloaded twins' Python plus
  // 10 us per helper call they add; plan/host_ops.cc lists what each does.
  auto set_call = [&p](plan::HostTask t, double s) { p.host_call_s[static_cast<int>(t)] = s; };
  using plan::HostTask;
  set_call(HostTask::kEngineForward, 150e-6);
  set_call(HostTask::kEngineBackward, 145e-6);
  set_call(HostTask::kEngineStep, 300e-6);
  set_call(HostTask::kAccumulateGrad, 0);  // autograd's C++
  set_call(HostTask::kStage0ReduceParam, 5e-6);
  set_call(HostTask::kStage0ReduceBucket, 100e-6);
  set_call(HostTask::kStage0StepParam, 15e-6);
  set_call(HostTask::kStage0StepBody, 150e-6);
  set_call(HostTask::kGradHook, 1e-6);
  set_call(HostTask::kGradReduce, 11e-6);
  set_call(HostTask::kGradReduceLarge, 10e-6);
  set_call(HostTask::kBucketFlush, 200e-6);
  set_call(HostTask::kBucketFlushOverlap, 210e-6);
  // Their Python is the flush's and the hook's (measured as a whole): ATen calls only.
  for (HostTask t : {HostTask::kFlushSlice, HostTask::kFlushKernel, HostTask::kFlushStreamRecord,
                     HostTask::kIpgBuffer, HostTask::kPartitionBuffer}) {
    set_call(t, 0);
  }
  set_call(HostTask::kPartitionCopy, 10e-6);
  set_call(HostTask::kPartitionAccumulate, 5e-6);
  set_call(HostTask::kOffloadGrad, 30e-6);
  set_call(HostTask::kOffloadStepParam, 5e-6);
  set_call(HostTask::kOffloadAccumulate, 25e-6);
  set_call(HostTask::kZeroStepParam, 5e-6);
  set_call(HostTask::kZeroStepGrad, 15e-6);
  set_call(HostTask::kZeroStepBody, 800e-6);
  set_call(HostTask::kOffloadStepBody, 800e-6);
  set_call(HostTask::kStage3GradHook, 14e-6);
  set_call(HostTask::kStage3BucketFlush, 370e-6);
  set_call(HostTask::kModuleVisit, 175e-6);
  set_call(HostTask::kModuleVisitBackward, 162e-6);
  set_call(HostTask::kGather, 147e-6);
  set_call(HostTask::kGatherParam, 5e-6);
  // Not measured apart: a gather launch's (the fetch path up to the collective is the same).
  set_call(HostTask::kGatherSingle, 147e-6);
  set_call(HostTask::kStage3StepParam, 10e-6);
  set_call(HostTask::kStage3StepBody, 770e-6);
  set_call(HostTask::kStage3OffloadGrad, 20e-6);
  set_call(HostTask::kStage3OffloadStepParam, 10e-6);
  set_call(HostTask::kStage3OffloadStepBody, 800e-6);
  // Calibrated against published runs (scripts/calibrate_published.sh, the residuals in
  // configs/profiles/published_runs_fit.json): the hosts of those runs ran DeepSpeed's Python,
  // dispatches and launches 2.25x slower than the reference host (range searched 0.5-6), and
  // their tensor cores sustained a fraction of the benchmark GEMM rates per generation (range
  // 0.5-1). sim_cost_profile_test checks these, sync_s and host_memory_efficiency are the file's.
  p.host_python_slowdown = 2.25;
  p.gemm_sustained = gen == Generation::kVolta ? 0.5 : gen == Generation::kAmpere ? 0.8 : 0.65;
  // GEMMs with a dimension off the 16-byte grid: "The most dramatic optimization to nanoGPT so
  // far (~25% speedup) is to simply increase vocab size from 50257 to 50304 (nearest multiple
  // of 64)" (A. Karpathy, Feb 2023, nanoGPT on A100, quoted at simonwillison.net/tags/
  // andrej-karpathy). scripts/derive_unaligned_gemm.sh finds the efficiency of the unaligned
  // LM-head GEMMs that makes zerosim's nanoGPT step 1.25x longer at 50257 than at 50304:
  // results/measurements/2026-11-25-unaligned-gemm.md. Used for every generation (cuBLAS >= 11
  // runs unaligned shapes on tensor cores, at lower efficiency, on Volta too).
  p.gemm_unaligned_efficiency = kUnalignedGemmEfficiency;
  // A tiny elementwise kernel replayed from a CUDA graph: 1.1-1.3 us (pytorch/pytorch#161104).
  p.min_kernel_s = 1.2e-6;

  // Intra-node NCCL bandwidth: the node's measured busbw (hardware presets cite them). With no
  // measurement (DGX-1, DGX-2), 80% of the NVLink line rate: "450GB/s is the line rate. With
  // the protocol overhead (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s"
  // (NVIDIA/nccl-tests#212, NCCL maintainer).
  const double line = g.nvlink_bw_bytes_per_s.value_or(g.pcie_bw_bytes_per_s);
  p.nvlink_ring_busbw_bytes_per_s = n.effective.nvlink_ring_busbw_bytes_per_s
                                        ? n.effective.nvlink_ring_busbw_bytes_per_s->value
                                        : 0.8 * line;
  p.nvlink_allreduce_busbw_bytes_per_s = n.effective.nvlink_allreduce_busbw_bytes_per_s
                                             ? n.effective.nvlink_allreduce_busbw_bytes_per_s->value
                                             : p.nvlink_ring_busbw_bytes_per_s;
  p.nic_busbw_bytes_per_s = nic_busbw(n.nic_bw_bytes_per_s);
  p.nics_per_node = n.nic_count;
  // NCCL src/graph/tuning.cc llMaxBws (NVIDIA/nccl v2.30.7): Volta {39.0, 39.0, 20.4}, Ampere
  // {87.7, 22.5, 19.0}, Hopper {141.0, 45.0, 35.0} GB/s for 1 node, 2 nodes, 4+ nodes.
  const double ll[3][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}};
  const int gi = gen == Generation::kVolta ? 0 : gen == Generation::kAmpere ? 1 : 2;
  for (int i = 0; i < 3; ++i) p.ll_max_bytes_per_s[i] = ll[gi][i] * kGBps;
  p.ampere_or_newer = gen != Generation::kVolta;

  // Pinned host<->device copies (copy engine), one direction: V100 12 GB/s ("V100 ingress
  // bandwidth is 12GBps", measured; ZaidQureshi/bam#54); A100 "around 25-26GB/s"
  // (NVIDIA/nvbandwidth#11), 25 taken; H200 55.43 H2D / 55.06 D2H (stas00/ml-engineering
  // network/README.md, nvbandwidth), used for H100 too (same Gen5 x16 link; no H100 CE
  // figure was found).
  p.pcie_pinned_bytes_per_s = gen == Generation::kVolta    ? 12 * kGBps
                              : gen == Generation::kAmpere ? 25 * kGBps
                                                           : 55.2 * kGBps;
  // Both directions at once on A100: D2H ~24 and H2D 12-13 GB/s (NVIDIA/nvbandwidth#11), i.e.
  // 36.5 GB/s together = 1.46x one direction. No other generation's figure was found.
  p.pcie_duplex_bytes_per_s = 1.46 * p.pcie_pinned_bytes_per_s;
  // DeepSpeed's pinned-buffer fix "Speedup h2d memcpy by 6x on single GPU and 4-5x on 8GPU
  // node" (deepspeedai/DeepSpeed#5301): pageable copies are 4.5x slower on a full node.
  p.pageable_slowdown = 4.5;
  p.pcie_latency_s = g.pcie_latency_s.value_or(1e-6);

  // DeepSpeedCPUAdam: 28 bytes per parameter (csrc/includes/cpu_adam.h Step_AVX reads grad,
  // m, v, param and writes param, m, v in fp32). ZeRO-Offload (Ren et al. 2021) Table 4 on a
  // DGX-2 host (2x Xeon Platinum 8168, 48 cores, DDR4-2666: 256 GB/s peak): 1B params in
  // 0.22 s, 10B in 2.57 s, i.e. 93-127 GB/s, ~109 GB/s typical: 2.27 GB/s per core over 48
  // cores, 43% of the DRAM peak. The per-core limit is used for every host. The DRAM share
  // the whole offloaded step reaches (unscale, Adam, cast, its copies; ranks sharing the node)
  // is fitted to the published offload rows (scripts/calibrate_published.sh, range 0.05-1):
  // 0.15, pinned by ZF02 and ZF03 (DeepSpeed 0.17-0.18, two ranks bound to the cores of one
  // 2 x EPYC 7742 host) against DT07 (the 2020 ZeRO-Offload run, one rank on a DGX-2), which
  // wants about 0.3 and is left 24.5% too slow.
  p.cpu_adam_bytes_per_s_per_core = 109.0 / 48.0 * kGBps;
  p.host_memory_efficiency = 0.15;
  p.cpu_cores_per_rank = 0;

  // NVMe: the node's drive totals (hardware presets), at DeepNVMe's achieved fraction: 10 GB/s
  // read of 13 GB/s rated on 4 drives (deepspeedai/DeepSpeed blogs/deepspeed-gds). Without
  // drive figures, DeepNVMe's measured 10 GB/s read and 5 GB/s write for the node.
  constexpr double kDeepNvmeFraction = 10.0 / 13.0;
  p.nvme_read_bytes_per_s =
      n.nvme_read_bw_bytes_per_s ? *n.nvme_read_bw_bytes_per_s * kDeepNvmeFraction : 10 * kGBps;
  p.nvme_write_bytes_per_s =
      n.nvme_write_bw_bytes_per_s ? *n.nvme_write_bw_bytes_per_s * kDeepNvmeFraction : 5 * kGBps;
  return p;
}

double host_call_seconds(const CostProfile& p, plan::HostTask task) {
  if (p.backend == "cpu") return 0;  // zerosim's CPU backend runs no DeepSpeed
  const plan::TaskDispatch d = plan::task_dispatch(task);
  return (p.host_call_s[static_cast<int>(task)] + d.kernels * p.kernel_launch_s +
          d.other * p.dispatch_s) *
         p.host_python_slowdown;
}

std::array<double, plan::kHostTaskCount> host_call_seconds(const CostProfile& p) {
  std::array<double, plan::kHostTaskCount> s{};
  for (int k = 0; k < plan::kHostTaskCount; ++k) {
    s[k] = host_call_seconds(p, static_cast<plan::HostTask>(k));
  }
  return s;
}

double gemm_efficiency(const CostProfile& p, double size) {
  const auto& c = p.gemm_efficiency;
  if (c.empty()) return 1.0;
  if (size <= c.front().size) return c.front().efficiency;
  if (size >= c.back().size) return c.back().efficiency;
  for (std::size_t i = 1; i < c.size(); ++i) {
    if (size <= c[i].size) {
      const double f = std::log(size / c[i - 1].size) / std::log(c[i].size / c[i - 1].size);
      return c[i - 1].efficiency + f * (c[i].efficiency - c[i - 1].efficiency);
    }
  }
  return c.back().efficiency;
}

namespace {

struct NumberField {
  std::string_view key;
  double CostProfile::*member;
  double min;
  double max;
};

// Allowed ranges: each spans orders of magnitude past what hardware and software reach both
// ways. Outside them a figure is a typo (GB/s for bytes/s, 1e-20 for 0.8), and the simulator
// would price steps of centuries with it.
constexpr double kMinEfficiency = 1e-3;
constexpr NumberField kNumberFields[] = {
    {"attention_efficiency", &CostProfile::attention_efficiency, kMinEfficiency, 1},
    {"gemm_sustained", &CostProfile::gemm_sustained, kMinEfficiency, 1},
    {"gemm_unaligned_efficiency", &CostProfile::gemm_unaligned_efficiency, kMinEfficiency, 1},
    {"hbm_efficiency", &CostProfile::hbm_efficiency, kMinEfficiency, 1},
    {"kernel_launch_s", &CostProfile::kernel_launch_s, 1e-9, 1},
    {"dispatch_s", &CostProfile::dispatch_s, 0, 1},
    {"module_call_s", &CostProfile::module_call_s, 0, 1},
    {"sync_s", &CostProfile::sync_s, 0, 1},
    {"calibration_spread", &CostProfile::calibration_spread, 0, 100},
    {"host_python_slowdown", &CostProfile::host_python_slowdown, 0.1, 100},
    {"min_kernel_s", &CostProfile::min_kernel_s, 1e-9, 1},
    {"nvlink_ring_busbw_bytes_per_s", &CostProfile::nvlink_ring_busbw_bytes_per_s, 1e6, 1e14},
    {"nvlink_allreduce_busbw_bytes_per_s", &CostProfile::nvlink_allreduce_busbw_bytes_per_s, 1e6,
     1e14},
    {"nic_busbw_bytes_per_s", &CostProfile::nic_busbw_bytes_per_s, 1e6, 1e14},
    {"pcie_pinned_bytes_per_s", &CostProfile::pcie_pinned_bytes_per_s, 1e6, 1e13},
    {"pcie_duplex_bytes_per_s", &CostProfile::pcie_duplex_bytes_per_s, 1e6, 1e13},
    {"pageable_slowdown", &CostProfile::pageable_slowdown, 1, 1000},
    {"pcie_latency_s", &CostProfile::pcie_latency_s, 1e-9, 1},
    {"cpu_adam_bytes_per_s_per_core", &CostProfile::cpu_adam_bytes_per_s_per_core, 1e6, 1e12},
    {"host_memory_efficiency", &CostProfile::host_memory_efficiency, kMinEfficiency, 1},
    {"mpi_latency_s", &CostProfile::mpi_latency_s, 0, 1},
    {"mpi_busbw_bytes_per_s", &CostProfile::mpi_busbw_bytes_per_s, 1e6, 1e14},
    {"mpi_allreduce_latency_s", &CostProfile::mpi_allreduce_latency_s, 0, 1},
    {"mpi_allreduce_busbw_bytes_per_s", &CostProfile::mpi_allreduce_busbw_bytes_per_s, 1e6, 1e14},
    {"nvme_read_bytes_per_s", &CostProfile::nvme_read_bytes_per_s, 1e6, 1e12},
    {"nvme_write_bytes_per_s", &CostProfile::nvme_write_bytes_per_s, 1e6, 1e12},
};

// [forward, backward] seconds, each from 0 to 1; nullopt for anything else.
std::optional<std::array<double, 2>> seconds_pair(const json::Json& v) {
  const auto seconds = [](const json::Json& x) {
    return x.is_number() && x.get<double>() >= 0 && x.get<double>() <= 1;
  };
  if (!v.is_array() || v.size() != 2 || !seconds(v[0]) || !seconds(v[1])) return std::nullopt;
  return std::array<double, 2>{v[0].get<double>(), v[1].get<double>()};
}

// The k < count whose name_of(k) is `key`, or -1; *allowed lists every name, comma-separated.
template <class NameOf>
int named_index(std::string_view key, int count, std::string* allowed, NameOf name_of) {
  int found = -1;
  for (int k = 0; k < count; ++k) {
    *allowed += (k > 0 ? ", " : "") + std::string(name_of(k));
    if (name_of(k) == key) found = k;
  }
  return found;
}

}  // namespace

Result<CostProfile> load_cost_profile(const std::string& path, CostProfile base) {
  ZS_ASSIGN_OR_RETURN(const json::Document doc, json::parse_file(path));
  return cost_profile_from_document(doc, std::move(base));
}

Result<CostProfile> cost_profile_from_document(const json::Document& doc, CostProfile base) {
  std::string errors;
  auto fail = [&](const std::string& key_path, const std::string& what) {
    const SourcePos pos = doc.position_of(key_path);
    errors += doc.source + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) +
              ": error: " + (key_path.empty() ? "(root)" : key_path) + ": " + what + "\n";
  };
  if (!doc.root.is_object()) {
    fail("", "a calibration profile is a JSON object");
    return Status::invalid_argument(errors);
  }
  std::string allowed =
      "backend, machine, date, commit, command, gemm_efficiency, cpu_cores_per_rank, kernels, "
      "host_call_s, cpu_s_per_unit, cpu_attention_pair_s, spread, fit";
  for (const NumberField& f : kNumberFields) allowed += ", " + std::string(f.key);
  for (auto it = doc.root.begin(); it != doc.root.end(); ++it) {
    const std::string& key = it.key();
    const json::Json& v = it.value();
    const std::string kp = json::child_path("", key);
    // Keys only `calibrate --backend cpu` writes: a profile holding them was measured on CPU
    // ranks, stamped or not, and its rates would price a GPU with a CPU's speed.
    // (cpu_cores_per_rank is not one: a GPU's profile gives its host's cores for CPU Adam.)
    const bool cpu_only =
        key == "cpu_s_per_unit" || key == "cpu_attention_pair_s" || key.starts_with("mpi_");
    if (cpu_only && base.backend != "cpu") {
      fail(kp,
           "a CPU rank's rate, from a profile of `zerosim calibrate --backend cpu`; this "
           "cluster's devices (" +
               base.source +
               ") are GPUs: give the CPU cluster that "
               "calibrate wrote beside the profile (--cluster PROFILE.cluster.json), or a GPU "
               "profile");
      continue;
    }
    if (key == "gemm_efficiency") {
      std::vector<CurvePoint> curve;
      bool ok = v.is_array() && !v.empty();
      for (const json::Json& pt : v) {
        if (!ok) break;
        ok = pt.is_array() && pt.size() == 2 && pt[0].is_number() && pt[1].is_number() &&
             pt[0].get<double>() > 0 && std::isfinite(pt[0].get<double>()) &&
             pt[1].get<double>() >= kMinEfficiency && pt[1].get<double>() <= 1 &&
             (curve.empty() || pt[0].get<double>() > curve.back().size);
        if (ok) curve.push_back({pt[0].get<double>(), pt[1].get<double>()});
      }
      if (!ok) {
        fail(kp, "found " + doc.value_text(kp, v) +
                     "; allowed: a non-empty array of [size, efficiency] pairs with finite sizes "
                     "> 0 increasing and efficiencies from 0.001 to 1");
      } else {
        base.gemm_efficiency = std::move(curve);
      }
      continue;
    }
    if (key == "host_call_s") {
      // {"zero3.module_hooks": 1.65e-4, ...}: seconds per call on the reference host.
      if (base.backend == "cpu") {
        fail(kp, "the CPU backend runs no DeepSpeed Python: its devices take no host_call_s");
        continue;
      }
      if (!v.is_object()) {
        fail(kp, "found " + doc.value_text(kp, v) +
                     "; allowed: an object of host task name to seconds");
        continue;
      }
      for (auto t = v.begin(); t != v.end(); ++t) {
        std::string names;
        const int task = named_index(t.key(), plan::kHostTaskCount, &names, [](int k) {
          return plan::host_task_name(static_cast<plan::HostTask>(k));
        });
        const std::string tp = json::child_path(kp, t.key());
        if (task < 0) {
          fail(tp, "unknown host task; allowed: " + names);
        } else if (!t.value().is_number() || t.value().get<double>() < 0 ||
                   t.value().get<double>() > 10) {
          fail(tp, "found " + doc.value_text(tp, t.value()) + "; allowed: seconds from 0 to 10");
        } else {
          base.host_call_s[task] = t.value().get<double>();
        }
      }
      continue;
    }
    if (key == "cpu_s_per_unit") {
      // {"norm": [fwd_s, bwd_s], ...}: seconds per unit of work of each op kind.
      if (!v.is_object()) {
        fail(kp, "found " + doc.value_text(kp, v) +
                     "; allowed: an object of op kind to [forward, backward]");
        continue;
      }
      for (auto t = v.begin(); t != v.end(); ++t) {
        std::string names;
        const int kind = named_index(t.key(), models::kOpKindCount, &names, [](int k) {
          return models::op_kind_name(static_cast<models::OpKind>(k));
        });
        const std::string tp = json::child_path(kp, t.key());
        const json::Json& pair = t.value();
        const std::optional<std::array<double, 2>> seconds = seconds_pair(pair);
        if (kind < 0) {
          fail(tp, "unknown op kind; allowed: " + names);
        } else if (!seconds) {
          fail(tp, "found " + doc.value_text(tp, pair) +
                       "; allowed: [forward, backward] seconds per unit, each from 0 to 1");
        } else {
          base.cpu_s_per_unit[static_cast<std::size_t>(kind)] = *seconds;
        }
      }
      continue;
    }
    if (key == "cpu_attention_pair_s") {
      if (const std::optional<std::array<double, 2>> seconds = seconds_pair(v)) {
        base.cpu_attention_pair_s = *seconds;
      } else {
        fail(kp, "found " + doc.value_text(kp, v) +
                     "; allowed: [forward, backward] seconds per score, each from 0 to 1");
      }
      continue;
    }
    if (key == "spread" || key == "fit") {
      // What calibrate saw over its repeats, or how its fit came out, for people: read by
      // nothing, but it must be an object.
      if (!v.is_object()) fail(kp, "found " + doc.value_text(kp, v) + "; allowed: an object");
      continue;
    }
    if (key == "backend") {
      if (!v.is_string() || (v.get<std::string>() != "cuda" && v.get<std::string>() != "cpu")) {
        fail(kp, "found " + doc.value_text(kp, v) + "; allowed: \"cuda\" or \"cpu\"");
      } else if (v.get<std::string>() != base.backend) {
        fail(kp, "found " + doc.value_text(kp, v) +
                     ": the profile was measured by `zerosim calibrate --backend " +
                     v.get<std::string>() + "`, and this cluster's devices (" + base.source +
                     ") take a profile measured with --backend " + base.backend);
      }
      continue;
    }
    if (key == "machine" || key == "date" || key == "commit" || key == "command") {
      if (!v.is_string() || v.get<std::string>().size() > 1000) {
        fail(kp,
             "found " + doc.value_text(kp, v) + "; allowed: a string of at most 1000 characters");
      } else {
        base.stamp += (base.stamp.empty() ? "" : ", ") + key + " " + v.get<std::string>();
      }
      continue;
    }
    if (key == "kernels") {
      const Result<KernelStyle> style = v.is_string()
                                            ? parse_kernel_style(key, v.get<std::string>())
                                            : Status::invalid_argument("not a string");
      if (!style.ok()) {
        fail(kp, "found " + doc.value_text(kp, v) + "; allowed: \"eager\" or \"fused\"");
      } else {
        base.kernel_style = *style;
      }
      continue;
    }
    if (key == "cpu_cores_per_rank") {
      if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > (1 << 20)) {
        fail(kp, "found " + doc.value_text(kp, v) + "; allowed: an integer from 1 to 1048576");
      } else {
        base.cpu_cores_per_rank = static_cast<int>(v.get<long long>());
      }
      continue;
    }
    const auto f = std::find_if(std::begin(kNumberFields), std::end(kNumberFields),
                                [&](const NumberField& nf) { return nf.key == key; });
    if (f == std::end(kNumberFields)) {
      fail(kp, "unknown key; allowed: " + allowed);
      continue;
    }
    const bool ok = v.is_number() && v.get<double>() >= f->min && v.get<double>() <= f->max;
    if (!ok) {
      fail(kp, "found " + doc.value_text(kp, v) + "; allowed: a number from " +
                   format_double(f->min) + " to " + format_double(f->max));
      continue;
    }
    base.*(f->member) = v.get<double>();
  }
  if (!errors.empty()) {
    errors.pop_back();
    return Status::invalid_argument(errors);
  }
  base.source = doc.source;
  return base;
}

}  // namespace zs::sim
