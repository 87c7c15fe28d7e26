#include "calibrate/device_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "calibrate/cuda_calibration.h"
#include "common/overloaded.h"
#include "sim/cost_model.h"
#include "sim/cost_profile.h"
#include "tests/sim/sim_test_util.h"

namespace zs::calibrate {
namespace {

constexpr char kConfig[] = R"({"train_micro_batch_size_per_gpu": 4,
  "gradient_accumulation_steps": 1, "bf16": {"enabled": true},
  "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}, "zero_optimization": {"stage": 0}})";

// GPT-2 at 4 x 1024 tokens on one H100: every GEMM compute-bound at the rates below, GPT-2's
// unaligned vocabulary, flash attention, norms and the loss memory-bound.
sim::SimulationResult gpt2_simulation(const std::string& config = kConfig) {
  sim::SimSetup s;
  s.model = "gpt2";
  s.gpu = "h100-80gb-sxm";
  s.gpus_per_node = 1;
  s.seq_len = 1024;
  return sim::simulate_text(config, s);
}

// What the executor would have timed if the device ran at `p`'s rates exactly as
// sim/cost_model.cc prices fused kernels: each ComputeWork its model ops' time, memory work and
// the GPU optimizer their bytes at the profile's HBM rate, pinned copies at its PCIe rate, the
// host optimizer at its per-core rate on `cores`, the rest (syncs) a microsecond.
std::vector<exec::OpTiming> timeline_at(const sim::SimulationResult& s, const sim::CostProfile& p,
                                        const configs::GpuSpec& gpu, int cores = 1) {
  const plan::Plan& plan = s.built.plan;
  const sim::ModelOpTimes t =
      sim::time_model_ops(*s.built.layout.graph, gpu, configs::Precision::kBf16, p);
  const double hbm = gpu.hbm_bw_bytes_per_s * p.hbm_efficiency;
  std::vector<exec::OpTiming> out;
  std::int64_t clock_ns = 0;
  for (int i = 0; i < static_cast<int>(plan.ops.size()); ++i) {
    double seconds = 1e-6;
    std::visit(Overloaded{
                   [&](const plan::ComputeWork& w) {
                     const auto& prefix =
                         w.pass == plan::Pass::kBackward ? t.bwd_prefix_s : t.fwd_prefix_s;
                     seconds = prefix[static_cast<std::size_t>(w.last_model_op) + 1] -
                               prefix[static_cast<std::size_t>(w.first_model_op)];
                   },
                   [&](const plan::MemoryWork& m) {
                     seconds = static_cast<double>(m.bytes_read + m.bytes_written) / hbm;
                   },
                   [&](const plan::OptimizerWork& o) {
                     seconds = static_cast<double>(o.bytes_touched) /
                               (o.on_cpu ? cores * p.cpu_adam_bytes_per_s_per_core : hbm);
                   },
                   [&](const plan::CopyWork& c) {
                     if (c.bytes > 0) {
                       seconds = static_cast<double>(c.bytes) / p.pcie_pinned_bytes_per_s;
                     }
                   },
                   [&](const auto&) {},
               },
               plan.ops[static_cast<std::size_t>(i)].work);
    const auto ns = static_cast<std::int64_t>(std::llround(seconds * 1e9));
    out.push_back({.op = i, .repetition = 0, .start_ns = clock_ns, .end_ns = clock_ns + ns});
    clock_ns += ns + 1000;
  }
  return out;
}

// A device's rates as the cost model takes them, fused kernels and nothing but the rates: a flat
// GEMM curve, attention and HBM apart, no shortest kernel.
sim::CostProfile device_rates(const configs::Cluster& cluster) {
  sim::CostProfile p = sim::default_cost_profile(cluster);
  p.kernel_style = sim::KernelStyle::kFused;
  p.gemm_efficiency = {{1000, 0.55}};
  p.gemm_sustained = 1;
  p.attention_efficiency = 0.05;
  p.hbm_efficiency = 0.6;
  p.min_kernel_s = 0;
  return p;
}

// The fit inverts the cost model: a device that runs exactly at a profile's rates gives back
// those rates. Flat GEMM curve (every size column the same), unaligned GEMMs at a fraction of
// it, and attention and HBM apart.
TEST(DeviceFit, RecoversTheRatesOfADeviceThatRunsAsTheCostModelPrices) {
  const sim::SimulationResult s = gpt2_simulation();
  const configs::Cluster cluster = *configs::make_cluster("h100-80gb-sxm", 1, 1);
  sim::CostProfile p = device_rates(cluster);
  p.gemm_unaligned_efficiency = 0.4;
  const std::vector<exec::OpTiming> timeline = timeline_at(s, p, cluster.gpu);
  auto fit = fit_device_rates({{"gpt2", &s, &timeline, cluster.gpu, configs::Precision::kBf16}});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  ASSERT_FALSE(fit->gemm_efficiency.empty());
  for (std::size_t i = 0; i < fit->gemm_efficiency.size(); ++i) {
    EXPECT_NEAR(fit->gemm_efficiency[i], 0.55, 1e-3) << "side " << fit->gemm_sides[i];
  }
  EXPECT_NEAR(fit->unaligned_efficiency, 0.55 * 0.4, 1e-3);
  EXPECT_NEAR(fit->attention_efficiency, 0.05, 1e-4);
  EXPECT_NEAR(fit->hbm_efficiency, 0.6, 1e-3);
  EXPECT_LT(fit->median_abs_error, 1e-3);
  EXPECT_LT(fit->time_weighted_abs_error, 1e-3);
  // Collectives and syncs are no rows; every compute op is.
  EXPECT_GT(fit->rows.size(), 100u);
  EXPECT_LT(fit->rows.size(), s.built.plan.ops.size());

  // A device twice as slow at attention, and only there, moves only that rate.
  p.attention_efficiency = 0.025;
  const std::vector<exec::OpTiming> slower = timeline_at(s, p, cluster.gpu);
  auto fit2 = fit_device_rates({{"gpt2", &s, &slower, cluster.gpu, configs::Precision::kBf16}});
  ASSERT_TRUE(fit2.ok());
  EXPECT_NEAR(fit2->attention_efficiency, 0.025, 1e-4);
  EXPECT_NEAR(fit2->hbm_efficiency, 0.6, 1e-3);
}

// With the optimizer offloaded, the host's two rates come back too: the pinned copies' and
// CPU Adam's per core, beside the device's.
TEST(DeviceFit, RecoversTheHostRatesOfAnOffloadedOptimizer) {
  const sim::SimulationResult s = gpt2_simulation(R"({"train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 1, "bf16": {"enabled": true},
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}, "zero_optimization": {"stage": 2,
    "offload_optimizer": {"device": "cpu", "pin_memory": true}}})");
  const configs::Cluster cluster = *configs::make_cluster("h100-80gb-sxm", 1, 1);
  sim::CostProfile p = device_rates(cluster);
  p.pcie_pinned_bytes_per_s = 3e9;
  p.cpu_adam_bytes_per_s_per_core = 1.5e9;
  const std::vector<exec::OpTiming> timeline = timeline_at(s, p, cluster.gpu, 16);
  auto fit = fit_device_rates(
      {{"gpt2", &s, &timeline, cluster.gpu, configs::Precision::kBf16, /*cpu_cores=*/16}});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  EXPECT_NEAR(fit->pcie_pinned_bytes_per_s, 3e9, 3e6);
  EXPECT_NEAR(fit->cpu_adam_bytes_per_s_per_core, 1.5e9, 1.5e6);
  EXPECT_EQ(fit->cpu_cores, 16);
  EXPECT_NEAR(fit->hbm_efficiency, 0.6, 1e-3);
  EXPECT_LT(fit->median_abs_error, 1e-3);
}

