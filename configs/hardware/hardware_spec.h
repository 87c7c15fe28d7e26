// What zerosim knows about one GPU and the node it sits in.
//
// Every figure is a line rate or a datasheet peak, in SI units written into the name
// (bytes, bytes per second, FLOP per second, seconds). Bandwidths are per direction unless the
// name says otherwise. What software actually reaches (nccl-tests bus bandwidth, a measured
// pinned-memory copy) is a different quantity: it lives only in `EffectiveBandwidths`, each
// value with the place it was measured, and is never derived from the line rates here.
// An unset std::optional means "no source found", never zero.
//
// The presets (presets.h) fill these structs; cluster files (cluster.h) may override any field
// by the same name, e.g. {"overrides": {"gpu": {"hbm_bytes": 85899345920}}}.
#pragma once

#include <optional>
#include <string>

#include "common/units.h"

namespace zs::configs {

// A figure somebody measured, and where: the simulator may prefer it to a line rate.
struct Measurement {
  double value = 0;    // in the unit the field name states
  std::string source;  // publication, issue or file the figure comes from
};

// Measured intra-node collective bandwidths (nccl-tests `busbw`, GB/s = 1e9 bytes/s).
struct EffectiveBandwidths {
  // all_reduce_perf busbw on one full node with NCCL's default algorithm choice (NVLS, i.e.
  // NVLink SHARP, where the NVSwitch supports it).
  std::optional<Measurement> nvlink_allreduce_busbw_bytes_per_s;
  // all_reduce_perf busbw with NCCL_ALGO=Ring: the point-to-point NVLink rate after protocol
  // overhead, which is also what the non-allreduce collectives reach.
  std::optional<Measurement> nvlink_ring_busbw_bytes_per_s;
};

struct GpuSpec {
  std::string name;  // e.g. "NVIDIA H100 80GB HBM3 (SXM5)"
  // The executor backend that runs on this device: "cuda" for every GPU preset; "cpu" for one
  // core of a host running zerosim's CPU backend, one rank per core (`zerosim calibrate --backend
  // cpu` writes such a cluster file). A "cpu" device computes in fp32 (the CPU kernels round to
  // the config's dtype, they do not compute in it), runs every op itself one after the other
  // (sim/step_time.h) and is priced with a profile of the same backend (sim/cost_profile.h).
  std::string backend = "cuda";

  // Peak dense tensor-core (or, for fp32, CUDA-core) throughput; no sparsity. An unset dtype
  // is one the GPU has no hardware path for.
  double fp32_flops_per_s = 0;
  std::optional<double> tf32_flops_per_s;
  std::optional<double> fp16_flops_per_s;
  std::optional<double> bf16_flops_per_s;
  std::optional<double> fp8_flops_per_s;

  // Nominal capacity, read in binary units: NVIDIA's "80GB" of HBM is 80 GiB = 80 * 2^30 bytes
  // (nvidia-smi shows 81920 MiB total on A100 80GB), and every preset stores it that way
  // (n * kGiB). It is the nominal size, not what the driver exposes: nvidia-smi shows a little
  // less than the nominal GiB on H100 80GB (81559 MiB) and H200 141GB (143771 MiB).
  Bytes hbm_bytes = 0;
  // What torch.cuda.get_device_properties(i).total_memory typically reports: the capacity the
  // driver leaves to CUDA. It varies by a few hundred MiB with driver version and ECC.
  std::optional<Bytes> reported_hbm_bytes;
  double hbm_bw_bytes_per_s = 0;
  int sm_count = 0;

  // Sum over all NVLinks of one GPU, one direction; unset = no NVLink (a PCIe card).
  std::optional<double> nvlink_bw_bytes_per_s;
  std::optional<double> nvlink_latency_s;  // per hop
  int pcie_gen = 0;
  double pcie_bw_bytes_per_s = 0;  // host link, x16, one direction
  std::optional<double> pcie_latency_s;

  bool operator==(const GpuSpec&) const = default;
};

struct NodeSpec {
  std::string name;  // e.g. "DGX H100"
  int max_gpus_per_node = 0;
  bool nvswitch = false;  // all GPUs reach each other at full NVLink rate (else a mesh)

  int nic_count = 0;              // compute-fabric NICs (storage and management NICs excluded)
  double nic_bw_bytes_per_s = 0;  // per NIC, one direction (400 Gb/s = 50e9 bytes/s)
  std::optional<double> nic_latency_s;

  Bytes host_memory_bytes = 0;
  int cpu_cores = 0;                                 // physical cores, all sockets
  std::optional<double> host_memory_bw_bytes_per_s;  // all sockets, theoretical DRAM peak

  int nvme_count = 0;  // data drives (OS drives excluded)
  Bytes nvme_bytes_each = 0;
  // Sequential read / write of all data drives together, not of one drive: DGX systems stripe
  // the data drives into one RAID 0 volume, so this is what one node can stream (ZeRO-Infinity's
  // NVMe offload reads and writes it). A preset sets it to nvme_count x one drive's rated
  // sequential rate (per-drive figure and source next to the preset), i.e. a peak: md RAID and
  // the file system deliver less. A cluster file that changes nvme_count without giving these
  // drops the preset's values, which described the preset's drive count.
  std::optional<double> nvme_read_bw_bytes_per_s;
  std::optional<double> nvme_write_bw_bytes_per_s;

  EffectiveBandwidths effective;
};

}  // namespace zs::configs
