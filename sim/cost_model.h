// The cost model: what each op of a Plan costs on a cluster, for the engine (sim/engine.h).
//
// - Model kernels: a roofline per kernel, max(FLOPs / (peak x efficiency), HBM bytes / (HBM
//   bandwidth x hbm_efficiency)), at least min_kernel_s. GEMMs take their efficiency from the
//   profile's curve at the geometric mean of m, n, k, times gemm_sustained; fused attention its
//   own efficiency (times gemm_sustained); an unfused attention core its two batched GEMMs
//   (side: the geometric mean of s, s, d) plus its elementwise passes at HBM speed; everything
//   else is memory-bound. Peak: peak_flops of the training precision. With the profile's
//   KernelStyle::kEager (the default), the non-GEMM work of norms, the attention module, the MLP
//   activation, residual adds and the loss is what HF's modules launch in eager PyTorch
//   (sim/eager_kernels.h: kernels and bytes recorded from the real modules); with kFused, one
//   ideal kernel per op (models/op_costs.h). A compute op over a range of model ops costs the
//   sum. Its host time: eager, what HF's modules dispatch (models/eager_dispatch.h: a
//   kernel_launch_s per ATen call that launches a kernel, a dispatch_s per other call, a
//   module_call_s per nn.Module call); fused, a kernel_launch_s per kernel; all times
//   host_python_slowdown.
// - DeepSpeed's host work: each op's plan::HostCalls, priced per call by host_call_seconds (its
//   Python and its ATen calls, plan/host_ops.h), adds to the host time of issuing it. The
//   Plan's memory work, copies and optimizer are launched inside those calls, so they add no
//   host time of their own; a collective is a deepspeed.comm call (a kernel_launch_s).
// - Memory work and the GPU optimizer (fused Adam): bytes over achieved HBM bandwidth.
// - Collectives: NCCL's latency as fixed time, then the transfer as a flow on the rank's NCCL
//   link (capacity 1 second per second: concurrent collectives share it).
// - Copies: PCIe latency, then a flow on the GPU's PCIe link (capacity: both directions
//   together; each copy capped at the one-direction pinned rate, or the pageable rate).
// - CPU Adam: bytes over min(cores per rank x per-core rate, host DRAM peak x efficiency /
//   ranks per node), on the host thread.
// - NVMe: a flow on the node's NVMe volume share for this rank.
// - Host syncs: a sync_s per round trip (a sync op's rounds; an op's host_wait_for wait).
// - A straggler: every collective (latency and transfer) stretched by `collective_slowdown`,
//   since the whole group waits for its slowest rank.
// A CPU device (configs::GpuSpec::backend "cpu": zerosim's CPU backend, one rank per core) is
// priced as its kernels run instead: a GEMM at gemm_efficiency of the core's fp32 peak, every
// other model op at the profile's cpu_s_per_unit, collectives as MPI's latency + bus bytes / bus
// bandwidth, memory work at the device's memory rate, AdamW at cpu_adam_bytes_per_s_per_core on
// one thread (all the rank's cores when offloaded), copies at the memcpy rate, no DeepSpeed
// Python; sim/step_time.cc runs that plan serially (EngineOptions::serial).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "configs/ds_config.h"
#include "configs/hardware/cluster.h"
#include "plan/model_graph.h"
#include "plan/plan.h"
#include "sim/collective_cost.h"
#include "sim/cost_profile.h"
#include "sim/engine.h"

