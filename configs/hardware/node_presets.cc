// Node (DGX system) figures, each with its source. Conventions:
//
// - nic_*: the compute-fabric adapters only; storage and management NICs are left out because
//   collectives do not use them. Line rate per NIC per direction: 100 Gb/s EDR = 12.5e9 B/s,
//   200 Gb/s HDR = 25e9 B/s, 400 Gb/s NDR = 50e9 B/s.
// - nic_latency_s: no datasheet gives one. NCCL's cost model charges 2.7 us per network hop
//   (src/graph/tuning.cc hwLat[NET][Ring][LL], NVIDIA/nccl at b6475625); we use that.
// - host_memory_bw_bytes_per_s: theoretical DRAM peak = sockets x memory channels x MT/s x 8 B,
//   channel counts and speeds from the CPU vendor's specification page (named per node). Actual
//   STREAM bandwidth is lower; none was found for these systems.
// - nvme_*_bw: the whole RAID 0 data volume = nvme_count x one data drive's rated sequential
//   rate (vendor datasheet, or NVIDIA's statement of it), the drive and its rate sourced per node.
//   NVIDIA publishes no aggregate figure for any of these systems that we found; where neither the
//   drive model nor a per-drive rate was found, the field stays unset.
// - effective: nccl-tests all_reduce_perf bus bandwidth on one node, only where a measurement or
//   an NCCL maintainer's statement of it was found; the source is stored with the value.
#include "configs/hardware/preset_data.h"

