#include "sim/cost_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <variant>

#include "common/overloaded.h"
#include "kernels/collective.h"
#include "models/eager_dispatch.h"
#include "models/flops.h"
#include "models/op_costs.h"

namespace zs::sim {
namespace {

using models::OpKind;

struct KernelTime {
  double fwd_s = 0, bwd_s = 0;
  int fwd_kernels = 1, bwd_kernels = 1;
  double unaligned_extra_s = 0;  // forward and backward, beyond the aligned kernels' time
};

double roofline(double flops, double flop_rate, double bytes, double byte_rate) {
  return std::max(flops / flop_rate, bytes / byte_rate);
}

KernelTime time_op(const models::Op& op, double peak, double fp32_peak, double hbm,
                   const CostProfile& p, const plan::ModelGraph& graph) {
  KernelTime k;
  // Eager: what HF's module launches for this op (nullptr: the op keeps op_costs' pricing).
  EagerWork eager_storage;
  const EagerWork* eager = nullptr;
  if (p.kernel_style == KernelStyle::kEager) {
    if (const auto e = eager_work(op, graph.spec, graph.workload)) {
      eager_storage = *e;
      eager = &eager_storage;
    }
  }
  const auto fwd_f = static_cast<double>(op.cost.fwd_flops);
  const auto bwd_f = static_cast<double>(op.cost.bwd_flops);
  const auto fwd_b = static_cast<double>(op.cost.fwd_hbm_bytes);
  const auto bwd_b = static_cast<double>(op.cost.bwd_hbm_bytes);
  switch (op.kind) {
    case OpKind::kLinear: {
      const auto& g = std::get<models::GemmShape>(op.shape);
      const double side = gemm_side(g);
      const bool aligned = gemm_aligned(g, graph.workload.act_bytes);
      const double aligned_rate = peak * gemm_efficiency(p, side) * p.gemm_sustained;
      const double rate = aligned ? aligned_rate : aligned_rate * p.gemm_unaligned_efficiency;
      k.fwd_s = roofline(fwd_f, rate, fwd_b, hbm);
      k.bwd_s = roofline(bwd_f, rate, bwd_b, hbm);
      if (!aligned) {
        k.unaligned_extra_s = k.fwd_s + k.bwd_s - roofline(fwd_f, aligned_rate, fwd_b, hbm) -
                              roofline(bwd_f, aligned_rate, bwd_b, hbm);
      }
      // dgrad, wgrad (, bias sum; eager: the module's sum kernel, in its eager entry)
      k.bwd_kernels = g.bias && p.kernel_style == KernelStyle::kFused ? 3 : 2;
      break;
    }
    case OpKind::kMoeExperts: {
      // Two grouped GEMMs at the efficiency of one expert's share (balanced routing: t·k/E rows
      // each), roofline against their operands and every expert's weights; the glue passes
      // (gather, gating, scaling, unsorting, the k-sum) at HBM speed: grouped_mm_experts_forward
      // launches them as kernels of their own.
      const auto& m = std::get<models::MoeShape>(op.shape);
      const double gemm_f = static_cast<double>(models::matmul_fwd_flops(op));
      const double e = static_cast<double>(graph.workload.act_bytes);
      const double S = static_cast<double>(m.pairs()), h = static_cast<double>(m.hidden);
      const double I = static_cast<double>(m.inner), E = static_cast<double>(m.experts);
      const double rows = std::max(1.0, S / E);
      const double side = std::cbrt(rows * h * I);
      const double rate = peak * gemm_efficiency(p, side) * p.gemm_sustained;
      const double weights = e * 3 * E * h * I;
      const double operands = e * (S * h + 2 * S * I + S * I + S * h) + weights;
      k.fwd_s = roofline(gemm_f, rate, operands, hbm) + std::max(0.0, fwd_b - operands) / hbm;
      k.bwd_s = roofline(2 * gemm_f, rate, 2 * operands + weights, hbm) +
                std::max(0.0, bwd_b - 2 * operands - weights) / hbm;
      // sort, gather x2, histc, cumsum, mask, grouped_mm, gate (2), grouped_mm, scale, mask,
      // unsort (3), k-sum, cast; backward each GEMM's dgrad and wgrad and the glue's gradients.
      k.fwd_kernels = 18;
      k.bwd_kernels = 16;
      break;
    }
    case OpKind::kMoeCombine:
      // Eager: sigmoid, product, add forward; the product's two gradients (one a row sum) and
      // the sigmoid's backward.
      k.fwd_s = roofline(fwd_f, fp32_peak, fwd_b, hbm);
      k.bwd_s = roofline(bwd_f, fp32_peak, bwd_b, hbm);
      k.fwd_kernels = 3;
      k.bwd_kernels = 3;
      break;
    case OpKind::kFlashAttention: {
      const double rate = peak * p.attention_efficiency * p.gemm_sustained;
      k.fwd_s = roofline(fwd_f, rate, fwd_b, hbm);
      k.bwd_s = roofline(bwd_f, rate, bwd_b, hbm);
      k.bwd_kernels = 2;
      if (eager) {  // the module around the fused core: copies, dropout, bias sums
        k.fwd_s += eager->fwd_bytes / hbm;
        k.bwd_s += eager->bwd_bytes / hbm;
        k.fwd_kernels += eager->fwd_kernels;
        k.bwd_kernels += eager->bwd_kernels;
      }
      break;
    }
    case OpKind::kAttention: {
      const auto& a = std::get<models::AttentionShape>(op.shape);
      const double side = std::cbrt(static_cast<double>(a.seq) * static_cast<double>(a.keys()) *
                                    static_cast<double>(a.head_dim));
      const double rate = peak * gemm_efficiency(p, side) * p.gemm_sustained;
      // The batched GEMMs at GEMM speed, the score passes (softmax, mask, dropout) at HBM speed:
      // eager, every kernel the attention module launches besides its GEMMs.
      if (eager) {
        k.fwd_s = fwd_f / rate + eager->fwd_bytes / hbm;
        k.bwd_s = bwd_f / rate + eager->bwd_bytes / hbm;
        k.fwd_kernels = 2 + eager->fwd_kernels;
        k.bwd_kernels = 4 + eager->bwd_kernels;
      } else {
        k.fwd_s = fwd_f / rate + fwd_b / hbm;
        k.bwd_s = bwd_f / rate + bwd_b / hbm;
        k.fwd_kernels = 4;
        k.bwd_kernels = 6;
      }
      break;
    }
    default: {
      // Memory-bound; their nominal FLOPs run on CUDA cores in fp32.
      if (eager) {
        k.fwd_s = roofline(fwd_f, fp32_peak, eager->fwd_bytes, hbm);
        k.bwd_s = roofline(bwd_f, fp32_peak, eager->bwd_bytes, hbm);
        k.fwd_kernels = eager->fwd_kernels;
        k.bwd_kernels = eager->bwd_kernels;
      } else {
        k.fwd_s = roofline(fwd_f, fp32_peak, fwd_b, hbm);
        k.bwd_s = roofline(bwd_f, fp32_peak, bwd_b, hbm);
      }
      break;
    }
  }
  // An eager op with no kernel of its own (rotary: inside the attention module) takes no time.
  k.fwd_s = std::max(k.fwd_s, k.fwd_kernels * p.min_kernel_s);
  k.bwd_s = std::max(k.bwd_s, k.bwd_kernels * p.min_kernel_s);
  return k;
}

// The CPU backend's kernels (kernels/cpu, one thread per rank): a GEMM at the calibrated
// fraction of the core's fp32 peak for its size, every other op at its kind's calibrated seconds
// per unit (cpu_work_units). One kernel per op and pass.
KernelTime time_op_cpu(const models::Op& op, double fp32_peak, const CostProfile& p) {
  KernelTime k;
  if (op.kind == OpKind::kMoeExperts) {
    // No CPU kernel yet (exec refuses a mixture of experts): priced as its GEMMs at the
    // calibrated efficiency of one expert's share, the glue passes not at all.
    const auto& m = std::get<models::MoeShape>(op.shape);
    const double rows = std::max<double>(1, static_cast<double>(m.pairs() / m.experts));
    const double rate =
        fp32_peak * gemm_efficiency(p, std::cbrt(rows * static_cast<double>(m.hidden * m.inner)));
    k.fwd_s = static_cast<double>(models::matmul_fwd_flops(op)) / rate;
    k.bwd_s = 2 * k.fwd_s;
    return k;
  }
  if (op.kind == OpKind::kLinear) {
    const double rate =
        fp32_peak * gemm_efficiency(p, gemm_side(std::get<models::GemmShape>(op.shape)));
    k.fwd_s = static_cast<double>(op.cost.fwd_flops) / rate;
    k.bwd_s = static_cast<double>(op.cost.bwd_flops) / rate;
    return k;
  }
  const auto [fwd, bwd] = p.cpu_s_per_unit[static_cast<std::size_t>(cpu_unit_kind(op.kind))];
  k.fwd_s = cpu_work_units(op, false) * fwd;
  k.bwd_s = cpu_work_units(op, true) * bwd;
  if (cpu_unit_kind(op.kind) == OpKind::kAttention) {
    const double pairs = cpu_attention_pairs(op);
    k.fwd_s += pairs * p.cpu_attention_pair_s[0];
    k.bwd_s += pairs * p.cpu_attention_pair_s[1];
  }
  return k;
}

double memory_s(double bytes, double hbm, const CostProfile& p) {
  return std::max(bytes / hbm, p.min_kernel_s);
}

}  // namespace

double gemm_side(const models::GemmShape& g) {
  return std::cbrt(static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k));
}