namespace zs::sim {

// The CPU backend's unit of work for `op` (CostProfile::cpu_s_per_unit): FLOPs of the pass for
// GEMMs and attention, elements for the rest. calibrate measures seconds per these units.
double cpu_work_units(const models::Op& op, bool backward);

// The side of the square GEMM with as many multiply-adds: the geometric mean of m, n, k (the size
// CostProfile::gemm_efficiency is a curve over).
double gemm_side(const models::GemmShape& g);
// Whether tensor-core kernels, which load 16 bytes at a time, can run the GEMM: every dimension
// (and so every leading dimension) a multiple of 16 bytes of `act_bytes` elements. Otherwise the
// slower unaligned kernels (CostProfile::gemm_unaligned_efficiency).
bool gemm_aligned(const models::GemmShape& g, std::int64_t act_bytes);
// The scores an attention op's CPU kernel visits: batch x heads x models::attention_pairs.
// REQUIRES: op is an attention op.
double cpu_attention_pairs(const models::Op& op);
// The kind whose cpu_s_per_unit prices `kind`: both attention kinds run one CPU kernel; the
// MoE router's softmax takes the loss's, Qwen2-MoE's combine the residual add's (no CPU kernels
// of their own yet).
models::OpKind cpu_unit_kind(models::OpKind kind);

// Link ids of the links cost_ops uses.
enum LinkId { kNcclLink = 0, kPcieLink = 1, kNvmeLink = 2, kLinkCount = 3 };

// Per model op (graph order): seconds and kernel launches, forward and backward.
struct ModelOpTimes {
  std::vector<double> fwd_s, bwd_s;
  std::vector<int> fwd_kernels, bwd_kernels;
  // Prefix sums over ops: [i] = sum of ops < i.
  std::vector<double> fwd_prefix_s, bwd_prefix_s;
  std::vector<int> fwd_prefix_kernels, bwd_prefix_kernels;
  // Prefix sums of each op's host seconds, forward and backward: its ATen calls and module
  // calls (models/eager_dispatch.h; fused: a launch per kernel) priced by the profile,
  // host_python_slowdown included.
  std::vector<double> fwd_prefix_host_s, bwd_prefix_host_s;
  // The kernels' and the host's seconds of a compute op's model ops (first_model_op through
  // last_model_op of its pass).
  double kernel_s(const plan::ComputeWork& w) const {
    const auto& ps = w.pass == plan::Pass::kBackward ? bwd_prefix_s : fwd_prefix_s;
    return ps[w.last_model_op + 1] - ps[w.first_model_op];
  }
  double host_s(const plan::ComputeWork& w) const {
    const auto& ph = w.pass == plan::Pass::kBackward ? bwd_prefix_host_s : fwd_prefix_host_s;
    return ph[w.last_model_op + 1] - ph[w.first_model_op];
  }
  // Prefix sums of the same ATen calls, those that launch a kernel and those that do not.
  std::vector<std::int64_t> fwd_prefix_calls, bwd_prefix_calls;
  // GEMMs with a dimension off the 16-byte grid (CostProfile::gemm_unaligned_efficiency): the
  // seconds they take beyond what aligned ones would, over one forward and one backward of the
  // model, and the first such op ("lm_head: 8192 x 50257 x 768", m x n x k), or "".
  double unaligned_extra_s = 0;
  std::string unaligned_example;
};

ModelOpTimes time_model_ops(const plan::ModelGraph& graph, const configs::GpuSpec& gpu,
                            configs::Precision precision, const CostProfile& profile);

// A graph's ModelOpTimes with what they were priced for, so that a sweep over ZeRO settings
// of one model, workload and cluster prices the model's kernels once.
struct PricedModel {
  std::shared_ptr<const plan::ModelGraph> graph;
  configs::GpuSpec gpu;
  configs::Precision precision = configs::Precision::kBf16;
  CostProfile profile;
  ModelOpTimes times;

  bool priced_for(const plan::ModelGraph* g, const configs::GpuSpec& gpu_spec,
                  configs::Precision p_precision, const CostProfile& p) const {
    return graph.get() == g && gpu == gpu_spec && precision == p_precision && profile == p;
  }
};

// `reuse` when it was priced for this graph, GPU, precision and profile; else a new pricing.
std::shared_ptr<const PricedModel> price_model(const std::shared_ptr<const plan::ModelGraph>& graph,
                                               const configs::GpuSpec& gpu,
                                               configs::Precision precision,
                                               const CostProfile& profile,
                                               const std::shared_ptr<const PricedModel>& reuse);

// Peak FLOP/s of the training precision's matmuls: fp32 runs at the plain fp32 rate (PyTorch
// leaves TF32 off for matmuls by default); bf16 at the bf16 tensor-core rate and fp16 at the fp16
// one, each falling back to the other 16-bit rate, then to fp32, when the GPU lists no figure.
double peak_flops(const configs::GpuSpec& gpu, configs::Precision precision);

// The cores a rank's CPU work (CPU Adam) runs on: the profile's cpu_cores_per_rank, else the
// node's cores divided among its ranks (deepspeed --bind_cores_to_rank's share).
int cores_per_rank(const configs::Cluster& cluster, const CostProfile& profile);

struct PricedPlan {
  std::vector<OpCost> costs;
  std::vector<Link> links;
  double cpu_adam_bytes_per_s = 0;  // per rank
  int cpu_cores_per_rank = 0;
};

PricedPlan cost_ops(const plan::Plan& plan, const ModelOpTimes& model_ops,
                    const configs::Cluster& cluster, const CostProfile& profile,
                    double collective_slowdown = 1.0);

}  // namespace zs::sim
