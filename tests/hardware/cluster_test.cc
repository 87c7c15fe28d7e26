#include "configs/hardware/cluster.h"

#include <gtest/gtest.h>

namespace zs::configs {
namespace {

TEST(Cluster, WorldSizeIsNodesTimesGpusPerNode) {
  const Cluster c = make_cluster("h100", 4, 8).value();
  EXPECT_EQ(c.preset, "h100-80gb-sxm");
  EXPECT_EQ(c.nodes, 4);
  EXPECT_EQ(c.gpus_per_node, 8);
  EXPECT_EQ(c.world_size(), 32);
  EXPECT_EQ(make_cluster("a100-40gb", 1, 1).value().world_size(), 1);
  EXPECT_EQ(make_cluster("v100", 3, 5).value().world_size(), 15);
}

TEST(Cluster, RejectsNodeAndGpuCountsOutsideTheNode) {
  const auto zero_nodes = make_cluster("h100", 0, 8);
  ASSERT_FALSE(zero_nodes.ok());
  EXPECT_EQ(zero_nodes.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(zero_nodes.status().message().find("nodes must be an integer >= 1, got 0"),
            std::string::npos)
      << zero_nodes.status().message();

  const auto too_many = make_cluster("h100", 1, 9);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = too_many.status().message();
  EXPECT_NE(m.find("gpus_per_node 9 is not allowed: a DGX H100 node holds 1 to 8 GPUs"),
            std::string::npos)
      << m;

  EXPECT_FALSE(make_cluster("h100", 1, 0).ok());
  EXPECT_FALSE(make_cluster("v100", 1, 16).ok());  // DGX-1 holds 8; DGX-2 needs node_preset
}

TEST(Cluster, PresetLookupErrorsPassThrough) {
  const auto ambiguous = make_cluster("a100", 1, 8);
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_EQ(ambiguous.status().code(), StatusCode::kInvalidArgument);
  const auto unknown = make_cluster("b200", 1, 8);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
}

TEST(Cluster, ValidateCatchesCrossFieldMistakes) {
  Cluster c = make_cluster("a100-80gb", 2, 8).value();
  c.node.nic_count = 0;
  Status s = validate_cluster(c);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("a cluster of 2 nodes needs node.nic_count >= 1, got 0"),
            std::string::npos)
      << s.message();
  c.nodes = 1;  // one node needs no NIC
  EXPECT_TRUE(validate_cluster(c).is_ok());

  c.gpu.reported_hbm_bytes = c.gpu.hbm_bytes + 1;
  s = validate_cluster(c);
  EXPECT_NE(s.message().find("gpu.reported_hbm_bytes"), std::string::npos) << s.message();

  c = make_cluster("h200", 1, 8).value();
  c.gpu.hbm_bw_bytes_per_s = 0;
  c.gpu.fp8_flops_per_s = -1;
  s = validate_cluster(c);
  EXPECT_NE(s.message().find("gpu.hbm_bw_bytes_per_s must be a number > 0, got 0"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("gpu.fp8_flops_per_s must be a number > 0, got -1"), std::string::npos)
      << s.message();
}

TEST(Cluster, GpuMemoryPrefersWhatTheDriverReports) {
  Cluster c = make_cluster("h100", 1, 8).value();
  EXPECT_EQ(c.gpu_memory_bytes(), 81089 * kMiB);
  c.gpu.reported_hbm_bytes.reset();
  EXPECT_EQ(c.gpu_memory_bytes(), 80 * kGiB);
}

TEST(Cluster, DescriptionIsTwoDeterministicLines) {
  const Cluster c = make_cluster("h100", 4, 8).value();
  EXPECT_EQ(describe_cluster(c),
            "cluster: 4 x 8 = 32 GPUs h100-80gb-sxm (NVIDIA H100 SXM5 80GB: 80.00 GiB HBM at "
            "3.35 TB/s, 989.5 TFLOP/s bf16 dense)\n"
            "node: DGX H100, NVLink 450 GB/s/GPU/direction via NVSwitch, PCIe Gen5 64 GB/s, "
            "8 x 400 Gb/s NICs, 2.00 TiB host memory, 112 CPU cores, 8 x 3.84 TB NVMe");
  EXPECT_EQ(describe_cluster(c), describe_cluster(make_cluster("h100-sxm", 4, 8).value()));

  const std::string v100 = describe_cluster(make_cluster("v100", 2, 8).value());
  EXPECT_NE(v100.find("125 TFLOP/s fp16 dense"), std::string::npos) << v100;
  EXPECT_NE(v100.find("in a mesh (no NVSwitch)"), std::string::npos) << v100;
}

TEST(Cluster, JsonHasEveryFieldWithNullsForUnknowns) {
  const Cluster c = make_cluster("v100", 2, 8).value();
  const json::Json j = cluster_to_json(c);
  EXPECT_EQ(j["preset"], "v100-32gb");
  EXPECT_EQ(j["nodes"], 2);
  EXPECT_EQ(j["gpus_per_node"], 8);
  EXPECT_EQ(j["world_size"], 16);
  EXPECT_EQ(j["gpu"]["hbm_bytes"], 32 * kGiB);
  EXPECT_DOUBLE_EQ(j["gpu"]["fp16_flops_per_s"].get<double>(), 125e12);
  EXPECT_TRUE(j["gpu"]["bf16_flops_per_s"].is_null());
  EXPECT_TRUE(j["gpu"]["fp8_flops_per_s"].is_null());
  EXPECT_EQ(j["node"]["nvswitch"], false);
  EXPECT_TRUE(j["node"]["nvme_read_bw_bytes_per_s"].is_null());
  EXPECT_TRUE(j["node"]["effective"]["nvlink_ring_busbw_bytes_per_s"].is_null());

  const json::Json h = cluster_to_json(make_cluster("h100", 1, 8).value());
  const json::Json& ring = h["node"]["effective"]["nvlink_ring_busbw_bytes_per_s"];
  EXPECT_DOUBLE_EQ(ring["value"].get<double>(), 370e9);
  EXPECT_NE(ring["source"].get<std::string>().find("nccl-tests#212"), std::string::npos);
  EXPECT_EQ(h.dump(), cluster_to_json(make_cluster("h100", 1, 8).value()).dump());
}

}  // namespace
}  // namespace zs::configs
