// Default effective rates and calibration files.
#include "sim/cost_profile.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "common/json_reader.h"

namespace zs::sim {
namespace {

CostProfile defaults(const char* gpu, int nodes = 1) {
  auto c = configs::make_cluster(gpu, nodes, 8);
  EXPECT_TRUE(c.ok());
  return default_cost_profile(*c);
}

std::string write(const std::string& text) {
  static int n = 0;
  const std::string path = ::testing::TempDir() + "zs_profile_" + std::to_string(getpid()) + "_" +
                           std::to_string(n++) + ".json";
  std::ofstream(path) << text;
  return path;
}

TEST(CostProfile, PresetsUseMeasuredBandwidthsNotLineRates) {
  const CostProfile h = defaults("h100");
  EXPECT_DOUBLE_EQ(h.nvlink_ring_busbw_bytes_per_s, 370e9);             // nccl-tests#212
  EXPECT_DOUBLE_EQ(h.nic_busbw_bytes_per_s, 47e9);                      // NDR, nccl-tests#290
  EXPECT_DOUBLE_EQ(defaults("a100-80gb").nic_busbw_bytes_per_s, 24e9);  // HDR, nccl#412
  EXPECT_LT(h.pcie_pinned_bytes_per_s, 64e9);
  for (const char* g : {"v100", "a100-40gb", "a100-80gb", "h100", "h200"}) {
    const CostProfile p = defaults(g);
    EXPECT_GT(p.hbm_efficiency, 0.5) << g;
    EXPECT_LT(p.hbm_efficiency, 1.0) << g;
    EXPECT_FALSE(p.gemm_efficiency.empty()) << g;
    EXPECT_GT(p.cpu_adam_bytes_per_s_per_core, 0) << g;
  }
}

TEST(CostProfile, GemmEfficiencyInterpolatesInLogSizeAndClamps) {
  CostProfile p;
  p.gemm_efficiency = {{1024, 0.2}, {4096, 0.8}};
  EXPECT_DOUBLE_EQ(gemm_efficiency(p, 100), 0.2);
  EXPECT_DOUBLE_EQ(gemm_efficiency(p, 1e6), 0.8);
  EXPECT_NEAR(gemm_efficiency(p, 2048), 0.5, 1e-12);
}

// The defaults carry the calibration's fit (configs/profiles/published_runs_fit.json, made by
// scripts/calibrate_published.sh): a refit that is not copied into cost_profile.cc fails here.
TEST(CostProfile, DefaultsAreTheCommittedCalibrationFit) {
  auto doc =
      json::parse_file(std::string(ZS_SOURCE_DIR) + "/configs/profiles/published_runs_fit.json");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const json::Json& params = doc->root["parameters"];
  const std::pair<const char*, const char*> gens[] = {
      {"v100", "volta-turing"}, {"a100-80gb", "ampere"}, {"h100", "hopper"}, {"h200", "hopper"}};
  for (const auto& [gpu, gen] : gens) {
    SCOPED_TRACE(gpu);
    const CostProfile p = defaults(gpu);
    EXPECT_DOUBLE_EQ(p.gemm_sustained, params["gemm_sustained"][gen].get<double>());
    EXPECT_DOUBLE_EQ(p.host_python_slowdown, params["host_python_slowdown"].get<double>());
    EXPECT_DOUBLE_EQ(p.host_memory_efficiency, params["host_memory_efficiency"].get<double>());
    EXPECT_DOUBLE_EQ(p.sync_s, params["sync_s"].get<double>());
  }
  // Each fitted value lies in the range the fit searched.
  for (const char* key : {"host_python_slowdown", "host_memory_efficiency", "sync_s"}) {
    EXPECT_GE(params[key].get<double>(), doc->root["ranges"][key][0].get<double>()) << key;
    EXPECT_LE(params[key].get<double>(), doc->root["ranges"][key][1].get<double>()) << key;
  }
  for (const auto& [gen, v] : params["gemm_sustained"].items()) {
    EXPECT_GE(v.get<double>(), doc->root["ranges"]["gemm_sustained"][0].get<double>()) << gen;
    EXPECT_LE(v.get<double>(), doc->root["ranges"]["gemm_sustained"][1].get<double>()) << gen;
  }
}

TEST(CostProfile, CalibrationFileReplacesFields) {
  const std::string path =
      write(R"({"hbm_efficiency": 0.5, "gemm_efficiency": [[512, 0.1], [8192, 0.9]],
               "cpu_cores_per_rank": 4, "kernels": "fused"})");
  auto p = load_cost_profile(path, defaults("h100"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_DOUBLE_EQ(p->hbm_efficiency, 0.5);
  EXPECT_EQ(p->gemm_efficiency.size(), 2u);
  EXPECT_EQ(p->cpu_cores_per_rank, 4);
  EXPECT_EQ(p->kernel_style, KernelStyle::kFused);
  EXPECT_EQ(defaults("h100").kernel_style, KernelStyle::kEager);
  EXPECT_EQ(p->source, path);
  EXPECT_DOUBLE_EQ(p->nvlink_ring_busbw_bytes_per_s, 370e9);  // untouched
  // A measured profile's stamp: the backend it measured, where and when.
  const std::string stamped = write(R"({"backend": "cuda", "machine": "H100 SXM, driver 580",
      "date": "2026-11-26", "commit": "abc123", "command": "zerosim calibrate --backend cuda",
      "hbm_efficiency": 0.7})");
  p = load_cost_profile(stamped, defaults("h100"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->backend, "cuda");
  EXPECT_EQ(p->stamp,
            "machine H100 SXM, driver 580, date 2026-11-26, commit abc123, command zerosim "
            "calibrate --backend cuda");
  EXPECT_DOUBLE_EQ(p->hbm_efficiency, 0.7);
}

TEST(CostProfile, BadCalibrationFilesNameTheKeyAndWhatIsAllowed) {
  struct Case {
    const char* text;
    const char* needle;
  } cases[] = {
      {R"({"hbm_eficiency": 0.5})", "hbm_eficiency: unknown key"},
      {R"({"hbm_efficiency": 1.5})", "hbm_efficiency: found 1.5"},
      {R"({"kernel_launch_s": -1})", "a number from 1e-09 to 1"},
      // Absurd rates would price steps of centuries (1e-20 also wrapped the int64 clock).
      {R"({"hbm_efficiency": 1e-20})", "hbm_efficiency: found 1e-20; allowed: a number from 0.001"},
      {R"({"nic_busbw_bytes_per_s": 1e-7})", "nic_busbw_bytes_per_s: found 1e-07"},
      {R"({"pcie_pinned_bytes_per_s": 1e20})", "to 1e+13"},
      {R"({"kernel_launch_s": "7us"})", "kernel_launch_s: found \"7us\""},
      {R"({"gemm_efficiency": [[4096, 0.8], [1024, 0.2]]})", "increasing"},
      {R"({"cpu_cores_per_rank": 2.5})", "an integer from 1"},
      {R"({"kernels": "compiled"})",
       "kernels: found \"compiled\"; allowed: \"eager\" or \"fused\""},
      {R"([1, 2])", "a JSON object"},
      // A profile of zerosim's CPU backend describes no GPU.
      {R"({"backend": "cpu", "hbm_efficiency": 0.5})",
       "backend: found \"cpu\": the profile was measured by `zerosim calibrate --backend cpu`, "
       "and this cluster's devices (defaults for h100-80gb-sxm) take a profile measured with "
       "--backend cuda"},
      {R"({"backend": "rocm"})", "backend: found \"rocm\"; allowed: \"cuda\" or \"cpu\""},
      {R"({"date": 20261126})", "date: found 20261126; allowed: a string"},
  };
  for (const Case& c : cases) {
    const std::string path = write(c.text);
    auto p = load_cost_profile(path, defaults("h100"));
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_NE(p.status().message().find(c.needle), std::string::npos) << p.status().message();
    EXPECT_NE(p.status().message().find(path), std::string::npos);
  }
}

}  // namespace
}  // namespace zs::sim