namespace zs::configs::preset_data {
namespace {

constexpr double kGbitPerS = 1e9 / 8;  // bytes per second in one Gb/s
constexpr double kGBps = 1e9;
constexpr Bytes kGBDecimal = 1000LL * 1000 * 1000;  // drive capacities are decimal
constexpr double kMBps = 1e6;                       // drive vendors' MB/s are decimal

// NCCL src/graph/tuning.cc hwLat[NET][Ring][LL] (see above).
constexpr double kNcclNetHopLatencyS = 2.7e-6;

double dram_peak_bytes_per_s(int sockets, int channels_per_socket, double mega_transfers_per_s) {
  return sockets * channels_per_socket * mega_transfers_per_s * 1e6 * 8;
}

}  // namespace

// "NVIDIA DGX-1 With Tesla V100 System Architecture" whitepaper and the DGX-1 datasheet
// ("GPUs 8X Tesla V100", "CPU Dual 20-Core Intel Xeon E5-2698 v4 2.2 GHz", "System Memory 512 GB
// 2,133 MHz DDR4 RDIMM", "Storage 4X 1.92 TB SSD RAID 0", "Network Dual 10 GbE, 4 IB EDR").
NodeSpec dgx_1v() {
  NodeSpec n;
  n.name = "DGX-1 (V100)";
  n.max_gpus_per_node = 8;
  n.nvswitch = false;  // hybrid cube-mesh NVLink: not every GPU pair has a direct link
  n.nic_count = 4;     // "4 IB EDR" (100 Gb/s each)
  n.nic_bw_bytes_per_s = 100 * kGbitPerS;
  n.nic_latency_s = kNcclNetHopLatencyS;
  n.host_memory_bytes = 512 * kGiB;  // "512 GB ... DDR4"
  n.cpu_cores = 40;                  // "Dual 20-Core"
  // Intel ARK, Xeon E5-2698 v4: 4 memory channels; DIMMs run at 2,133 MT/s (datasheet).
  n.host_memory_bw_bytes_per_s = dram_peak_bytes_per_s(2, 4, 2133);
  n.nvme_count = 4;  // "4X 1.92 TB SSD RAID 0" (the datasheet does not say NVMe)
  n.nvme_bytes_each = 1920 * kGBDecimal;
  // nvme_*_bw unset: no source names the DGX-1 data SSDs' model or interface, nor a rate for
  // them or for the RAID 0 volume.
  return n;
}

// NVIDIA DGX-2 datasheet: "16X NVIDIA Tesla V100", "12 NVSwitches", "CPUs Dual Intel Xeon
// Platinum 8168, 2.7 GHz, 24-cores", "System Memory 1.5TB", "Network 8X 100Gb/sec
// Infiniband/100GigE", "Storage OS: 2X 960GB NVMe SSDs; Internal Storage: 30TB (8X 3.84TB) NVMe
// SSDs". DGX-2 carries the SXM3 board of the 32GB V100, with the datasheet figures of
// v100-32gb (2 petaFLOPS tensor = 16 x 125 TFLOPS).
NodeSpec dgx_2() {
  NodeSpec n;
  n.name = "DGX-2";
  n.max_gpus_per_node = 16;
  n.nvswitch = true;
  n.nic_count = 8;
  n.nic_bw_bytes_per_s = 100 * kGbitPerS;
  n.nic_latency_s = kNcclNetHopLatencyS;
  n.host_memory_bytes = 1536 * kGiB;  // "1.5TB"
  n.cpu_cores = 48;
  // Intel ARK, Xeon Platinum 8168: 6 channels of DDR4-2666 per socket.
  n.host_memory_bw_bytes_per_s = dram_peak_bytes_per_s(2, 6, 2666);
  n.nvme_count = 8;
  n.nvme_bytes_each = 3840 * kGBDecimal;
  // NVIDIA GPUDirect Storage Benchmarking and Configuration Guide, 5.1 "GPUDirect Storage
  // Performance on DGX-2 System", benchmarking a RAID 0 of two of the DGX-2's NVMe drives: "each
  // SSD is configured with around 3.4GB/sec large read performance" (its iostat shows "just over
  // 3.4GB/sec from each of the two NVMe drives"). 8 drives x 3.4 GB/s. The DGX-2 firmware
  // container release notes (version 21.06.7) name the data drives only as "U.2 SSD (Micron)";
  // no write rate was found for them: unset.
  n.nvme_read_bw_bytes_per_s = n.nvme_count * 3400 * kMBps;
  return n;
}

namespace {

// One Samsung PM1733 U.2 data drive, sequential (source in dgx_a100_common below).
constexpr double kPm1733U2ReadBytesPerS = 6400 * kMBps;
constexpr double kPm1733U2WriteBytesPerS = 3800 * kMBps;

// What both DGX A100 models share: "NVIDIA DGX A100" datasheet and the DGX A100 User Guide,
// "Hardware Overview": "6 NVIDIA NVSwitches", "Dual AMD Rome 7742, 128 cores total",
// "8x Single-Port Mellanox ConnectX-6 VPI 200Gb/s HDR InfiniBand" (compute fabric).
NodeSpec dgx_a100_common() {
  NodeSpec n;
  n.max_gpus_per_node = 8;
  n.nvswitch = true;
  n.nic_count = 8;
  n.nic_bw_bytes_per_s = 200 * kGbitPerS;
  n.nic_latency_s = kNcclNetHopLatencyS;
  n.cpu_cores = 128;
  // AMD EPYC 7742 specifications: 8 channels DDR4-3200, "Per Socket Mem BW 204.8 GB/s".
  n.host_memory_bw_bytes_per_s = dram_peak_bytes_per_s(2, 8, 3200);
  n.nvme_bytes_each = 3840 * kGBDecimal;  // "U.2 NVMe" 3.84 TB drives
  // Which drives: the NVIDIA GPUDirect Storage Benchmarking and Configuration Guide, 5.2
  // "GPUDirect Storage Performance on a DGX A100 System", lists the DGX A100's data drives in
  // `lspci -tv` as "Samsung Electronics Co Ltd NVMe SSD Controller PM173X" (the OS drives as
  // "SM981/PM981/PM983"), and says "By default, all NVMe drives in DGX systems are configured as
  // a RAID0 storage array /dev/md1". The 3.84 TB member of that family is the PM1733 (the PM1735
  // has 3.2 TB). Samsung's PM1733 announcement, as reported by Hardwareluxx (news 50889, 2019),
  // "Datenraten | U.2: 6,4 / 3,8 GB/s (Lesen / Schreiben)" for U.2 capacities 0.96-30.72 TB.
  // AnandTech's PM1743 launch table (2021-12-23) later lists 7000 MB/s read for the 15.36 TB
  // PM1733; no capacity-specific figure for 3.84 TB was found, so the lower U.2 figure is kept.
  // Units with other qualified drives differ; none was confirmed from a source here.
  // NVIDIA/nccl-tests#149 (2023-07-05), NCCL maintainer sjeaugey on 8x A100 SXM: each NVLink's
  // 25 GB/s "converts to ~20GB/s effective"; "The total effective bandwidth should therefore be
  // 240GB/s on A100, but some other bottlenecks on the GPUs limits it to ~230GB/s" for
  // all_reduce_perf busbw at 8G. A100 has no NVLS (sjeaugey, nccl-tests#228), so NCCL's default
  // allreduce on one node is this same ring.
  const Measurement busbw{230 * kGBps,
                          "NVIDIA/nccl-tests#149: NCCL maintainer, all_reduce_perf busbw on "
                          "8x A100 SXM (NVLink3 + NVSwitch)"};
  n.effective.nvlink_ring_busbw_bytes_per_s = busbw;
  n.effective.nvlink_allreduce_busbw_bytes_per_s = busbw;
  return n;
}

}  // namespace

// DGX A100 320GB (8x A100 40GB): "System Memory 1TB", "Internal Storage 15TB (4x 3.84TB) U.2
// NVMe drives".
NodeSpec dgx_a100_320gb() {
  NodeSpec n = dgx_a100_common();
  n.name = "DGX A100 320GB";
  n.host_memory_bytes = 1024 * kGiB;
  n.nvme_count = 4;
  n.nvme_read_bw_bytes_per_s = n.nvme_count * kPm1733U2ReadBytesPerS;
  n.nvme_write_bw_bytes_per_s = n.nvme_count * kPm1733U2WriteBytesPerS;
  return n;
}

// DGX A100 640GB (8x A100 80GB): "System Memory 2TB", "Internal Storage 30TB (8x 3.84TB) U.2
// NVMe drives".
NodeSpec dgx_a100_640gb() {
  NodeSpec n = dgx_a100_common();
  n.name = "DGX A100 640GB";
  n.host_memory_bytes = 2048 * kGiB;
  n.nvme_count = 8;
  n.nvme_read_bw_bytes_per_s = n.nvme_count * kPm1733U2ReadBytesPerS;
  n.nvme_write_bw_bytes_per_s = n.nvme_count * kPm1733U2WriteBytesPerS;
  return n;
}

namespace {

// NVIDIA DGX BasePOD reference architecture, "Core Components", section "NVIDIA DGX H200 and
// H100 Systems" (docs.nvidia.com/dgx-basepod): "Four NVIDIA NVSwitch chips", "Dual Intel Xeon
// Platinum 8480C processors, 112 cores total", "2 TB of DDR5 system memory", "Four OSFP ports
// serving eight single-port NVIDIA ConnectX-7 VPI ... up to 400 Gb/s InfiniBand/Ethernet",
// "eight 3.84 TB U.2 NVMe drives for storage/cache".
NodeSpec dgx_hopper_common() {
  NodeSpec n;
  n.max_gpus_per_node = 8;
  n.nvswitch = true;
  n.nic_count = 8;
  n.nic_bw_bytes_per_s = 400 * kGbitPerS;
  n.nic_latency_s = kNcclNetHopLatencyS;
  n.host_memory_bytes = 2048 * kGiB;
  n.cpu_cores = 112;
  // Intel ARK, Xeon Platinum 8480+: 8 channels of DDR5-4800 per socket.
  n.host_memory_bw_bytes_per_s = dram_peak_bytes_per_s(2, 8, 4800);
  n.nvme_count = 8;
  n.nvme_bytes_each = 3840 * kGBDecimal;
  // nvme_*_bw unset: the sources found name the data drives only as "3.84 TB U.2 NVMe" (the
  // BasePOD RA above), not their model, and give no rate for them or for the RAID 0 volume.
  return n;
}

}  // namespace

NodeSpec dgx_h100() {
  NodeSpec n = dgx_hopper_common();
  n.name = "DGX H100";
  // NVIDIA/nccl-tests#212 (2024-05-06), NCCL maintainer sjeaugey on 8x H100: "With the protocol
  // overhead (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s, which you can observe
  // as BusBw ... with NCCL_ALGO=RING"; with NVLink SHARP "On 8 GPUs, you should reach a peak
  // busBw of ~480GB/s".
  n.effective.nvlink_ring_busbw_bytes_per_s =
      Measurement{370 * kGBps, "NVIDIA/nccl-tests#212: NCCL maintainer, 8x H100, NCCL_ALGO=RING"};
  n.effective.nvlink_allreduce_busbw_bytes_per_s = Measurement{
      480 * kGBps, "NVIDIA/nccl-tests#212: NCCL maintainer, 8x H100, NVLS all_reduce_perf"};
  return n;
}

NodeSpec dgx_h200() {
  NodeSpec n = dgx_hopper_common();
  n.name = "DGX H200";
  // NVIDIA/nccl-tests#272 (2024-11-27): all_reduce_perf on one server with 8x H200 over NVLink4,
  // NCCL 2.20.3, peak busbw 475 GB/s. No ring-only measurement was found.
  n.effective.nvlink_allreduce_busbw_bytes_per_s = Measurement{
      475 * kGBps, "NVIDIA/nccl-tests#272: measured, 8x H200, NCCL 2.20.3, all_reduce_perf"};
  return n;
}

}  // namespace zs::configs::preset_data
