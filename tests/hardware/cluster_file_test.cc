#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "configs/hardware/cluster.h"

namespace zs::configs {
namespace {

std::string example(const std::string& name) {
  return std::string(ZS_SOURCE_DIR) + "/configs/hardware/examples/" + name;
}

// Writes `text` to a fresh file under the test's temp dir and returns its path.
std::string write_temp(const std::string& name, const std::string& text) {
  const std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) / "zerosim_hardware_cluster_file_test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

Cluster parse_ok(const std::string& text) {
  const auto doc = json::parse_text(text, "t.json");
  EXPECT_TRUE(doc.ok());
  const auto c = parse_cluster(doc.value());
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? c.value() : Cluster{};
}

TEST(ClusterFile, LoadsTheH100Example) {
  const auto c = load_cluster_file(example("h100_4x8.json"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->preset, "h100-80gb-sxm");
  EXPECT_EQ(c->world_size(), 32);
  EXPECT_EQ(c->node.name, "DGX H100");
  EXPECT_EQ(c->gpu.hbm_bytes, 80 * kGiB);
}

TEST(ClusterFile, LoadsTheOverridesExample) {
  Diagnostics diags;
  const auto c = load_cluster_file(example("a100_80gb_overrides.json"), &diags);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(diags.items().empty());
  EXPECT_EQ(c->preset, "a100-80gb");
  EXPECT_EQ(c->world_size(), 8);
  EXPECT_EQ(c->node.name, "A100 80GB cloud node");
  EXPECT_EQ(c->node.nic_count, 4);
  EXPECT_DOUBLE_EQ(c->node.nic_bw_bytes_per_s, 12.5e9);
  EXPECT_EQ(c->node.host_memory_bytes, kTiB);
  EXPECT_EQ(c->node.nvme_count, 2);
  EXPECT_EQ(c->node.nvme_bytes_each, 3840000000000);  // kept from the preset
  EXPECT_DOUBLE_EQ(c->node.nvme_read_bw_bytes_per_s.value(), 6.5e9);
  // The preset's write figure was for its 8 drives; the file changes the count and gives none.
  EXPECT_FALSE(c->node.nvme_write_bw_bytes_per_s.has_value());
  const Measurement& ring = c->node.effective.nvlink_ring_busbw_bytes_per_s.value();
  EXPECT_DOUBLE_EQ(ring.value, 2.2e11);
  EXPECT_NE(ring.source.find("a100_80gb_overrides.json"), std::string::npos) << ring.source;
  EXPECT_NE(ring.source.find("overrides.node.effective.nvlink_ring_busbw_bytes_per_s"),
            std::string::npos)
      << ring.source;
  EXPECT_DOUBLE_EQ(c->gpu.hbm_bw_bytes_per_s, 2039e9);  // untouched GPU figures stay
}

TEST(ClusterFile, LoadsTheCustomExample) {
  const auto c = load_cluster_file(example("custom_pcie_node.json"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->preset, "custom");
  EXPECT_EQ(c->world_size(), 8);
  EXPECT_FALSE(c->gpu.nvlink_bw_bytes_per_s.has_value());
  EXPECT_FALSE(c->gpu.tf32_flops_per_s.has_value());
  EXPECT_EQ(c->node.max_gpus_per_node, 4);
  EXPECT_NE(describe_cluster(*c).find("no NVLink"), std::string::npos);
}

// `zerosim calibrate --backend cpu` writes such a file: one core per rank.
TEST(ClusterFile, ACustomCpuDeviceSaysItsBackend) {
  const Cluster c = parse_ok(R"({"gpu": {"name": "core", "backend": "cpu",
      "fp32_flops_per_s": 4e10, "hbm_bytes": 1073741824, "hbm_bw_bytes_per_s": 2e10,
      "sm_count": 1, "pcie_gen": 1, "pcie_bw_bytes_per_s": 1e10},
    "node": {"name": "host", "max_gpus_per_node": 2, "nic_count": 0, "nic_bw_bytes_per_s": 1e9,
      "host_memory_bytes": 4294967296, "cpu_cores": 2}, "gpus_per_node": 2})");
  EXPECT_EQ(c.gpu.backend, "cpu");
  EXPECT_EQ(c.world_size(), 2);
  EXPECT_NE(describe_cluster(c).find("2 CPU ranks"), std::string::npos) << describe_cluster(c);
  EXPECT_EQ(parse_ok(R"({"preset": "h100"})").gpu.backend, "cuda");
}

TEST(ClusterFile, OverridesReplaceFieldsAndNullClearsOptionals) {
  const Cluster c = parse_ok(R"({"preset": "H100", "nodes": 2,
      "overrides": {"gpu": {"hbm_bytes": 80e9, "fp8_flops_per_s": null, "sm_count": 114},
                    "node": {"nvswitch": false, "nic_latency_s": 5e-6}}})");
  EXPECT_EQ(c.gpu.hbm_bytes, 80000000000);
  // The preset's reported capacity described 80 GiB, not the new size: dropped.
  EXPECT_FALSE(c.gpu.reported_hbm_bytes.has_value());
  EXPECT_EQ(c.gpu_memory_bytes(), 80000000000);
  EXPECT_FALSE(c.gpu.fp8_flops_per_s.has_value());
  EXPECT_EQ(c.gpu.sm_count, 114);
  EXPECT_FALSE(c.node.nvswitch);
  EXPECT_DOUBLE_EQ(c.node.nic_latency_s.value(), 5e-6);
  EXPECT_EQ(c.gpus_per_node, 8);  // default: the whole node
  EXPECT_EQ(c.world_size(), 16);
}

TEST(ClusterFile, ChangingTheDriveCountDropsThePresetsNvmeTotals) {
  // Both figures are totals over the preset's 8 drives: with 2 drives they no longer hold.
  const Cluster fewer = parse_ok(R"({"preset": "a100-80gb",
      "overrides": {"node": {"nvme_count": 2, "nvme_write_bw_bytes_per_s": 7e9}}})");
  EXPECT_FALSE(fewer.node.nvme_read_bw_bytes_per_s.has_value());
  EXPECT_DOUBLE_EQ(fewer.node.nvme_write_bw_bytes_per_s.value(), 7e9);

