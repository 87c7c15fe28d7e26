#include "configs/hardware/presets.h"

#include <gtest/gtest.h>

#include "configs/hardware/cluster.h"

namespace zs::configs {
namespace {

// The key figures of every preset are pinned here, so that an accidental edit of a sourced
// figure fails a test. Sources are in gpu_presets.cc and node_presets.cc.

HardwarePreset preset(std::string_view name) { return find_hardware_preset(name).value(); }

TEST(HardwarePresets, ListsTheSevenPresetsInOrder) {
  const std::vector<std::string> expected = {"v100-16gb", "v100-32gb", "v100-32gb-dgx2",
                                             "a100-40gb", "a100-80gb", "h100-80gb-sxm",
                                             "h200"};
  EXPECT_EQ(hardware_preset_names(), expected);
}

TEST(HardwarePresets, V100FiguresMatchTheDatasheet) {
  const HardwarePreset p = preset("v100-32gb");
  const GpuSpec& g = p.gpu;
  EXPECT_DOUBLE_EQ(g.fp32_flops_per_s, 15.7e12);
  EXPECT_DOUBLE_EQ(g.fp16_flops_per_s.value(), 125e12);
  EXPECT_FALSE(g.tf32_flops_per_s.has_value());
  EXPECT_FALSE(g.bf16_flops_per_s.has_value());
  EXPECT_FALSE(g.fp8_flops_per_s.has_value());
  EXPECT_EQ(g.hbm_bytes, 32 * kGiB);
  EXPECT_EQ(g.reported_hbm_bytes, 34089730048);
  EXPECT_DOUBLE_EQ(g.hbm_bw_bytes_per_s, 900e9);
  EXPECT_EQ(g.sm_count, 80);
  EXPECT_DOUBLE_EQ(g.nvlink_bw_bytes_per_s.value(), 150e9);
  EXPECT_EQ(g.pcie_gen, 3);
  EXPECT_DOUBLE_EQ(g.pcie_bw_bytes_per_s, 16e9);

  const NodeSpec& n = p.node;
  EXPECT_EQ(n.name, "DGX-1 (V100)");
  EXPECT_EQ(n.max_gpus_per_node, 8);
  EXPECT_FALSE(n.nvswitch);
  EXPECT_EQ(n.nic_count, 4);
  EXPECT_DOUBLE_EQ(n.nic_bw_bytes_per_s, 12.5e9);
  EXPECT_EQ(n.host_memory_bytes, 512 * kGiB);
  EXPECT_EQ(n.cpu_cores, 40);
  EXPECT_EQ(n.nvme_count, 4);
  // No source for the DGX-1 data SSDs' rates: unknown, not zero.
  EXPECT_FALSE(n.nvme_read_bw_bytes_per_s.has_value());
  EXPECT_FALSE(n.nvme_write_bw_bytes_per_s.has_value());
  EXPECT_FALSE(n.effective.nvlink_allreduce_busbw_bytes_per_s.has_value());
}

TEST(HardwarePresets, TheDgx2PresetIsTheV100In16GpuNvSwitchNodes) {
  const HardwarePreset p = preset("v100-sxm3");
  EXPECT_EQ(p.name, "v100-32gb-dgx2");
  EXPECT_DOUBLE_EQ(p.gpu.fp16_flops_per_s.value(), 125e12);
  EXPECT_EQ(p.gpu.hbm_bytes, 32 * kGiB);
  EXPECT_EQ(p.node.name, "DGX-2");
  EXPECT_EQ(p.node.max_gpus_per_node, 16);
  EXPECT_TRUE(p.node.nvswitch);
  EXPECT_EQ(p.node.nic_count, 8);
  EXPECT_EQ(p.node.cpu_cores, 48);
  EXPECT_TRUE(make_cluster("v100-32gb-dgx2", 2, 16).ok());
}

TEST(HardwarePresets, A100FiguresMatchTheDatasheet) {
  for (const char* name : {"a100-40gb", "a100-80gb"}) {
    SCOPED_TRACE(name);
    const GpuSpec g = preset(name).gpu;
    EXPECT_DOUBLE_EQ(g.fp32_flops_per_s, 19.5e12);
    EXPECT_DOUBLE_EQ(g.tf32_flops_per_s.value(), 156e12);
    EXPECT_DOUBLE_EQ(g.fp16_flops_per_s.value(), 312e12);
    EXPECT_DOUBLE_EQ(g.bf16_flops_per_s.value(), 312e12);
    EXPECT_FALSE(g.fp8_flops_per_s.has_value());
    EXPECT_EQ(g.sm_count, 108);
    EXPECT_DOUBLE_EQ(g.nvlink_bw_bytes_per_s.value(), 300e9);
    EXPECT_EQ(g.pcie_gen, 4);
    EXPECT_DOUBLE_EQ(g.pcie_bw_bytes_per_s, 32e9);
  }
  const HardwarePreset small = preset("a100-40gb");
  EXPECT_EQ(small.gpu.hbm_bytes, 40 * kGiB);
  EXPECT_EQ(small.gpu.reported_hbm_bytes, 42298834944);
  EXPECT_DOUBLE_EQ(small.gpu.hbm_bw_bytes_per_s, 1555e9);
  EXPECT_EQ(small.node.name, "DGX A100 320GB");
  EXPECT_EQ(small.node.host_memory_bytes, 1024 * kGiB);
  EXPECT_EQ(small.node.nvme_count, 4);
  // 4 x Samsung PM1733 U.2: 6.4 GB/s read, 3.8 GB/s write each.
  EXPECT_DOUBLE_EQ(small.node.nvme_read_bw_bytes_per_s.value(), 25.6e9);
  EXPECT_DOUBLE_EQ(small.node.nvme_write_bw_bytes_per_s.value(), 15.2e9);

  const HardwarePreset big = preset("a100-80gb");
  EXPECT_EQ(big.gpu.hbm_bytes, 80 * kGiB);
  EXPECT_EQ(big.gpu.reported_hbm_bytes, 84987740160);
  EXPECT_DOUBLE_EQ(big.gpu.hbm_bw_bytes_per_s, 2039e9);
  EXPECT_EQ(big.node.name, "DGX A100 640GB");
  EXPECT_EQ(big.node.host_memory_bytes, 2048 * kGiB);
  EXPECT_EQ(big.node.nvme_count, 8);
  EXPECT_DOUBLE_EQ(big.node.nvme_read_bw_bytes_per_s.value(), 51.2e9);
  EXPECT_DOUBLE_EQ(big.node.nvme_write_bw_bytes_per_s.value(), 30.4e9);
  for (const NodeSpec& n : {small.node, big.node}) {
    EXPECT_TRUE(n.nvswitch);
    EXPECT_EQ(n.nic_count, 8);
    EXPECT_DOUBLE_EQ(n.nic_bw_bytes_per_s, 25e9);  // 200 Gb/s HDR
    EXPECT_EQ(n.cpu_cores, 128);
    EXPECT_DOUBLE_EQ(n.effective.nvlink_ring_busbw_bytes_per_s.value().value, 230e9);
  }
}

TEST(HardwarePresets, HopperFiguresMatchTheDatasheets) {
  for (const char* name : {"h100-80gb-sxm", "h200"}) {
    SCOPED_TRACE(name);
    const HardwarePreset p = preset(name);
    const GpuSpec& g = p.gpu;
    EXPECT_DOUBLE_EQ(g.fp32_flops_per_s, 67e12);
    EXPECT_DOUBLE_EQ(g.tf32_flops_per_s.value(), 494.5e12);
    EXPECT_DOUBLE_EQ(g.fp16_flops_per_s.value(), 989.5e12);
    EXPECT_DOUBLE_EQ(g.bf16_flops_per_s.value(), 989.5e12);
    EXPECT_DOUBLE_EQ(g.fp8_flops_per_s.value(), 1979e12);
    EXPECT_EQ(g.sm_count, 132);
    EXPECT_DOUBLE_EQ(g.nvlink_bw_bytes_per_s.value(), 450e9);
    EXPECT_EQ(g.pcie_gen, 5);
    EXPECT_DOUBLE_EQ(g.pcie_bw_bytes_per_s, 64e9);
    const NodeSpec& n = p.node;
    EXPECT_TRUE(n.nvswitch);
    EXPECT_EQ(n.max_gpus_per_node, 8);
    EXPECT_EQ(n.nic_count, 8);
    EXPECT_DOUBLE_EQ(n.nic_bw_bytes_per_s, 50e9);  // 400 Gb/s NDR
    EXPECT_EQ(n.host_memory_bytes, 2048 * kGiB);
    EXPECT_EQ(n.cpu_cores, 112);
    EXPECT_EQ(n.nvme_count, 8);
    EXPECT_EQ(n.nvme_bytes_each, 3840000000000);
    // The data drives' model and rates were not found: unknown, not zero.
    EXPECT_FALSE(n.nvme_read_bw_bytes_per_s.has_value());
    EXPECT_FALSE(n.nvme_write_bw_bytes_per_s.has_value());
  }
  const HardwarePreset h100 = preset("h100-80gb-sxm");
  EXPECT_EQ(h100.gpu.hbm_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(h100.gpu.hbm_bw_bytes_per_s, 3.35e12);
  EXPECT_EQ(h100.node.name, "DGX H100");
  const auto& ring = h100.node.effective.nvlink_ring_busbw_bytes_per_s.value();
  EXPECT_DOUBLE_EQ(ring.value, 370e9);
  EXPECT_NE(ring.source.find("nccl-tests#212"), std::string::npos);
  EXPECT_DOUBLE_EQ(h100.node.effective.nvlink_allreduce_busbw_bytes_per_s.value().value, 480e9);

  const HardwarePreset h200 = preset("h200");
  EXPECT_EQ(h200.gpu.hbm_bytes, 141 * kGiB);
  EXPECT_DOUBLE_EQ(h200.gpu.hbm_bw_bytes_per_s, 4.8e12);
  EXPECT_EQ(h200.node.name, "DGX H200");
  EXPECT_DOUBLE_EQ(h200.node.effective.nvlink_allreduce_busbw_bytes_per_s.value().value, 475e9);
  EXPECT_FALSE(h200.node.effective.nvlink_ring_busbw_bytes_per_s.has_value());
}

TEST(HardwarePresets, V100With16GbDiffersOnlyInMemory) {
  const GpuSpec small = preset("v100-16gb").gpu;
  const GpuSpec big = preset("v100-32gb").gpu;
  EXPECT_EQ(small.hbm_bytes, 16 * kGiB);
  EXPECT_EQ(small.reported_hbm_bytes, 16945512448);  // deviceQuery on a V100-SXM2-16GB
  EXPECT_DOUBLE_EQ(small.fp16_flops_per_s.value(), big.fp16_flops_per_s.value());
  EXPECT_DOUBLE_EQ(small.hbm_bw_bytes_per_s, big.hbm_bw_bytes_per_s);
  EXPECT_EQ(preset("tesla-v100-sxm2-16gb").name, "v100-16gb");
}

TEST(HardwarePresets, HbmCapacityIsAWholeNumberOfGiB) {
  // NVIDIA's "GB" of HBM is read as GiB in every preset (hardware_spec.h, hbm_bytes).
  const std::pair<const char*, Bytes> cases[] = {
      {"v100-16gb", 16}, {"v100-32gb", 32},     {"v100-32gb-dgx2", 32}, {"a100-40gb", 40},
      {"a100-80gb", 80}, {"h100-80gb-sxm", 80}, {"h200", 141},
  };
  for (const auto& [name, gib] : cases) {
    SCOPED_TRACE(name);
    const GpuSpec g = preset(name).gpu;
    EXPECT_EQ(g.hbm_bytes, gib * kGiB);
  }
}

TEST(HardwarePresets, NvmeBandwidthIsForAllDataDrives) {
  // Where set, the figure is nvme_count drives at one drive's rated speed: a plausible NVMe rate.
  for (const NodePreset& np : node_presets()) {
    SCOPED_TRACE(np.name);
    const NodeSpec& n = np.node;
    if (n.nvme_read_bw_bytes_per_s) {
      ASSERT_GT(n.nvme_count, 0);
      const double per_drive = *n.nvme_read_bw_bytes_per_s / n.nvme_count;
      EXPECT_GT(per_drive, 1e9);  // above one SATA SSD
      EXPECT_LT(per_drive, 8e9);  // within one PCIe Gen4 x4 link
    }
    if (n.nvme_write_bw_bytes_per_s) {
      ASSERT_GT(n.nvme_count, 0);
      EXPECT_LT(*n.nvme_write_bw_bytes_per_s / n.nvme_count, 8e9);
    }
  }
}

TEST(HardwarePresets, EveryPresetIsAValidFullNode) {
  for (const HardwarePreset& p : hardware_presets()) {
    SCOPED_TRACE(p.name);
    Cluster c{p.name, p.gpu, p.node, 2, p.node.max_gpus_per_node};
    EXPECT_TRUE(validate_cluster(c).is_ok()) << validate_cluster(c).message();
    ASSERT_TRUE(p.gpu.reported_hbm_bytes.has_value());
    EXPECT_LT(*p.gpu.reported_hbm_bytes, p.gpu.hbm_bytes);
    EXPECT_GT(*p.gpu.reported_hbm_bytes, p.gpu.hbm_bytes * 95 / 100);
  }
}

TEST(HardwarePresets, AliasesResolveIgnoringCaseAndSeparators) {
  const std::pair<const char*, const char*> cases[] = {
      {"V100", "v100-32gb"},
      {"v100_sxm2", "v100-32gb"},
      {"A100-40GB", "a100-40gb"},
      {"a100 sxm4 80gb", "a100-80gb"},
      {"H100", "h100-80gb-sxm"},
      {"h100-sxm", "h100-80gb-sxm"},
      {"H100_SXM5", "h100-80gb-sxm"},
      {"h200-sxm", "h200"},
      {"H200", "h200"},
      {"h100-80gb-sxm", "h100-80gb-sxm"},
  };
  for (const auto& [alias, canonical] : cases) {
    const auto found = find_hardware_preset(alias);
    ASSERT_TRUE(found.ok()) << alias << ": " << found.status().message();
    EXPECT_EQ(found->name, canonical) << alias;
  }
}

TEST(HardwarePresets, BareA100IsAmbiguousAndNamesBothSizes) {
  for (const char* name : {"a100", "A100", "a100-sxm4"}) {
    const auto found = find_hardware_preset(name);
    ASSERT_FALSE(found.ok()) << name;
    EXPECT_EQ(found.status().code(), StatusCode::kInvalidArgument);
    const std::string& m = found.status().message();
    EXPECT_NE(m.find("ambiguous"), std::string::npos) << m;
    EXPECT_NE(m.find("\"a100-40gb\""), std::string::npos) << m;
    EXPECT_NE(m.find("\"a100-80gb\""), std::string::npos) << m;
  }
}

TEST(HardwarePresets, UnknownNameListsPresetsAndSuggests) {
  const auto found = find_hardware_preset("h1000");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), StatusCode::kNotFound);
  const std::string& m = found.status().message();
  EXPECT_NE(m.find("\"h1000\""), std::string::npos) << m;
  for (const std::string& name : hardware_preset_names()) {
    EXPECT_NE(m.find(name), std::string::npos) << name << " missing from: " << m;
  }
  EXPECT_NE(m.find("did you mean \"h100-80gb-sxm\"?"), std::string::npos) << m;

