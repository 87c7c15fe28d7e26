// A CPU device (configs::GpuSpec::backend "cpu"): zerosim's CPU backend priced as its kernels
// run, one op after the other.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>

#include "models/zoo.h"
#include "sim/cost_model.h"
#include "sim/cost_profile.h"
#include "sim/simulate.h"

namespace zs::sim {
namespace {

configs::Cluster cpu_cluster(int ranks) {
  configs::Cluster c;
  c.preset = "custom";
  c.gpu.name = "test core";
  c.gpu.backend = "cpu";
  c.gpu.fp32_flops_per_s = 40e9;
  c.gpu.hbm_bytes = std::int64_t{8} << 30;
  c.gpu.hbm_bw_bytes_per_s = 20e9;
  c.gpu.sm_count = 1;
  c.gpu.pcie_gen = 1;
  c.gpu.pcie_bw_bytes_per_s = 10e9;
  c.node.name = "test host";
  c.node.max_gpus_per_node = 8;
  c.node.nic_bw_bytes_per_s = 1e9;
  c.node.host_memory_bytes = std::int64_t{32} << 30;
  c.node.cpu_cores = 8;
  c.gpus_per_node = ranks;
  EXPECT_TRUE(configs::validate_cluster(c).is_ok());
  return c;
}

SimulationResult simulate_tiny(int stage, int ranks, const std::optional<CostProfile>& profile,
                               const configs::Cluster& cluster) {
  static int counter = 0;
  const std::string path = ::testing::TempDir() + "zs_cpu_device_" + std::to_string(getpid()) +
                           "_" + std::to_string(counter++) + ".json";
  std::ofstream(path) << R"({"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2,
    "bf16": {"enabled": true}, "optimizer": {"type": "AdamW", "params": {"lr": 1e-3}},
    "zero_optimization": {"stage": )"
                      << stage << R"(, "reduce_bucket_size": 20000}})";
  SimulationRequest r;
  r.config_path = path;
  auto model = models::zoo_model("tiny-gpt");
  EXPECT_TRUE(model.ok());
  r.model = *model;
  r.cluster = cluster;
  EXPECT_EQ(cluster.world_size(), ranks);
  r.seq_len = 64;
  r.profile = profile;
  auto result = simulate(r);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return std::move(result).value();
}

TEST(CpuDevice, PricesEachModelOpAtItsKernelsCalibratedRate) {
  const configs::Cluster cluster = cpu_cluster(1);
  CostProfile p = default_cost_profile(cluster);
  ASSERT_EQ(p.backend, "cpu");
  p.gemm_efficiency = {{10, 0.5}};
  p.cpu_s_per_unit[static_cast<std::size_t>(models::OpKind::kNorm)] = {2e-9, 3e-9};
  p.cpu_s_per_unit[static_cast<std::size_t>(models::OpKind::kActivation)] = {17e-9, 19e-9};
  p.cpu_s_per_unit[static_cast<std::size_t>(models::OpKind::kAttention)] = {50e-12, 70e-12};
  p.cpu_attention_pair_s = {5e-9, 9e-9};
  const SimulationResult r = simulate_tiny(0, 1, p, cluster);
  const plan::ModelGraph& graph = *r.built.layout.graph;
  const ModelOpTimes& t = r.time.priced_model->times;
  int seen_norm = 0, seen_linear = 0, seen_gelu = 0, seen_attention = 0;
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    const models::Op& op = graph.ops[i];
    if (op.kind == models::OpKind::kNorm) {
      const auto& s = std::get<models::NormShape>(op.shape);
      EXPECT_DOUBLE_EQ(t.fwd_s[i], 2e-9 * static_cast<double>(s.rows * s.cols));
      EXPECT_DOUBLE_EQ(t.bwd_s[i], 3e-9 * static_cast<double>(s.rows * s.cols));
      ++seen_norm;
    } else if (op.kind == models::OpKind::kLinear) {
      EXPECT_DOUBLE_EQ(t.fwd_s[i], static_cast<double>(op.cost.fwd_flops) / (40e9 * 0.5));
      EXPECT_DOUBLE_EQ(t.bwd_s[i], static_cast<double>(op.cost.bwd_flops) / (40e9 * 0.5));
      ++seen_linear;
    } else if (op.kind == models::OpKind::kActivation) {
      const auto numel = std::get<models::ElementwiseShape>(op.shape).numel;
      EXPECT_DOUBLE_EQ(t.fwd_s[i], 17e-9 * static_cast<double>(numel));
      ++seen_gelu;
    } else if (op.kind == models::OpKind::kAttention ||
               op.kind == models::OpKind::kFlashAttention) {
      // tiny-gpt: 4 sequences of 64 tokens, 4 heads, causal: 64 x 65 / 2 scores per head.
      const double scores = 4.0 * 4 * 64 * 65 / 2;
      EXPECT_DOUBLE_EQ(t.fwd_s[i], 50e-12 * static_cast<double>(op.cost.fwd_flops) + 5e-9 * scores);
      EXPECT_DOUBLE_EQ(t.bwd_s[i], 70e-12 * static_cast<double>(op.cost.bwd_flops) + 9e-9 * scores);
      ++seen_attention;
    }
  }
  EXPECT_EQ(seen_attention, 2);
  EXPECT_EQ(seen_norm, 5);    // two per layer and the final one
  EXPECT_EQ(seen_linear, 9);  // four per layer and the LM head
  EXPECT_EQ(seen_gelu, 2);
}

// The CPU backend runs every op on the rank's one thread in Plan order: the step is the sum of
// the ops' own times, nothing overlaps.
TEST(CpuDevice, TheStepIsItsOpsOneAfterAnother) {
  for (int stage : {1, 2, 3}) {
    const configs::Cluster cluster = cpu_cluster(2);
    const SimulationResult r = simulate_tiny(stage, 2, std::nullopt, cluster);
    const plan::Plan& plan = r.built.plan;
    double sum = 0;
    double runs = 0;  // op executions: the engine rounds each to whole nanoseconds
    std::vector<int> repeats(plan.ops.size(), 1);
    for (const plan::Segment& s : plan.segments) {
      for (int i = s.first_op; i < s.end_op; ++i) repeats[static_cast<std::size_t>(i)] = s.repeat;
    }
    for (std::size_t i = 0; i < plan.ops.size(); ++i) {
      const OpCost& c = r.time.priced.costs[i];
      double link_s = 0;
      if (c.link >= 0) link_s = c.link_amount / r.time.priced.links[c.link].capacity;
      sum += (c.host_s + c.host_wait_s + c.fixed_s + link_s) * repeats[i];
      runs += repeats[i];
    }
    EXPECT_NEAR(r.time.step_s, sum, 2e-9 * runs) << "stage " << stage;
    EXPECT_GT(r.time.breakdown.exposed_comm_s, 0) << "stage " << stage;
    // No DeepSpeed Python runs in the CPU backend.
    for (double task_s : r.time.host.task_s) EXPECT_EQ(task_s, 0) << "stage " << stage;
  }
}

TEST(CpuDevice, HoldsNoCudaContextOrNcclBuffers) {
  const SimulationResult r = simulate_tiny(2, 2, std::nullopt, cpu_cluster(2));
  EXPECT_EQ(r.memory.gpu_peak_bytes, r.memory.gpu_allocator_allocated_peak_bytes);
  EXPECT_LT(r.memory.gpu_peak_bytes, std::int64_t{16} << 20);
}

TEST(CpuDevice, AProfileChangesItsFiguresAndAGpuPresetRefusesIt) {
  const configs::Cluster cluster = cpu_cluster(2);
  const std::string text =
      R"({"backend": "cpu", "gemm_efficiency": [[16, 0.2], [512, 0.3]],
          "cpu_s_per_unit": {"activation": [4e-8, 5e-8]}, "mpi_latency_s": 1e-4,
          "mpi_busbw_bytes_per_s": 1e9, "spread": {"anything": 1}})";
  auto doc = json::parse_text(text, "cpu.json");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  auto p = cost_profile_from_document(*doc, default_cost_profile(cluster));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->cpu_s_per_unit[static_cast<std::size_t>(models::OpKind::kActivation)][1], 5e-8);
  const SimulationResult defaults = simulate_tiny(2, 2, std::nullopt, cluster);
  const SimulationResult calibrated = simulate_tiny(2, 2, *p, cluster);
  EXPECT_GT(calibrated.time.step_s, 1.5 * defaults.time.step_s);

  auto gpu = configs::make_cluster("h100-80gb-sxm", 1, 2);
  ASSERT_TRUE(gpu.ok());
  auto refused = cost_profile_from_document(*doc, default_cost_profile(*gpu));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("cpu.json:1:2: error: backend"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("--backend cuda"), std::string::npos);
}

TEST(CpuDevice, RejectsBadPerUnitCosts) {
  const configs::Cluster cluster = cpu_cluster(1);
  for (const char* bad :
       {R"({"cpu_s_per_unit": {"gelu": [1e-9, 1e-9]}})", R"({"cpu_s_per_unit": {"norm": [1e-9]}})",
        R"({"cpu_s_per_unit": {"norm": [-1e-9, 1e-9]}})", R"({"cpu_s_per_unit": [1e-9]})",
        R"({"mpi_busbw_bytes_per_s": 5})", R"({"host_call_s": {"engine.step": 1e-3}})"}) {
    auto doc = json::parse_text(bad, "bad.json");
    ASSERT_TRUE(doc.ok());
    auto p = cost_profile_from_document(*doc, default_cost_profile(cluster));
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.status().message().find("bad.json:"), std::string::npos) << p.status().message();
  }
}

}  // namespace
}  // namespace zs::sim
