// CostProfile: the effective rates the simulator prices work with, per GPU preset.
//
// The cluster (configs/hardware) holds line rates and datasheet peaks; what software reaches is a
// different quantity and lives here: GEMM efficiency against size, achieved HBM bandwidth,
// NCCL bus bandwidth per NIC, pinned PCIe copies, CPU Adam throughput, host launch overhead.
// Every default figure comes from a published measurement named next to it in
// cost_profile.cc; a calibration profile (JSON, `simulate --profile FILE`) replaces any of them:
//
//   {"gemm_efficiency": [[1024, 0.18], [8192, 0.80]], "hbm_efficiency": 0.8,
//    "kernel_launch_s": 7e-6, "pcie_pinned_bytes_per_s": 5.5e10, ...}
//
// Field names are those below; unknown keys and values outside each field's physical range
// (cost_profile.cc kNumberFields: an efficiency from 0.001 to 1, a bandwidth from 1 MB/s up, ...)
// are errors.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "common/json_reader.h"
#include "common/status.h"
#include "configs/hardware/cluster.h"
#include "plan/plan.h"
#include "sim/eager_kernels.h"

namespace zs::sim {

// One point of an efficiency curve: `efficiency` (fraction of peak) at `size`.
struct CurvePoint {
  double size = 0;
  double efficiency = 0;
  bool operator==(const CurvePoint&) const = default;
};

struct CostProfile {
  std::string source;  // "preset h100-80gb-sxm" or the calibration file
  // The execution backend whose devices these rates describe: "cuda" for every GPU preset. A
  // profile that `zerosim calibrate` measured says which backend it measured ("backend"), and
  // where and when ("machine", "date", "commit", "command": kept in `stamp`); a profile for
  // another backend than the cluster's devices is refused.
  std::string backend = "cuda";
  std::string stamp;

  // How the framework runs the model's non-GEMM ops (sim/eager_kernels.h): HF modules in eager
  // PyTorch by default; "kernels": "fused" in a profile (or --kernels fused) for llm.c-like
  // fused kernels.
  KernelStyle kernel_style = KernelStyle::kEager;

  // GPU kernels. GEMM efficiency against the geometric mean of m, n, k (= the side of a square
  // GEMM), interpolated linearly in log(size) and held constant past either end.
  std::vector<CurvePoint> gemm_efficiency;
  double attention_efficiency = 0;  // fused (flash) attention, fraction of dense peak
  // The fraction of the benchmark rates above (short square matmuls, boost clocks) that a
  // training run sustains on its tensor cores: clocks under a long power-limited load, the
  // cuBLAS of the run's era. Fitted per GPU generation to published runs (cost_profile.cc).
  double gemm_sustained = 1;
  // A GEMM one of whose dimensions is not a multiple of 16 bytes of its elements (8 in fp16 and
  // bf16: HF GPT-2's 50257-word vocabulary) cannot use cuBLAS's vectorised tensor-core kernels
  // and runs at this fraction of the aligned rate (cost_profile.cc cites the figure).
  double gemm_unaligned_efficiency = 1;
  double hbm_efficiency = 0;  // memory-bound kernels, fraction of HBM bandwidth
  // The host's work, on the reference host (cost_profile.cc), counted by plan/host_ops.h:
  double kernel_launch_s = 0;  // an ATen call that launches a kernel (dispatch + launch)
  double dispatch_s = 0;       // an ATen call that launches none (a view, an allocation)
  double module_call_s = 0;    // the Python of one nn.Module call besides its ATen calls
  // One host-device round trip of a sync (.item(), synchronize()) after the work it waits for:
  // the copy and the wake-up, and in a loop of them (an .item() per parameter) the few small
  // kernels each waits for, which the GPU runs one chain at a time. Not scaled by the host.
  double sync_s = 0;
  // A measured profile's noise: how far `zerosim calibrate`'s rounds disagreed on this machine's
  // speed ((slowest - fastest) / median, calibrate/cpu_calibration.h); 0 when unknown. validate
  // reads it to tell the machine's noise from the model's error.
  double calibration_spread = 0;
  // DeepSpeed's Python per call of each plan::HostTask, its ATen calls apart.
  std::array<double, plan::kHostTaskCount> host_call_s{};
  // How much slower the target host runs all of the above than the reference host (1: as fast;
  // 2: half as fast): a call costs its figure times host_python_slowdown.
  double host_python_slowdown = 1;
  double min_kernel_s = 0;  // the shortest kernel on the GPU