bool gemm_aligned(const models::GemmShape& g, std::int64_t act_bytes) {
  const std::int64_t grid = std::max<std::int64_t>(1, 16 / act_bytes);
  return g.m % grid == 0 && g.n % grid == 0 && g.k % grid == 0;
}

OpKind cpu_unit_kind(OpKind kind) {
  if (kind == OpKind::kFlashAttention) return OpKind::kAttention;
  // No CPU kernel of its own yet: a row softmax, as the loss's log-softmax (uncalibrated).
  if (kind == OpKind::kMoeRoute) return OpKind::kCrossEntropy;
  if (kind == OpKind::kMoeCombine) return OpKind::kResidualAdd;  // elementwise, as the adds
  return kind;
}

double cpu_work_units(const models::Op& op, bool backward) {
  switch (op.kind) {
    case OpKind::kLinear:
    case OpKind::kAttention:
    case OpKind::kFlashAttention:
      return static_cast<double>(backward ? op.cost.bwd_flops : op.cost.fwd_flops);
    case OpKind::kEmbedding: {
      const auto& e = std::get<models::EmbeddingShape>(op.shape);
      return static_cast<double>(e.tokens * e.hidden);
    }
    case OpKind::kNorm: {
      const auto& n = std::get<models::NormShape>(op.shape);
      return static_cast<double>(n.rows * n.cols);
    }
    case OpKind::kCrossEntropy: {
      const auto& c = std::get<models::CrossEntropyShape>(op.shape);
      return static_cast<double>(c.tokens * c.vocab);
    }
    case OpKind::kMoeRoute: {  // a softmax over E per token: priced as cross-entropy's rows
      const auto& m = std::get<models::MoeShape>(op.shape);
      return static_cast<double>(m.tokens * m.experts);
    }
    case OpKind::kMoeExperts:
      return static_cast<double>(backward ? op.cost.bwd_flops : op.cost.fwd_flops);
    case OpKind::kMoeCombine: {  // elementwise over t x h
      const auto& m = std::get<models::MoeShape>(op.shape);
      return static_cast<double>(m.tokens * m.hidden);
    }
    case OpKind::kRotary:
    case OpKind::kActivation:
    case OpKind::kSwiGlu:
    case OpKind::kResidualAdd:
      return static_cast<double>(std::get<models::ElementwiseShape>(op.shape).numel);
  }
  return 0;
}