  const auto far = find_hardware_preset("tpu-v5");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.status().message().find("did you mean"), std::string::npos);
}

TEST(HardwarePresets, ANameCutShortSuggestsThePresetItStarts) {
  // Edit distance alone picks "a100-80gb" (2 edits) over "h100-80gb-sxm" (5).
  const auto found = find_hardware_preset("h100-80g");
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find("did you mean \"h100-80gb-sxm\"?"), std::string::npos)
      << found.status().message();
}

TEST(HardwarePresets, NearMissOfTheAmbiguousNameSuggestsBothSizes) {
  const auto found = find_hardware_preset("a10O");
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find("did you mean \"a100-40gb\" or \"a100-80gb\"?"),
            std::string::npos)
      << found.status().message();
}

TEST(NodePresets, Dgx2Holds16V100sOnNVSwitch) {
  const NodeSpec n = find_node_preset("DGX-2").value();
  EXPECT_EQ(n.max_gpus_per_node, 16);
  EXPECT_TRUE(n.nvswitch);
  EXPECT_EQ(n.nic_count, 8);
  EXPECT_DOUBLE_EQ(n.nic_bw_bytes_per_s, 12.5e9);
  EXPECT_EQ(n.host_memory_bytes, 1536 * kGiB);
  EXPECT_EQ(n.cpu_cores, 48);
  EXPECT_EQ(n.nvme_count, 8);
  // 8 data drives at "around 3.4GB/sec large read" each (NVIDIA GDS benchmarking guide); no
  // write figure was found.
  EXPECT_DOUBLE_EQ(n.nvme_read_bw_bytes_per_s.value(), 27.2e9);
  EXPECT_FALSE(n.nvme_write_bw_bytes_per_s.has_value());
  EXPECT_EQ(node_presets().size(), 6u);
}

TEST(NodePresets, UnknownNodeSuggests) {
  const auto found = find_node_preset("dgx-h10");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), StatusCode::kNotFound);
  EXPECT_NE(found.status().message().find("did you mean \"dgx-h100\"?"), std::string::npos)
      << found.status().message();
}

}  // namespace
}  // namespace zs::configs
