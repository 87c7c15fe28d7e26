// The JSON files `zerosim calibrate` writes from a CpuCalibration (calibrate/cpu_calibration.h):
// the cost profile and the cluster description.
#include <algorithm>
#include <cstdint>
#include <string>

#include "calibrate/cpu_calibration.h"
#include "models/ops.h"

namespace zs::calibrate {
namespace {

json::Json spread_json(const Spread& s) {
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"repeats", s.repeats}};
}

}  // namespace

json::Json cpu_profile_json(const CpuCalibration& c, const std::string& date,
                            const std::string& commit, const std::string& command) {
  json::Json j = json::Json::object();
  j["backend"] = "cpu";
  j["machine"] = c.machine.cpu_name + ", " + std::to_string(c.machine.logical_cpus) +
                 " logical CPUs, " + std::to_string(c.ranks) + " rank(s) measured at once";
  j["date"] = date;
  j["commit"] = commit;
  j["command"] = command;
  json::Json curve = json::Json::array();
  for (const GemmPoint& p : c.gemm) curve.push_back({p.side, p.efficiency});
  j["gemm_efficiency"] = curve;
  json::Json per_unit = json::Json::object();
  for (std::size_t k = 0; k < c.per_unit.size(); ++k) {
    if (!c.measured[k]) continue;
    per_unit[std::string(models::op_kind_name(static_cast<models::OpKind>(k)))] = {
        c.per_unit[k][0].median, c.per_unit[k][1].median};
  }
  j["cpu_s_per_unit"] = per_unit;
  const auto attention = static_cast<std::size_t>(models::OpKind::kAttention);
  if (c.measured[attention]) {
    j["cpu_attention_pair_s"] = {c.attention_pair_s[0].median, c.attention_pair_s[1].median};
  }
  // The device's memory rate is the memcpy's read + write bytes (cpu_cluster_json).
  j["hbm_efficiency"] =
      std::clamp(c.cast_bytes_per_s.median / (2 * c.memcpy_bytes_per_s.median), 1e-3, 1.0);
  j["pcie_pinned_bytes_per_s"] = c.memcpy_bytes_per_s.median;
  j["cpu_adam_bytes_per_s_per_core"] = c.adam_bytes_per_s.median;
  j["cpu_cores_per_rank"] = 1;
  j["calibration_spread"] = c.spread;
  j["kernel_launch_s"] = c.op_overhead_s;
  j["sync_s"] = c.op_overhead_s;  // the executor's syncs: ops that do nothing but be issued
  if (c.ranks > 1) {
    j["mpi_latency_s"] = c.mpi_latency_s;
    j["mpi_busbw_bytes_per_s"] = c.mpi_busbw_bytes_per_s;
    j["mpi_allreduce_latency_s"] = c.mpi_allreduce_latency_s;
    j["mpi_allreduce_busbw_bytes_per_s"] = c.mpi_allreduce_busbw_bytes_per_s;
  }
  json::Json spread = json::Json::object();
  json::Json gemm = json::Json::object();
  for (const GemmPoint& p : c.gemm)
    gemm[std::to_string(static_cast<int>(p.side))] = spread_json(p.seconds);
  spread["gemm_seconds"] = gemm;
  json::Json units = json::Json::object();
  for (std::size_t k = 0; k < c.per_unit.size(); ++k) {
    if (!c.measured[k]) continue;
    units[std::string(models::op_kind_name(static_cast<models::OpKind>(k)))] = {
        {"forward", spread_json(c.per_unit[k][0])}, {"backward", spread_json(c.per_unit[k][1])}};
  }
  spread["cpu_s_per_unit"] = units;
  spread["cpu_attention_pair_s"] = {{"forward", spread_json(c.attention_pair_s[0])},
                                    {"backward", spread_json(c.attention_pair_s[1])}};
  spread["memcpy_bytes_per_s"] = spread_json(c.memcpy_bytes_per_s);
  spread["cast_bytes_per_s"] = spread_json(c.cast_bytes_per_s);
  spread["adam_bytes_per_s"] = spread_json(c.adam_bytes_per_s);
  json::Json coll = json::Json::array();
  for (const CollectivePoint& p : c.collectives) {
    coll.push_back(
        {{"kind", p.kind},
         {"bytes", p.bytes},
         {"bus_bytes", p.bus_bytes},
         {"seconds", spread_json(p.seconds)},
         {"fit_seconds",
          p.kind == "all_reduce"
              ? c.mpi_allreduce_latency_s + p.bus_bytes / c.mpi_allreduce_busbw_bytes_per_s
              : c.mpi_latency_s + p.bus_bytes / c.mpi_busbw_bytes_per_s}});
  }
  spread["collectives"] = coll;
  spread["rounds"] = {
      {"time_against_median", c.round_speed}, {"spread", c.spread}, {"load_before", c.load_before}};
  j["spread"] = spread;
  return j;
}

json::Json cpu_cluster_json(const CpuCalibration& c) {
  const CpuMachine& m = c.machine;
  json::Json gpu = json::Json::object();
  gpu["name"] = m.cpu_name + " (one core, " + std::to_string(m.vector_bits) + "-bit vectors)";
  gpu["backend"] = "cpu";
  gpu["fp32_flops_per_s"] = std::max(1e9, m.fp32_peak_flops_per_s());
  // The ranks share the machine's memory: each its part.
  gpu["hbm_bytes"] = std::max<std::int64_t>(std::int64_t{1} << 20, m.memory_bytes / c.ranks);
  gpu["hbm_bw_bytes_per_s"] = std::max(1e9, 2 * c.memcpy_bytes_per_s.median);
  gpu["sm_count"] = 1;
  gpu["pcie_gen"] = 1;  // no PCIe between a CPU rank and its memory: copies are memcpy
  gpu["pcie_bw_bytes_per_s"] = std::max(1e6, c.memcpy_bytes_per_s.median);
  json::Json node = json::Json::object();
  node["name"] = "this host";
  // More ranks than cores (mpirun --oversubscribe) is what was measured: the file describes
  // it, and calibrate warns that the ranks shared cores.
  node["max_gpus_per_node"] = std::max(m.logical_cpus, c.ranks);
  node["nic_count"] = 0;
  node["nic_bw_bytes_per_s"] = 1e9;  // required by the format; no NIC is used on one node
  node["host_memory_bytes"] = m.memory_bytes;
  node["cpu_cores"] = m.logical_cpus;
  json::Json cluster = json::Json::object();
  cluster["gpu"] = gpu;
  cluster["node"] = node;
  cluster["nodes"] = 1;
  cluster["gpus_per_node"] = c.ranks;
  return cluster;
}

}  // namespace zs::calibrate