double cpu_attention_pairs(const models::Op& op) {
  const auto& a = std::get<models::AttentionShape>(op.shape);
  return static_cast<double>(a.batch * a.heads * models::attention_pairs(a));
}

int cores_per_rank(const configs::Cluster& cluster, const CostProfile& p) {
  return p.cpu_cores_per_rank > 0
             ? p.cpu_cores_per_rank
             : std::max(1, cluster.node.cpu_cores / std::max(1, cluster.gpus_per_node));
}

double peak_flops(const configs::GpuSpec& gpu, configs::Precision precision) {
  switch (precision) {
    case configs::Precision::kFp32:
      return gpu.fp32_flops_per_s;
    case configs::Precision::kFp16:
      return gpu.fp16_flops_per_s.value_or(gpu.bf16_flops_per_s.value_or(gpu.fp32_flops_per_s));
    case configs::Precision::kBf16:
      break;
  }
  return gpu.bf16_flops_per_s.value_or(gpu.fp16_flops_per_s.value_or(gpu.fp32_flops_per_s));
}

ModelOpTimes time_model_ops(const plan::ModelGraph& graph, const configs::GpuSpec& gpu,
                            configs::Precision precision, const CostProfile& profile) {
  const double peak = peak_flops(gpu, precision);
  const double hbm = gpu.hbm_bw_bytes_per_s * profile.hbm_efficiency;
  ModelOpTimes t;
  const std::size_t n = graph.ops.size();
  t.fwd_s.reserve(n);
  t.fwd_prefix_s.assign(n + 1, 0);
  t.bwd_prefix_s.assign(n + 1, 0);
  t.fwd_prefix_kernels.assign(n + 1, 0);
  t.bwd_prefix_kernels.assign(n + 1, 0);
  t.fwd_prefix_host_s.assign(n + 1, 0);
  t.bwd_prefix_host_s.assign(n + 1, 0);
  t.fwd_prefix_calls.assign(n + 1, 0);
  t.bwd_prefix_calls.assign(n + 1, 0);
  const bool eager = profile.kernel_style == KernelStyle::kEager;
  const bool cpu = gpu.backend == "cpu";
  auto host_s = [&profile](const models::HostDispatch& h) {
    return (h.kernels * profile.kernel_launch_s + h.other * profile.dispatch_s +
            h.modules * profile.module_call_s) *
           profile.host_python_slowdown;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const KernelTime k =
        cpu ? time_op_cpu(graph.ops[i], gpu.fp32_flops_per_s, profile)
            : time_op(graph.ops[i], peak, gpu.fp32_flops_per_s, hbm, profile, graph);
    t.fwd_s.push_back(k.fwd_s);
    t.bwd_s.push_back(k.bwd_s);
    t.fwd_kernels.push_back(k.fwd_kernels);
    t.bwd_kernels.push_back(k.bwd_kernels);
    t.fwd_prefix_s[i + 1] = t.fwd_prefix_s[i] + k.fwd_s;
    t.bwd_prefix_s[i + 1] = t.bwd_prefix_s[i] + k.bwd_s;
    t.fwd_prefix_kernels[i + 1] = t.fwd_prefix_kernels[i] + k.fwd_kernels;
    t.bwd_prefix_kernels[i + 1] = t.bwd_prefix_kernels[i] + k.bwd_kernels;
    // The host: what HF's eager modules dispatch, or one launch per fused kernel.
    models::HostDispatch fwd{k.fwd_kernels, 0, 0, 0}, bwd{k.bwd_kernels, 0, 0, 0};
    if (eager && !cpu) {
      const models::EagerDispatch d =
          models::eager_dispatch(graph.ops[i], graph.spec, graph.workload);
      fwd = d.fwd;
      bwd = d.bwd;
    }
    t.fwd_prefix_host_s[i + 1] = t.fwd_prefix_host_s[i] + host_s(fwd);
    t.bwd_prefix_host_s[i + 1] = t.bwd_prefix_host_s[i] + host_s(bwd);
    t.fwd_prefix_calls[i + 1] = t.fwd_prefix_calls[i] + fwd.calls();
    t.bwd_prefix_calls[i + 1] = t.bwd_prefix_calls[i] + bwd.calls();
    if (k.unaligned_extra_s > 0) {
      t.unaligned_extra_s += k.unaligned_extra_s;
      if (t.unaligned_example.empty()) {
        const auto& g = std::get<models::GemmShape>(graph.ops[i].shape);
        t.unaligned_example = graph.ops[i].name + ": " + std::to_string(g.m) + " x " +
                              std::to_string(g.n) + " x " + std::to_string(g.k);
      }
    }
  }
  return t;
}