  // The same count, or another field, keeps them.
  const Cluster same = parse_ok(R"({"preset": "a100-80gb",
      "overrides": {"node": {"nvme_count": 8, "nic_count": 4}}})");
  EXPECT_DOUBLE_EQ(same.node.nvme_read_bw_bytes_per_s.value(), 51.2e9);
  EXPECT_DOUBLE_EQ(same.node.nvme_write_bw_bytes_per_s.value(), 30.4e9);

  // A node preset under a custom GPU follows the same rule.
  const Cluster custom = parse_ok(R"({"node_preset": "dgx-2", "node": {"nvme_count": 16},
      "gpu": {"name": "x", "fp32_flops_per_s": 1e13, "hbm_bytes": 34359738368,
              "hbm_bw_bytes_per_s": 9e11, "sm_count": 80, "pcie_gen": 3,
              "pcie_bw_bytes_per_s": 1.6e10}})");
  EXPECT_EQ(custom.node.nvme_count, 16);
  EXPECT_FALSE(custom.node.nvme_read_bw_bytes_per_s.has_value());
}

TEST(ClusterFile, NodePresetPutsV100sIntoADgx2) {
  const Cluster c = parse_ok(R"({"preset": "v100", "node_preset": "dgx-2", "gpus_per_node": 16})");
  EXPECT_EQ(c.preset, "v100-32gb");
  EXPECT_EQ(c.node.name, "DGX-2");
  EXPECT_TRUE(c.node.nvswitch);
  EXPECT_EQ(c.world_size(), 16);
}

struct BadFile {
  const char* name;
  const char* text;
  const char* path;  // the JSON path the error must name
};

