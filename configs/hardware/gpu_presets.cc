// GPU figures, each with its source. Conventions shared by every preset:
//
// - FLOP/s are dense. NVIDIA datasheets since Ampere print tensor-core figures "with sparsity"
//   (footnote "*"); the dense figure is half of it (2:4 structured sparsity doubles the rate).
// - Datasheets quote NVLink and PCIe as the sum of both directions ("NVLink 900GB/s",
//   "PCIe Gen5 128GB/s"); a direction is half. NCCL's maintainer confirms the reading for H100:
//   "450GB/s is the line rate" (NVIDIA/nccl-tests#212), and for A100: "12 NVLinks ... 25GB/s
//   (in each direction)" (NVIDIA/nccl-tests#149).
// - hbm_bytes: NVIDIA's "GB" of HBM counts binary gigabytes: nvidia-smi reports exactly
//   81920 MiB (80 GiB) on A100 80GB and 40960 MiB on A100 40GB (modal-labs/modal-client#2797).
// - reported_hbm_bytes: torch.cuda.get_device_properties().total_memory, which is CUDA's
//   cudaDeviceProp::totalGlobalMem (deviceQuery prints the same). It moves by up to ~1% with the
//   driver; the value kept is one published report, the others are listed beside it. torch's
//   repr prints MiB rounded down, so values taken from it are exact only to the MiB.
// - Latencies are not on any datasheet. The figures used are the per-hop latencies of NCCL's
//   own cost model, src/graph/tuning.cc `hwLat` (NVIDIA/nccl at b6475625), Ring/LL column:
//   NVLink 0.6 us, PCI 1.0 us, network 2.7 us. NCCL uses them for every GPU generation, so do we.
#include "configs/hardware/preset_data.h"