std::shared_ptr<const PricedModel> price_model(const std::shared_ptr<const plan::ModelGraph>& graph,
                                               const configs::GpuSpec& gpu,
                                               configs::Precision precision,
                                               const CostProfile& profile,
                                               const std::shared_ptr<const PricedModel>& reuse) {
  if (reuse != nullptr && reuse->priced_for(graph.get(), gpu, precision, profile)) return reuse;
  auto priced = std::make_shared<PricedModel>();
  priced->graph = graph;
  priced->gpu = gpu;
  priced->precision = precision;
  priced->profile = profile;
  priced->times = time_model_ops(*graph, gpu, precision, profile);
  return priced;
}

namespace {

// A CPU rank (configs::GpuSpec::backend "cpu") runs every op itself, in Plan order
// (sim/step_time.h runs the engine serially): the interpreter's bookkeeping per op
// (kernel_launch_s), the kernels' time, MPI's collectives, the CPU backend's casts and copies at
// its memory rate, its AdamW on one thread (on every core of the rank when offloaded, as
// exec/cpu_adam.h runs DeepSpeedCPUAdam), and no DeepSpeed Python: the executor has none. Its
// NVMe swaps move nothing (cli/run_command.cc says so before a run), so they cost nothing here.
PricedPlan cost_ops_cpu(const plan::Plan& plan, const ModelOpTimes& m,
                        const configs::Cluster& cluster, const CostProfile& p,
                        double collective_slowdown) {
  const double memory_rate = cluster.gpu.hbm_bw_bytes_per_s * p.hbm_efficiency;
  PricedPlan out;
  out.links.resize(kLinkCount);
  out.links[kNcclLink] = Link{"mpi", 1.0};
  out.links[kPcieLink] = Link{"memcpy", p.pcie_pinned_bytes_per_s};
  out.links[kNvmeLink] = Link{"nvme", 1.0};
  out.cpu_adam_bytes_per_s = cores_per_rank(cluster, p) * p.cpu_adam_bytes_per_s_per_core;
  out.costs.resize(plan.ops.size());
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const plan::Op& op = plan.ops[i];
    OpCost& c = out.costs[i];
    c.host_s = p.kernel_launch_s;
    std::visit(
        Overloaded{
            [&](const plan::ComputeWork& w) { c.fixed_s = m.kernel_s(w); },
            [&](const plan::CollectiveWork& cw) {
              if (cw.group_size <= 1) return;
              const double bus_bytes =
                  kernels::bus_factor(cw.kind, cw.group_size) * static_cast<double>(cw.bytes);
              const bool all_reduce = cw.kind == kernels::Collective::kAllReduce;
              c.fixed_s =
                  (all_reduce ? p.mpi_allreduce_latency_s : p.mpi_latency_s) * collective_slowdown;
              c.link = kNcclLink;
              c.link_amount =
                  bus_bytes /
                  (all_reduce ? p.mpi_allreduce_busbw_bytes_per_s : p.mpi_busbw_bytes_per_s) *
                  collective_slowdown;
            },
            [&](const plan::MemoryWork& mw) {
              c.fixed_s = static_cast<double>(mw.bytes_read + mw.bytes_written) / memory_rate;
            },
            [&](const plan::CopyWork& pw) {
              c.link = kPcieLink;
              c.link_amount = static_cast<double>(pw.bytes);
            },
            [&](const plan::OptimizerWork& ow) {
              const auto bytes = static_cast<double>(ow.bytes_touched);
              c.fixed_s =
                  bytes / (ow.on_cpu ? out.cpu_adam_bytes_per_s : p.cpu_adam_bytes_per_s_per_core);
            },
            [&](const plan::NvmeWork&) {},
            [&](const plan::SyncWork& yw) { c.host_s = p.kernel_launch_s * yw.rounds; },
        },
        op.work);
  }
  return out;
}

}  // namespace

