#include "calibrate/device_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <variant>

#include "common/overloaded.h"
#include "sim/cost_model.h"

namespace zs::calibrate {
namespace {

using models::OpKind;

constexpr int kGemmColumns = 8;  // 128, 256, ..., 16384
constexpr int kUnaligned = kGemmColumns;
constexpr int kAttention = kGemmColumns + 1;
constexpr int kMemory = kGemmColumns + 2;
constexpr int kCopy = kGemmColumns + 3;     // pinned host <-> GPU copies
constexpr int kCpuAdam = kGemmColumns + 4;  // the offloaded optimizer on the host's cores
constexpr int kColumns = kGemmColumns + 5;
using Terms = std::array<double, kColumns>;

// Adds a model op's terms for one pass; `log_side_flops` and `column_flops` collect FLOPs x
// log(side) and FLOPs per GEMM column, for the columns' sides.
void add_model_op(const models::Op& op, bool backward, std::int64_t act_bytes, double peak,
                  double hbm, Terms* t, std::array<double, kGemmColumns + 1>* log_side_flops,
                  std::array<double, kGemmColumns + 1>* column_flops) {
  const auto flops = static_cast<double>(backward ? op.cost.bwd_flops : op.cost.fwd_flops);
  const auto bytes = static_cast<double>(backward ? op.cost.bwd_hbm_bytes : op.cost.fwd_hbm_bytes);
  switch (op.kind) {
    case OpKind::kLinear: {
      const auto& g = std::get<models::GemmShape>(op.shape);
      const double side = sim::gemm_side(g);
      const int c = sim::gemm_aligned(g, act_bytes) ? gemm_size_column(side) : kUnaligned;
      (*t)[static_cast<std::size_t>(c)] += flops / peak;
      (*log_side_flops)[static_cast<std::size_t>(c)] += flops * std::log(side);
      (*column_flops)[static_cast<std::size_t>(c)] += flops;
      return;
    }
    case OpKind::kAttention:
    case OpKind::kFlashAttention:
      (*t)[kAttention] += flops / peak;
      return;
    default:
      (*t)[kMemory] += bytes / hbm;
      return;
  }
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double efficiency(double coefficient) {
  return coefficient > 0 ? std::clamp(1.0 / coefficient, 0.001, 1.0) : 0.0;
}

}  // namespace

int gemm_size_column(double side) {
  const double c = std::round(std::log2(std::max(side, 1.0)) - 7.0);
  return static_cast<int>(std::clamp(c, 0.0, static_cast<double>(kGemmColumns - 1)));
}

Result<DeviceFit> fit_device_rates(const std::vector<TimedRun>& runs) {
  std::vector<Terms> rows;
  std::vector<double> measured;
  DeviceFit fit;
  std::array<double, kGemmColumns + 1> log_side_flops{}, column_flops{};
  for (const TimedRun& run : runs) {
    if (run.sim == nullptr || run.timeline == nullptr) {
      return Status::invalid_argument("calibrate: run " + run.model +
                                      " has no simulation or timeline");
    }
    const plan::Plan& plan = run.sim->built.plan;
    const plan::ModelGraph& graph = *run.sim->built.layout.graph;
    const double peak = sim::peak_flops(run.gpu, run.precision);
    const double hbm = run.gpu.hbm_bw_bytes_per_s;
    const std::int64_t act_bytes = graph.workload.act_bytes;
    // The host columns are fractions of the preset's rates, so that every column's coefficient
    // is the inverse of an efficiency.
    const double copy_rate = run.sim->profile.pcie_pinned_bytes_per_s;
    const double adam_rate =
        run.sim->profile.cpu_adam_bytes_per_s_per_core * std::max(1, run.cpu_cores);
    for (const exec::OpTiming& timing : *run.timeline) {
      const double seconds = static_cast<double>(timing.end_ns - timing.start_ns) * 1e-9;
      if (timing.op < 0 || timing.op >= static_cast<int>(plan.ops.size()) || !(seconds > 0)) {
        continue;
      }
      Terms t{};
      bool row = true;
      std::visit(Overloaded{
                     [&](const plan::ComputeWork& w) {
                       const bool bwd = w.pass == plan::Pass::kBackward;
                       for (int i = w.first_model_op; i <= w.last_model_op; ++i) {
                         add_model_op(graph.ops[static_cast<std::size_t>(i)], bwd, act_bytes, peak,
                                      hbm, &t, &log_side_flops, &column_flops);
                       }
                     },
                     [&](const plan::MemoryWork& mw) {
                       t[kMemory] = static_cast<double>(mw.bytes_read + mw.bytes_written) / hbm;
                     },
                     [&](const plan::OptimizerWork& ow) {
                       if (ow.on_cpu) {
                         t[kCpuAdam] = static_cast<double>(ow.bytes_touched) / adam_rate;
                       } else {
                         t[kMemory] = static_cast<double>(ow.bytes_touched) / hbm;
                       }
                     },
                     [&](const plan::CopyWork& cw) {
                       if (cw.pinned && cw.bytes > 0) {
                         t[kCopy] = static_cast<double>(cw.bytes) / copy_rate;
                       } else {
                         row = false;  // pageable copies: not what the executor makes
                       }
                     },
                     [&](const auto&) { row = false; },
                 },
                 plan.ops[static_cast<std::size_t>(timing.op)].work);
      double total = 0;
      for (double x : t) total += x;
      if (!row || !(total > 0)) continue;
      double device = 0;
      for (int c = 0; c < kCopy; ++c) device += t[static_cast<std::size_t>(c)];
      if (device > seconds) {  // faster than the device's peaks allow: not this work
        fit.excluded.push_back(
            {run.model, timing.op, std::string(plan.op_name(timing.op)), seconds, device});
        continue;
      }
      rows.push_back(t);
      measured.push_back(seconds);
      fit.rows.push_back({run.model, timing.op, std::string(plan.op_name(timing.op)), seconds, 0});
    }
  }
  if (rows.empty()) {
    return Status::invalid_argument("calibrate: the runs timed no op the GPU rates price");
  }

  // Normal equations of min sum_r ((A_r . x - t_r) / t_r)^2.
  std::array<std::array<double, kColumns>, kColumns> g{};
  std::array<double, kColumns> h{};
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double w = 1.0 / (measured[r] * measured[r]);
    for (int i = 0; i < kColumns; ++i) {
      h[static_cast<std::size_t>(i)] += w * rows[r][static_cast<std::size_t>(i)] * measured[r];
      for (int j = 0; j < kColumns; ++j) {
        g[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] +=
            w * rows[r][static_cast<std::size_t>(i)] * rows[r][static_cast<std::size_t>(j)];
      }
    }
  }
  // Cyclic coordinate descent with x >= 0; unused columns (g_ii = 0) stay 0.
  std::array<double, kColumns> x{};
  for (int sweep = 0; sweep < 20000; ++sweep) {
    double change = 0;
    for (std::size_t j = 0; j < kColumns; ++j) {
      if (!(g[j][j] > 0)) continue;
      double grad = -h[j];
      for (std::size_t k = 0; k < kColumns; ++k) grad += g[j][k] * x[k];
      const double next = std::max(0.0, x[j] - grad / g[j][j]);
      change = std::max(change, std::fabs(next - x[j]) / std::max(next, 1e-30));
      x[j] = next;
    }
    if (change < 1e-12) break;
  }