TEST(DeviceFit, ARunWithNothingToFitIsRefused) {
  const sim::SimulationResult s = gpt2_simulation();
  const std::vector<exec::OpTiming> none;
  const configs::Cluster cluster = *configs::make_cluster("h100-80gb-sxm", 1, 1);
  auto fit = fit_device_rates({{"gpt2", &s, &none, cluster.gpu, configs::Precision::kBf16}});
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.status().message().find("timed no op"), std::string::npos);
  EXPECT_FALSE(fit_device_rates({{"gpt2", nullptr, &none, cluster.gpu}}).ok());
}

TEST(DeviceFit, GemmSizesFallInTheNearestPowerOfTwoColumn) {
  EXPECT_EQ(gemm_size_column(10), 0);
  EXPECT_EQ(gemm_size_column(128), 0);
  EXPECT_EQ(gemm_size_column(180), 0);  // log2 7.49
  EXPECT_EQ(gemm_size_column(182), 1);  // log2 7.51
  EXPECT_EQ(gemm_size_column(1024), 3);
  EXPECT_EQ(gemm_size_column(16384), 7);
  EXPECT_EQ(gemm_size_column(1e6), 7);
}

// What calibrate writes loads onto the preset's profile with the fitted rates, fused kernels and
// no DeepSpeed Python; a CPU cluster refuses it.
TEST(DeviceFit, TheProfileIsOneSimulateReadsForTheGpuPreset) {
  CudaCalibration c;
  c.device = "NVIDIA Test GPU";
  c.gpu_preset = "h100-80gb-sxm";
  c.models = {"calibration-a: hidden 256"};
  c.fit.gemm_sides = {400, 1500, 5000};
  c.fit.gemm_efficiency = {0.2, 0.5, 0.0};  // the last not measured: left out
  c.fit.unaligned_efficiency = 0.1;
  c.fit.unaligned_side = 1400;
  c.fit.attention_efficiency = 0.02;
  c.fit.hbm_efficiency = 0.45;
  c.fit.pcie_pinned_bytes_per_s = 2.5e9;
  c.fit.cpu_adam_bytes_per_s_per_core = 1.25e9;
  c.fit.cpu_cores = 16;
  c.fit.rows = {{"calibration-a", 3, "mb0.fwd.x", 1e-3, 1.1e-3}};
  const json::Json j = cuda_profile_json(c, "2026-11-26", "abc1234", "zerosim calibrate");
  auto doc = json::parse_text(j.dump(), "cuda.json");
  ASSERT_TRUE(doc.ok());
  const configs::Cluster cluster = *configs::make_cluster("h100-80gb-sxm", 1, 1);
  auto p = sim::cost_profile_from_document(*doc, sim::default_cost_profile(cluster));
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->gemm_efficiency.size(), 2u);
  EXPECT_EQ(p->gemm_efficiency[1], (sim::CurvePoint{1500, 0.5}));
  EXPECT_DOUBLE_EQ(p->gemm_sustained, 1.0);
  // Of the curve at 1400, between 400 (0.2) and 1500 (0.5), linear in log(size).
  const double at_1400 = 0.2 + 0.3 * std::log(1400.0 / 400) / std::log(1500.0 / 400);
  EXPECT_NEAR(p->gemm_unaligned_efficiency, 0.1 / at_1400, 1e-12);
  EXPECT_DOUBLE_EQ(p->attention_efficiency, 0.02);
  EXPECT_DOUBLE_EQ(p->hbm_efficiency, 0.45);
  EXPECT_DOUBLE_EQ(p->pcie_pinned_bytes_per_s, 2.5e9);
  EXPECT_DOUBLE_EQ(p->cpu_adam_bytes_per_s_per_core, 1.25e9);
  EXPECT_EQ(p->cpu_cores_per_rank, 16);
  EXPECT_EQ(p->kernel_style, sim::KernelStyle::kFused);
  for (double s : p->host_call_s) EXPECT_EQ(s, 0.0);
  EXPECT_NE(p->stamp.find("NVIDIA Test GPU"), std::string::npos);

  sim::CostProfile cpu_base = sim::default_cost_profile(cluster);
  cpu_base.backend = "cpu";
  EXPECT_FALSE(sim::cost_profile_from_document(*doc, cpu_base).ok());
}

