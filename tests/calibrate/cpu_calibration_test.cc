#include "calibrate/cpu_calibration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "configs/hardware/cluster.h"
#include "sim/cost_profile.h"

namespace zs::calibrate {
namespace {

// What calibrate writes is what simulate reads: the cluster file parses as a CPU cluster of the
// measured ranks, and the profile loads onto that cluster's defaults with the measured figures.
TEST(CpuCalibration, ItsFilesAreTheClusterAndProfileSimulateReads) {
  CpuCalibration c;
  c.machine = {.cpu_name = "Test CPU",
               .logical_cpus = 4,
               .memory_bytes = std::int64_t{8} << 30,
               .clock_hz = 2.5e9,
               .vector_bits = 128};
  c.ranks = 2;
  c.gemm = {{.side = 16, .efficiency = 0.3, .seconds = {}},
            {.side = 512, .efficiency = 0.6, .seconds = {}}};
  const auto norm = static_cast<std::size_t>(models::OpKind::kNorm);
  c.per_unit[norm] = {Spread{2e-9, 1.9e-9, 2.2e-9, 5}, Spread{3e-9, 2.9e-9, 3.3e-9, 5}};
  c.measured[norm] = true;
  const auto attention = static_cast<std::size_t>(models::OpKind::kAttention);
  c.per_unit[attention] = {Spread{50e-12, 40e-12, 60e-12, 5}, Spread{70e-12, 60e-12, 80e-12, 5}};
  c.attention_pair_s = {Spread{5e-9, 4e-9, 6e-9, 5}, Spread{9e-9, 8e-9, 10e-9, 5}};
  c.measured[attention] = true;
  c.memcpy_bytes_per_s = {1e10, 9e9, 1.1e10, 5};
  c.cast_bytes_per_s = {8e9, 7e9, 9e9, 5};
  c.adam_bytes_per_s = {6e9, 5e9, 7e9, 5};
  c.op_overhead_s = 4e-8;
  c.collectives = {
      {.kind = "all_reduce", .bytes = 4096, .bus_bytes = 4096, .seconds = {1e-5, 9e-6, 2e-5, 5}}};
  c.mpi_latency_s = 5e-6;
  c.mpi_busbw_bytes_per_s = 5e9;
  c.mpi_allreduce_latency_s = 8e-6;
  c.mpi_allreduce_busbw_bytes_per_s = 4e9;

  auto cluster_doc = json::parse_text(cpu_cluster_json(c).dump(), "cpu.cluster.json");
  ASSERT_TRUE(cluster_doc.ok());
  auto cluster = configs::parse_cluster(*cluster_doc);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  EXPECT_EQ(cluster->gpu.backend, "cpu");
  EXPECT_EQ(cluster->world_size(), 2);
  EXPECT_DOUBLE_EQ(cluster->gpu.fp32_flops_per_s, 2.5e9 * 4 * 4);
  EXPECT_EQ(cluster->gpu.hbm_bytes, std::int64_t{4} << 30);
  EXPECT_DOUBLE_EQ(cluster->gpu.hbm_bw_bytes_per_s, 2e10);

  // Issue 28 item 1: more ranks than logical CPUs (mpirun --oversubscribe) still writes a
  // cluster file simulate accepts, of that many ranks.
  CpuCalibration over = c;
  over.ranks = 6;
  auto over_doc = json::parse_text(cpu_cluster_json(over).dump(), "over.cluster.json");
  ASSERT_TRUE(over_doc.ok());
  auto over_cluster = configs::parse_cluster(*over_doc);
  ASSERT_TRUE(over_cluster.ok()) << over_cluster.status().message();
  EXPECT_EQ(over_cluster->world_size(), 6);

  auto profile_doc = json::parse_text(
      cpu_profile_json(c, "2026-11-26", "abc1234", "zerosim calibrate").dump(), "cpu.json");
  ASSERT_TRUE(profile_doc.ok());
  auto p = sim::cost_profile_from_document(*profile_doc, sim::default_cost_profile(*cluster));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->backend, "cpu");
  EXPECT_EQ(p->gemm_efficiency.size(), 2u);
  EXPECT_DOUBLE_EQ(p->gemm_efficiency[1].efficiency, 0.6);
  EXPECT_DOUBLE_EQ(p->cpu_s_per_unit[norm][1], 3e-9);
  EXPECT_DOUBLE_EQ(p->cpu_s_per_unit[attention][0], 50e-12);
  EXPECT_DOUBLE_EQ(p->cpu_attention_pair_s[1], 9e-9);
  EXPECT_DOUBLE_EQ(p->hbm_efficiency, 8e9 / 2e10);
  EXPECT_DOUBLE_EQ(p->cpu_adam_bytes_per_s_per_core, 6e9);
  EXPECT_DOUBLE_EQ(p->mpi_latency_s, 5e-6);
  EXPECT_DOUBLE_EQ(p->mpi_busbw_bytes_per_s, 5e9);
  EXPECT_DOUBLE_EQ(p->mpi_allreduce_latency_s, 8e-6);
  EXPECT_DOUBLE_EQ(p->mpi_allreduce_busbw_bytes_per_s, 4e9);
  EXPECT_NE(p->stamp.find("commit abc1234"), std::string::npos) << p->stamp;
}

// One rank, one repeat: every benchmark runs and gives a figure of the right form.
TEST(CpuCalibration, MeasuresEveryFigureOnThisMachine) {
  std::vector<std::string> lines;
  CalibrateOptions o;
  o.repeats = 1;
  o.rounds = 3;
  o.progress = [&lines](const std::string& l) { lines.push_back(l); };
  auto c = calibrate_cpu(o, nullptr);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_GT(c->machine.fp32_peak_flops_per_s(), 1e9);
  ASSERT_EQ(c->gemm.size(), 6u);
  for (const GemmPoint& g : c->gemm) {
    EXPECT_GT(g.efficiency, 0) << g.side;
    EXPECT_LE(g.efficiency, 1) << g.side;
  }
  for (models::OpKind k :
       {models::OpKind::kEmbedding, models::OpKind::kNorm, models::OpKind::kRotary,
        models::OpKind::kAttention, models::OpKind::kActivation, models::OpKind::kSwiGlu,
        models::OpKind::kResidualAdd, models::OpKind::kCrossEntropy}) {
    const auto i = static_cast<std::size_t>(k);
    EXPECT_TRUE(c->measured[i]) << models::op_kind_name(k);
    for (int pass : {0, 1}) {
      const auto p = static_cast<std::size_t>(pass);
      EXPECT_GE(c->per_unit[i][p].median, 0) << models::op_kind_name(k);
      // Attention is fitted as two non-negative terms, per FLOP and per score; on a busy machine
      // either may come out 0, but not both.
      const double pair_s = k == models::OpKind::kAttention ? c->attention_pair_s[p].median : 0.0;
      EXPECT_GT(c->per_unit[i][p].median + pair_s, 0) << models::op_kind_name(k);
    }
  }
  // Measured rates: how high they are depends on how busy the machine is, so only their form
  // is checked (positive, finite, the median within its spread).
  for (const Spread* s : {&c->memcpy_bytes_per_s, &c->adam_bytes_per_s}) {
    EXPECT_TRUE(std::isfinite(s->max) && s->min > 0);
    EXPECT_LE(s->min, s->median);
    EXPECT_LE(s->median, s->max);
  }
  EXPECT_TRUE(c->collectives.empty());  // one rank: nothing to time
  // A line per benchmark of the first round: 6 GEMMs, 8 op kinds, memcpy, rounding, Adam (one
  // rank: no MPI lines); a line for each round done but the last, and the rounds' spread.
  EXPECT_EQ(lines.size(), 17u + 2u + 1u);
  EXPECT_NE(lines.back().find("3 rounds"), std::string::npos) << lines.back();
  // Each round's speed against their median, and how far they disagree: the median round is 1.
  ASSERT_EQ(c->round_speed.size(), 3u);
  std::vector<double> speeds = c->round_speed;
  std::sort(speeds.begin(), speeds.end());
  EXPECT_GT(speeds[0], 0);
  EXPECT_NEAR(c->spread, (speeds[2] - speeds[0]) / speeds[1], 1e-12);
  // Each figure is the median of the rounds': its repeats are the rounds' together.
  EXPECT_EQ(c->memcpy_bytes_per_s.repeats, 3);
  const json::Json profile = cpu_profile_json(*c, "2026-11-29", "abc1234", "zerosim calibrate");
  EXPECT_DOUBLE_EQ(profile["calibration_spread"].get<double>(), c->spread);
  EXPECT_EQ(profile["spread"]["rounds"]["time_against_median"].size(), 3u);
}

}  // namespace
}  // namespace zs::calibrate