PricedPlan cost_ops(const plan::Plan& plan, const ModelOpTimes& m, const configs::Cluster& cluster,
                    const CostProfile& p, double collective_slowdown) {
  if (cluster.gpu.backend == "cpu") return cost_ops_cpu(plan, m, cluster, p, collective_slowdown);
  const configs::GpuSpec& gpu = cluster.gpu;
  const double hbm = gpu.hbm_bw_bytes_per_s * p.hbm_efficiency;
  const int ranks_per_node = cluster.gpus_per_node;
  PricedPlan out;
  out.links.resize(kLinkCount);
  out.links[kNcclLink] = Link{"nccl", 1.0};
  out.links[kPcieLink] = Link{"pcie", p.pcie_duplex_bytes_per_s};
  out.links[kNvmeLink] =
      Link{"nvme", std::max(p.nvme_read_bytes_per_s, p.nvme_write_bytes_per_s) / ranks_per_node};
  double cpu_rate = cores_per_rank(cluster, p) * p.cpu_adam_bytes_per_s_per_core;
  if (cluster.node.host_memory_bw_bytes_per_s) {
    cpu_rate = std::min(cpu_rate, *cluster.node.host_memory_bw_bytes_per_s *
                                      p.host_memory_efficiency / ranks_per_node);
  }
  out.cpu_adam_bytes_per_s = cpu_rate;
  out.cpu_cores_per_rank = cores_per_rank(cluster, p);
  const GroupTopology world = group_topology(plan.world_size, cluster.gpus_per_node);

  // The same few collectives recur once per layer: a small direct-mapped cache of estimates.
  struct Memo {
    Bytes bytes = -1;
    int group = 0;
    kernels::Collective kind = kernels::Collective::kAllReduce;
    CollectiveEstimate e;
  };
  constexpr std::size_t kMemoSlots = 64;
  Memo memo[kMemoSlots];
  const std::array<double, plan::kHostTaskCount> call_s = host_call_seconds(p);
  out.costs.resize(plan.ops.size());
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const plan::Op& op = plan.ops[i];
    OpCost& c = out.costs[i];
    // Memory work, copies and the optimizer are launched inside DeepSpeed's calls (host_calls).
    c.host_s = 0;
    if (op.host_wait_for >= 0) c.host_wait_s = p.sync_s;
    std::visit(
        Overloaded{
            [&](const plan::ComputeWork& w) {
              c.fixed_s = m.kernel_s(w);
              c.host_s = m.host_s(w);
            },
            [&](const plan::CollectiveWork& cw) {
              const auto key = static_cast<std::uint64_t>(cw.bytes) * 0x9E3779B97F4A7C15ull +
                               static_cast<std::uint64_t>(cw.kind) * 31u +
                               static_cast<std::uint64_t>(cw.group_size);
              Memo& mm = memo[(key >> 32) % kMemoSlots];
              if (mm.bytes != cw.bytes || mm.group != cw.group_size || mm.kind != cw.kind) {
                const GroupTopology t = cw.group_size == plan.world_size
                                            ? world
                                            : group_topology(cw.group_size, cluster.gpus_per_node);
                mm = Memo{cw.bytes, cw.group_size, cw.kind,
                          estimate_collective(cw.kind, cw.bytes, t, p)};
              }
              const CollectiveEstimate& e = mm.e;
              c.host_s = p.kernel_launch_s * p.host_python_slowdown;  // the deepspeed.comm call
              c.fixed_s = e.latency_s * collective_slowdown;
              c.link = kNcclLink;
              c.link_amount = e.transfer_s * collective_slowdown;
            },
            [&](const plan::MemoryWork& mw) {
              c.fixed_s = memory_s(static_cast<double>(mw.bytes_read + mw.bytes_written), hbm, p);
            },
            [&](const plan::CopyWork& pw) {
              if (pw.bytes == 0) return;  // an empty copy (a bucket this rank owns none of)
              c.fixed_s = p.pcie_latency_s;
              c.link = kPcieLink;
              c.link_amount = static_cast<double>(pw.bytes);
              c.rate_cap = pw.pinned ? p.pcie_pinned_bytes_per_s
                                     : p.pcie_pinned_bytes_per_s / p.pageable_slowdown;
            },
            [&](const plan::OptimizerWork& ow) {
              const auto bytes = static_cast<double>(ow.bytes_touched);
              c.fixed_s = ow.on_cpu ? bytes / cpu_rate : memory_s(bytes, hbm, p);
            },
            [&](const plan::NvmeWork& nw) {
              c.link = kNvmeLink;
              c.link_amount = static_cast<double>(nw.bytes);
              c.rate_cap =
                  (nw.read ? p.nvme_read_bytes_per_s : p.nvme_write_bytes_per_s) / ranks_per_node;
            },
            [&](const plan::SyncWork& yw) { c.host_s = p.sync_s * yw.rounds; },
        },
        op.work);
    // DeepSpeed's hooks and engine calls that run before the host issues the op.
    for (const plan::HostCall& hc : op.host_calls.calls()) {
      c.host_before_s += hc.count * call_s[static_cast<int>(hc.task)];
    }
  }
  return out;
}

}  // namespace zs::sim