// The calibration models plan on every GPU preset, with head_dims the CUDA kernels take, and
// between them fill the GEMM size columns from 512 to 4096 and the unaligned one.
TEST(CudaCalibration, ItsModelsPlanOnEveryPresetAndSpanTheGemmSizes) {
  for (const char* preset : {"h100-80gb-sxm", "h200", "a100-40gb", "v100-32gb"}) {
    auto plans = plan_cuda_calibration(preset);
    ASSERT_TRUE(plans.ok()) << preset << ": " << plans.status().message();
    ASSERT_EQ(plans->size(), 6u);
    std::vector<bool> column(8, false);
    bool unaligned = false;
    for (const CalibrationPlan& p : *plans) {
      const plan::ModelGraph& g = *p.sim->built.layout.graph;
      EXPECT_LE(g.spec.head_dim, 128) << p.model;
      EXPECT_FALSE(p.sim->memory.gpu_oom) << preset << " " << p.model;
      for (const models::Op& op : g.ops) {
        if (op.kind != models::OpKind::kLinear) continue;
        const auto& s = std::get<models::GemmShape>(op.shape);
        if (s.n % 8 != 0) {
          unaligned = true;
        } else {
          column[static_cast<std::size_t>(
              gemm_size_column(std::cbrt(static_cast<double>(s.m) * s.n * s.k)))] = true;
        }
      }
    }
    for (int c = 2; c <= 5; ++c) EXPECT_TRUE(column[static_cast<std::size_t>(c)]) << c;
    EXPECT_TRUE(unaligned);
  }
  EXPECT_FALSE(plan_cuda_calibration("no-such-gpu").ok());
}

}  // namespace
}  // namespace zs::calibrate