  std::vector<double> errors;
  double weighted = 0, total_s = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    double f = 0;
    for (std::size_t j = 0; j < kColumns; ++j) f += rows[r][j] * x[j];
    fit.rows[r].fitted_s = f;
    const double e = std::fabs(f - measured[r]) / measured[r];
    errors.push_back(e);
    weighted += std::fabs(f - measured[r]);
    total_s += measured[r];
  }
  fit.median_abs_error = median(errors);
  fit.time_weighted_abs_error = weighted / total_s;
  for (int c = 0; c < kGemmColumns; ++c) {
    const auto k = static_cast<std::size_t>(c);
    if (!(column_flops[k] > 0)) continue;
    fit.gemm_sides.push_back(std::exp(log_side_flops[k] / column_flops[k]));
    fit.gemm_efficiency.push_back(efficiency(x[k]));
  }
  if (column_flops[kUnaligned] > 0) {
    fit.unaligned_efficiency = efficiency(x[kUnaligned]);
    fit.unaligned_side = std::exp(log_side_flops[kUnaligned] / column_flops[kUnaligned]);
  }
  fit.attention_efficiency = efficiency(x[kAttention]);
  fit.hbm_efficiency = efficiency(x[kMemory]);
  // Host rates: the preset's over the coefficient, not clamped (a host may beat the preset).
  for (const TimedRun& run : runs) {
    if (x[kCopy] > 0 && fit.pcie_pinned_bytes_per_s == 0) {
      fit.pcie_pinned_bytes_per_s = run.sim->profile.pcie_pinned_bytes_per_s / x[kCopy];
    }
    if (x[kCpuAdam] > 0 && fit.cpu_adam_bytes_per_s_per_core == 0) {
      fit.cpu_adam_bytes_per_s_per_core =
          run.sim->profile.cpu_adam_bytes_per_s_per_core / x[kCpuAdam];
      fit.cpu_cores = std::max(1, run.cpu_cores);
    }
  }
  return fit;
}

}  // namespace zs::calibrate