TEST(ClusterFile, InvalidFilesNameTheFileThePathAndTheValue) {
  const BadFile cases[] = {
      {"unknown_preset", R"({"preset": "h1000"})", "preset"},
      {"ambiguous_preset", R"({"preset": "a100", "nodes": 2})", "preset"},
      {"unknown_node_preset", R"({"preset": "h100", "node_preset": "dgx-3"})", "node_preset"},
      {"zero_nodes", R"({"preset": "h100", "nodes": 0})", "nodes"},
      {"fractional_nodes", R"({"preset": "h100", "nodes": 2.5})", "nodes"},
      {"too_many_gpus", R"({"preset": "h100", "gpus_per_node": 16})", "gpus_per_node"},
      {"negative_hbm", R"({"preset": "h100", "overrides": {"gpu": {"hbm_bytes": -1}}})",
       "overrides.gpu.hbm_bytes"},
      {"zero_nic_bw", R"({"preset": "h100", "overrides": {"node": {"nic_bw_bytes_per_s": 0}}})",
       "overrides.node.nic_bw_bytes_per_s"},
      {"string_sm_count", R"({"preset": "h100", "overrides": {"gpu": {"sm_count": "many"}}})",
       "overrides.gpu.sm_count"},
      {"typo_in_override", R"({"preset": "h100", "overrides": {"gpu": {"hbm_byte": 1}}})",
       "overrides.gpu.hbm_byte"},
      {"typo_at_top", R"({"preset": "h100", "nodez": 2})", "nodez"},
      {"misplaced_gpu", R"({"preset": "h100", "gpu": {"hbm_bytes": 1}})", "gpu"},
      {"no_nic_for_two_nodes",
       R"({"preset": "h100", "nodes": 2, "overrides": {"node": {"nic_count": 0}}})",
       "overrides.node.nic_count"},
      {"negative_measurement",
       R"({"preset": "h100", "overrides": {"node": {"effective":
           {"nvlink_ring_busbw_bytes_per_s": -5}}}})",
       "overrides.node.effective.nvlink_ring_busbw_bytes_per_s"},
      {"reported_above_hbm",
       R"({"preset": "h100", "overrides": {"gpu": {"reported_hbm_bytes": 1e14}}})",
       "overrides.gpu.reported_hbm_bytes"},
      {"custom_missing_field", R"({"gpu": {"fp32_flops_per_s": 1e13}, "node_preset": "dgx-h100"})",
       "gpu.hbm_bytes"},
      {"custom_without_node", R"({"gpu": {}})", "node"},
      {"overrides_without_preset", R"({"overrides": {}})", "overrides"},
      // Absurd rates: the simulator would make steps of centuries of them (or hang on them).
      {"flops_of_one", R"({"preset": "h100", "overrides": {"gpu": {"bf16_flops_per_s": 1}}})",
       "overrides.gpu.bf16_flops_per_s"},
      {"tiny_nic", R"({"preset": "h100", "nodes": 2,
                       "overrides": {"node": {"nic_bw_bytes_per_s": 0.01}}})",
       "overrides.node.nic_bw_bytes_per_s"},
      {"hbm_in_gb", R"({"preset": "h100", "overrides": {"gpu": {"hbm_bw_bytes_per_s": 3350}}})",
       "overrides.gpu.hbm_bw_bytes_per_s"},
      {"latency_in_us", R"({"preset": "h100", "overrides": {"node": {"nic_latency_s": 5}}})",
       "overrides.node.nic_latency_s"},
      {"unknown_backend", R"({"preset": "h100", "overrides": {"gpu": {"backend": "tpu"}}})",
       "overrides.gpu.backend"},
      {"tiny_measurement",
       R"({"preset": "h100", "overrides": {"node": {"effective":
           {"nvlink_ring_busbw_bytes_per_s": 1e-7}}}})",
       "overrides.node.effective.nvlink_ring_busbw_bytes_per_s"},
  };
  for (const BadFile& bad : cases) {
    SCOPED_TRACE(bad.name);
    const std::string file = write_temp(std::string(bad.name) + ".json", bad.text);
    const auto c = load_cluster_file(file);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
    const std::string& m = c.status().message();
    EXPECT_NE(m.find(file + ":"), std::string::npos) << m;
    EXPECT_NE(m.find("]: " + std::string(bad.path) + ": "), std::string::npos) << m;
  }
}

TEST(ClusterFile, MessagesCarryValueAllowedRangeAndSuggestion) {
  const auto negative = load_cluster_file(
      write_temp("m1.json", R"({"preset": "h100", "overrides": {"gpu": {"hbm_bytes": -1}}})"));
  EXPECT_NE(
      negative.status().message().find("-1 is not allowed; expected an integer in [1048576, "),
      std::string::npos)
      << negative.status().message();

  const auto typo = load_cluster_file(
      write_temp("m2.json", R"({"preset": "h100", "overrides": {"node": {"nic_cont": 4}}})"));
  EXPECT_NE(typo.status().message().find("did you mean \"nic_count\"?"), std::string::npos)
      << typo.status().message();

  const auto gpus = load_cluster_file(write_temp("m3.json", R"({"preset": "h100",
      "gpus_per_node": 9})"));
  EXPECT_NE(gpus.status().message().find(":2:7: error[invalid-cluster]: gpus_per_node: "
                                         "gpus_per_node 9 is not allowed: a DGX H100 node holds "
                                         "1 to 8 GPUs"),
            std::string::npos)
      << gpus.status().message();
}

TEST(ClusterFile, SyntaxErrorsAreParseErrorsAndMissingFilesNotFound) {
  const auto broken = load_cluster_file(write_temp("broken.json", R"({"preset": })"));
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().code(), StatusCode::kParseError);

  const auto missing = load_cluster_file(write_temp("x.json", "{}") + ".absent");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);

  const auto not_object = load_cluster_file(write_temp("array.json", "[1, 2]"));
  ASSERT_FALSE(not_object.ok());
  EXPECT_EQ(not_object.status().code(), StatusCode::kInvalidArgument);
}

TEST(ClusterFile, WarningsReachTheCaller) {
  Diagnostics diags;
  const auto c =
      load_cluster_file(write_temp("w.json", R"({"preset": "h100", "nodes": "2"})"), &diags);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->nodes, 2);
  ASSERT_EQ(diags.count(Severity::kWarning), 1);
  EXPECT_EQ(diags.items()[0].path, "nodes");
}

}  // namespace
}  // namespace zs::configs