namespace zs::configs::preset_data {
namespace {

constexpr double kTflops = 1e12;
constexpr double kGBps = 1e9;  // vendors' GB/s are decimal
constexpr double kTBps = 1e12;

// NCCL src/graph/tuning.cc hwLat[NVLINK|PCI][Ring][LL], microseconds (see above).
constexpr double kNcclNvlinkHopLatencyS = 0.6e-6;
constexpr double kNcclPciHopLatencyS = 1.0e-6;

}  // namespace

// "NVIDIA Tesla V100 GPU Accelerator" datasheet (32GB edition, 2018), column "V100 SXM2", unless
// noted. Volta has no TF32, BF16 or FP8 hardware.
GpuSpec v100_sxm2_32gb() {
  GpuSpec g;
  g.name = "NVIDIA Tesla V100 SXM2 32GB";
  g.fp32_flops_per_s = 15.7 * kTflops;   // datasheet "Single-Precision 15.7 TFLOPS"
  g.fp16_flops_per_s = 125.0 * kTflops;  // datasheet "Tensor Performance 125 TFLOPS" (fp16 in)
  g.hbm_bytes = 32 * kGiB;               // datasheet "GPU Memory 32/16 GB HBM2"
  // cudaGetDeviceProperties on 8x Tesla V100-SXM2-32GB: 34089730048 (32510 MiB), in a public
  // ECE408 lab README on GitHub; DeepSpeed's get_accelerator().total_memory() prints the same.
  g.reported_hbm_bytes = 34089730048;
  g.hbm_bw_bytes_per_s = 900 * kGBps;  // datasheet "Memory Bandwidth 900 GB/sec"
  g.sm_count = 80;  // "NVIDIA Tesla V100 GPU Architecture" whitepaper, Table 1 ("SMs 80")
  // Datasheet "Interconnect Bandwidth ... NVLink 300 GB/sec": 6 links x 25 GB/s x 2 directions.
  g.nvlink_bw_bytes_per_s = 150 * kGBps;
  g.nvlink_latency_s = kNcclNvlinkHopLatencyS;
  // SXM2 attaches to the host through PCIe Gen3 x16; datasheet (PCIe card) "PCIe 32 GB/sec".
  g.pcie_gen = 3;
  g.pcie_bw_bytes_per_s = 16 * kGBps;
  g.pcie_latency_s = kNcclPciHopLatencyS;
  return g;
}

// The 16 GB V100 SXM2 (the first DGX-1V's, and the BERT runs of 2019-2020): the 32 GB board but
// for its memory (datasheet "GPU Memory 32/16 GB HBM2", one bandwidth and compute for both).
// cudaGetDeviceProperties on a Tesla V100-SXM2-16GB: 16945512448 (deviceQuery "16160 MBytes
// (16945512448 bytes)", in several public logs; NVML's total memory the same).
GpuSpec v100_sxm2_16gb() {
  GpuSpec g = v100_sxm2_32gb();
  g.name = "NVIDIA Tesla V100 SXM2 16GB";
  g.hbm_bytes = 16 * kGiB;
  g.reported_hbm_bytes = 16945512448;
  return g;
}

// The SXM3 board of the 32GB V100 that the DGX-2 carries: the DGX-2 datasheet gives "2
// petaFLOPS" of tensor throughput for 16 GPUs (= 125 TFLOPS each, the SXM2 figure) and "512GB
// total" HBM2 (32 GB each); each GPU has 6 NVLinks into the NVSwitch fabric, as on SXM2. No
// SXM3 cudaGetDeviceProperties figure was found: the SXM2 32GB's reported memory is used.
GpuSpec v100_sxm3_32gb() {
  GpuSpec g = v100_sxm2_32gb();
  g.name = "NVIDIA Tesla V100 SXM3 32GB";
  return g;
}

namespace {

// What A100 40GB and 80GB SXM4 share: "NVIDIA A100 Tensor Core GPU" datasheet, columns
// "A100 40GB SXM" / "A100 80GB SXM" (identical apart from memory).
GpuSpec a100_sxm4_common() {
  GpuSpec g;
  g.fp32_flops_per_s = 19.5 * kTflops;   // datasheet "FP32 19.5 TFLOPS"
  g.tf32_flops_per_s = 156.0 * kTflops;  // datasheet "TF32 Tensor Core 156 TFLOPS | 312*"
  g.fp16_flops_per_s = 312.0 * kTflops;  // datasheet "FP16 Tensor Core 312 TFLOPS | 624*"
  g.bf16_flops_per_s = 312.0 * kTflops;  // datasheet "BFLOAT16 Tensor Core 312 TFLOPS | 624*"
  // No FP8 on Ampere ("NVIDIA A100 Tensor Core GPU Architecture" whitepaper lists none).
  // "NVIDIA A100 Tensor Core GPU Architecture" whitepaper, Table 1: 108 SMs on A100.
  g.sm_count = 108;
  // Datasheet "NVIDIA NVLink 600GB/s": 12 third-generation links x 25 GB/s x 2 directions.
  g.nvlink_bw_bytes_per_s = 300 * kGBps;
  g.nvlink_latency_s = kNcclNvlinkHopLatencyS;
  g.pcie_gen = 4;                      // datasheet "PCIe Gen4: 64GB/s"
  g.pcie_bw_bytes_per_s = 32 * kGBps;  // 64 GB/s both directions
  g.pcie_latency_s = kNcclPciHopLatencyS;
  return g;
}

}  // namespace

GpuSpec a100_sxm4_40gb() {
  GpuSpec g = a100_sxm4_common();
  g.name = "NVIDIA A100 SXM4 40GB";
  g.hbm_bytes = 40 * kGiB;  // datasheet "GPU Memory 40GB HBM2"
  // deviceQuery on NVIDIA A100-SXM4-40GB, driver CUDA 12.2: "40339 MBytes (42298834944 bytes)"
  // (bottlerocket-os/bottlerocket#3873). Other drivers: 40441 MiB (Paderborn PC2 wiki, A100
  // 40GB with NVLink), 40536 MiB (PaddlePaddle get_device_properties docstring).
  g.reported_hbm_bytes = 42298834944;
  g.hbm_bw_bytes_per_s = 1555 * kGBps;  // datasheet "GPU Memory Bandwidth 1,555GB/s"
  return g;
}

GpuSpec a100_sxm4_80gb() {
  GpuSpec g = a100_sxm4_common();
  g.name = "NVIDIA A100 SXM4 80GB";
  g.hbm_bytes = 80 * kGiB;  // datasheet "GPU Memory 80GB HBM2e"
  // deviceQuery on NVIDIA A100-SXM4-80GB, driver CUDA 12.2: "81051 MBytes (84987740160 bytes)"
  // (public GitHub notes found by code search). nvidia-smi shows 81920 MiB total.
  g.reported_hbm_bytes = 84987740160;
  g.hbm_bw_bytes_per_s = 2039 * kGBps;  // datasheet "GPU Memory Bandwidth 2,039GB/s" (SXM)
  return g;
}

namespace {

// Compute and links that H100 SXM5 and H200 SXM share. Both datasheets print the same figures:
// "NVIDIA H100 Tensor Core GPU" datasheet, column "H100 SXM", and "NVIDIA H200 Tensor Core
// GPU" datasheet, column "H200 SXM". "*" = with sparsity; dense is half.
GpuSpec hopper_sxm_common() {
  GpuSpec g;
  g.fp32_flops_per_s = 67 * kTflops;      // "FP32 67 teraFLOPS"
  g.tf32_flops_per_s = 494.5 * kTflops;   // "TF32 Tensor Core 989 teraFLOPS*"
  g.fp16_flops_per_s = 989.5 * kTflops;   // "FP16 Tensor Core 1,979 teraFLOPS*"
  g.bf16_flops_per_s = 989.5 * kTflops;   // "BFLOAT16 Tensor Core 1,979 teraFLOPS*"
  g.fp8_flops_per_s = 1979.0 * kTflops;   // "FP8 Tensor Core 3,958 teraFLOPS*"
  g.nvlink_bw_bytes_per_s = 450 * kGBps;  // "NVIDIA NVLink: 900GB/s" (18 links x 25 GB/s x 2)
  g.nvlink_latency_s = kNcclNvlinkHopLatencyS;
  g.pcie_gen = 5;                      // "PCIe Gen5: 128GB/s"
  g.pcie_bw_bytes_per_s = 64 * kGBps;  // 128 GB/s both directions
  g.pcie_latency_s = kNcclPciHopLatencyS;
  return g;
}

}  // namespace

GpuSpec h100_sxm5_80gb() {
  GpuSpec g = hopper_sxm_common();
  g.name = "NVIDIA H100 SXM5 80GB";
  g.hbm_bytes = 80 * kGiB;              // H100 datasheet "GPU Memory 80GB" (HBM3)
  g.hbm_bw_bytes_per_s = 3.35 * kTBps;  // H100 datasheet "GPU Memory Bandwidth 3.35TB/s"
  g.sm_count = 132;  // "NVIDIA H100 Tensor Core GPU Architecture" whitepaper: H100 SXM5, 132 SMs
  // torch.cuda.get_device_properties on NVIDIA H100 80GB HBM3 with torch 2.7 / CUDA 12.8:
  // total_memory=81089MB (public log found by code search); torch 2.0.1 logs show 81082MB,
  // others 81090MB. nvidia-smi/NVML report 81559 MiB = 85520809984 bytes
  // (modal-labs/modal-client#2797), which CUDA does not all hand out.
  g.reported_hbm_bytes = 81089 * kMiB;
  return g;
}

GpuSpec h200_sxm_141gb() {
  GpuSpec g = hopper_sxm_common();
  g.name = "NVIDIA H200 SXM 141GB";
  g.hbm_bytes = 141 * kGiB;            // H200 datasheet "GPU Memory 141GB" (HBM3e)
  g.hbm_bw_bytes_per_s = 4.8 * kTBps;  // H200 datasheet "GPU Memory Bandwidth 4.8TB/s"
  // Not on the H200 datasheet. torch reports multi_processor_count=132 on "NVIDIA H200"
  // (_CudaDeviceProperties comment in a public Modal vLLM example, found by code search).
  g.sm_count = 132;
  // Same torch output: total_memory=143156MB. nvidia-smi reports 143771 MiB =
  // 150754820096 bytes on H200 nodes (public run reports found by code search).
  g.reported_hbm_bytes = 143156 * kMiB;
  return g;
}

}  // namespace zs::configs::preset_data