  // Collectives (nccl-tests bus bandwidth, bytes/s).
  double nvlink_ring_busbw_bytes_per_s = 0;       // intra-node ring
  double nvlink_allreduce_busbw_bytes_per_s = 0;  // intra-node all_reduce, NCCL's choice
  double nic_busbw_bytes_per_s = 0;               // what NCCL reaches per NIC
  int nics_per_node = 0;                          // the node's compute-fabric NICs
  // NCCL's llMaxBws for the GPU generation: 1 node, 2 nodes, 4 or more nodes.
  double ll_max_bytes_per_s[3] = {0, 0, 0};
  bool ampere_or_newer = true;  // NCCL's ring latency factor for multi-node Simple

  // Host <-> GPU over PCIe, per GPU.
  double pcie_pinned_bytes_per_s = 0;  // one direction alone
  double pcie_duplex_bytes_per_s = 0;  // both directions together (the link's capacity)
  double pageable_slowdown = 0;        // pinned / pageable
  double pcie_latency_s = 0;

  // CPU Adam (DeepSpeedCPUAdam) and host memory.
  double cpu_adam_bytes_per_s_per_core = 0;
  double host_memory_efficiency = 0;  // achievable fraction of the node's DRAM peak
  int cpu_cores_per_rank = 0;         // 0: the node's cores divided among its GPUs

  // The CPU backend (backend "cpu", configs::GpuSpec::backend): what its kernels
  // (kernels/cpu, driven by exec/model_runner.h) take per unit of work, forward and backward,
  // indexed by models::OpKind. The unit is the op's FLOP for attention (both kinds run the same
  // kernel) and the element for the others: embedding and norms t x h, cross-entropy t x V,
  // rotary, activations and residual adds their numel. Linear ops use gemm_efficiency against
  // the device's fp32 peak instead. `zerosim calibrate --backend cpu` measures them.
  std::array<std::array<double, 2>, models::kOpKindCount> cpu_s_per_unit{};
  // What the CPU attention kernel takes per query-key score it visits (models::attention_pairs
  // per sequence and head), forward and backward, on top of its FLOPs: the exp of each score,
  // which at a small head_dim costs as much as the dot products. calibrate fits both terms to
  // attention at several head_dims.
  std::array<double, 2> cpu_attention_pair_s{};
  // Collectives over MPI (backend "cpu"): latency + bus bytes / bus bandwidth, bus bytes as
  // nccl-tests counts them (kernels/collective.h bus_factor). Fitted by calibrate to the
  // collectives it timed at several sizes: all_reduce on its own (a reduce-scatter and an
  // all-gather with the adds between, as nvlink_allreduce_busbw is apart from the ring's), the
  // others together.
  double mpi_latency_s = 0;
  double mpi_busbw_bytes_per_s = 0;
  double mpi_allreduce_latency_s = 0;
  double mpi_allreduce_busbw_bytes_per_s = 0;

  // NVMe (node totals are divided among the node's GPUs).
  double nvme_read_bytes_per_s = 0;
  double nvme_write_bytes_per_s = 0;

  bool operator==(const CostProfile&) const = default;
};

// The defaults for the cluster's GPU and node (cost_profile.cc cites each figure).
CostProfile default_cost_profile(const configs::Cluster& cluster);

// `base` with the fields a calibration file sets replaced. kNotFound / kParseError for an
// unreadable file; kInvalidArgument naming FILE:LINE:COL, the key, the value and what is allowed
// for unknown keys and bad values, and for a "backend" other than base's.
Result<CostProfile> load_cost_profile(const std::string& path, CostProfile base);
// The same for a parsed document (its `source` names it in messages).
Result<CostProfile> cost_profile_from_document(const json::Document& doc, CostProfile base);

// Host seconds of one call of `task` on the target: its Python and its ATen calls
// (plan::task_dispatch), times host_python_slowdown.
double host_call_seconds(const CostProfile& p, plan::HostTask task);
// The same for every task, indexed by plan::HostTask.
std::array<double, plan::kHostTaskCount> host_call_seconds(const CostProfile& p);

// Efficiency of a GEMM of side `size` (the geometric mean of its dimensions).
double gemm_efficiency(const CostProfile& p, double size);

}  // namespace zs::sim
