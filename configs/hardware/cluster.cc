#include "configs/hardware/cluster.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include "common/units.h"
#include "configs/hardware/cluster_checks.h"
#include "configs/hardware/presets.h"
#include "configs/hardware/spec_fields.h"

namespace zs::configs {
namespace {

class ProblemList {
 public:
  void add(std::string field, std::string message) {
    items_.push_back({std::move(field), std::move(message)});
  }
  // A quantity that must be finite and > 0.
  void positive(const std::string& field, double value) {
    if (!(std::isfinite(value) && value > 0)) {
      add(field, field + " must be a number > 0, got " + format_double(value));
    }
  }
  void positive(const std::string& field, const std::optional<double>& value) {
    if (value) positive(field, *value);
  }
  void non_negative(const std::string& field, const std::optional<double>& value) {
    if (value && !(std::isfinite(*value) && *value >= 0)) {
      add(field, field + " must be a number >= 0, got " + format_double(*value));
    }
  }
  void at_least(const std::string& field, std::int64_t value, std::int64_t min) {
    if (value < min) {
      add(field, field + " must be an integer >= " + std::to_string(min) + ", got " +
                     std::to_string(value));
    }
  }
  std::vector<ClusterProblem> take() { return std::move(items_); }

 private:
  std::vector<ClusterProblem> items_;
};

void check_gpu(const GpuSpec& g, ProblemList* p) {
  if (g.backend != "cuda" && g.backend != "cpu") {
    p->add("gpu.backend",
           "gpu.backend \"" + g.backend + "\" is not allowed; expected \"cuda\" or \"cpu\"");
  }
  p->positive("gpu.fp32_flops_per_s", g.fp32_flops_per_s);
  p->positive("gpu.tf32_flops_per_s", g.tf32_flops_per_s);
  p->positive("gpu.fp16_flops_per_s", g.fp16_flops_per_s);
  p->positive("gpu.bf16_flops_per_s", g.bf16_flops_per_s);
  p->positive("gpu.fp8_flops_per_s", g.fp8_flops_per_s);
  p->at_least("gpu.hbm_bytes", g.hbm_bytes, 1);
  if (g.reported_hbm_bytes) p->at_least("gpu.reported_hbm_bytes", *g.reported_hbm_bytes, 1);
  p->positive("gpu.hbm_bw_bytes_per_s", g.hbm_bw_bytes_per_s);
  p->at_least("gpu.sm_count", g.sm_count, 1);
  p->positive("gpu.nvlink_bw_bytes_per_s", g.nvlink_bw_bytes_per_s);
  p->non_negative("gpu.nvlink_latency_s", g.nvlink_latency_s);
  p->at_least("gpu.pcie_gen", g.pcie_gen, 1);
  p->positive("gpu.pcie_bw_bytes_per_s", g.pcie_bw_bytes_per_s);
  p->non_negative("gpu.pcie_latency_s", g.pcie_latency_s);
  if (g.reported_hbm_bytes && g.hbm_bytes > 0 && *g.reported_hbm_bytes > g.hbm_bytes) {
    p->add("gpu.reported_hbm_bytes", "gpu.reported_hbm_bytes " +
                                         std::to_string(*g.reported_hbm_bytes) +
                                         " exceeds gpu.hbm_bytes " + std::to_string(g.hbm_bytes) +
                                         "; the driver cannot report more memory than the GPU has");
  }
}

void check_node(const NodeSpec& n, ProblemList* p) {
  p->at_least("node.max_gpus_per_node", n.max_gpus_per_node, 1);
  p->at_least("node.nic_count", n.nic_count, 0);
  p->positive("node.nic_bw_bytes_per_s", n.nic_bw_bytes_per_s);
  p->non_negative("node.nic_latency_s", n.nic_latency_s);
  p->at_least("node.host_memory_bytes", n.host_memory_bytes, 1);
  p->at_least("node.cpu_cores", n.cpu_cores, 1);
  p->positive("node.host_memory_bw_bytes_per_s", n.host_memory_bw_bytes_per_s);
  p->at_least("node.nvme_count", n.nvme_count, 0);
  p->at_least("node.nvme_bytes_each", n.nvme_bytes_each, n.nvme_count > 0 ? 1 : 0);
  p->positive("node.nvme_read_bw_bytes_per_s", n.nvme_read_bw_bytes_per_s);
  p->positive("node.nvme_write_bw_bytes_per_s", n.nvme_write_bw_bytes_per_s);
}

// "3.35 T", "450 G", "67 T": a decimal quantity with an SI prefix, 4 significant digits.
std::string si(double value, const char* unit) {
  static constexpr struct {
    double scale;
    const char* prefix;
  } kPrefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}};
  for (const auto& p : kPrefixes) {
    if (std::fabs(value) >= p.scale || p.scale == 1) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.4g %s%s", value / p.scale, p.prefix, unit);
      return buf;
    }
  }
  ZS_UNREACHABLE();
}

// The fastest 16-bit (else 32-bit) dense rate, with its dtype: "989.5 TFLOP/s bf16 dense".
std::string headline_flops(const GpuSpec& g) {
  if (g.bf16_flops_per_s) return si(*g.bf16_flops_per_s, "FLOP/s") + " bf16 dense";
  if (g.fp16_flops_per_s) return si(*g.fp16_flops_per_s, "FLOP/s") + " fp16 dense";
  return si(g.fp32_flops_per_s, "FLOP/s") + " fp32";
}

std::string describe_links(const Cluster& c) {
  const GpuSpec& g = c.gpu;
  const NodeSpec& n = c.node;
  std::string s;
  if (g.nvlink_bw_bytes_per_s) {
    s = "NVLink " + si(*g.nvlink_bw_bytes_per_s, "B/s") + "/GPU/direction " +
        (n.nvswitch ? "via NVSwitch" : "in a mesh (no NVSwitch)");
  } else {
    s = "no NVLink";
  }
  s += ", PCIe Gen" + std::to_string(g.pcie_gen) + " " + si(g.pcie_bw_bytes_per_s, "B/s");
  if (n.nic_count > 0) {
    s += ", " + std::to_string(n.nic_count) + " x " + si(n.nic_bw_bytes_per_s * 8, "b/s") + " NICs";
  } else {
    s += ", no NICs";
  }
  return s;
}

}  // namespace

Bytes Cluster::gpu_memory_bytes() const { return gpu.reported_hbm_bytes.value_or(gpu.hbm_bytes); }

std::vector<ClusterProblem> cluster_problems(const Cluster& c) {
  ProblemList p;
  p.at_least("nodes", c.nodes, 1);
  if (c.node.max_gpus_per_node >= 1 &&
      (c.gpus_per_node < 1 || c.gpus_per_node > c.node.max_gpus_per_node)) {
    p.add("gpus_per_node", "gpus_per_node " + std::to_string(c.gpus_per_node) +
                               " is not allowed: a " + c.node.name + " node holds 1 to " +
                               std::to_string(c.node.max_gpus_per_node) +
                               " GPUs (node.max_gpus_per_node)");
  }
  check_gpu(c.gpu, &p);
  check_node(c.node, &p);
  if (c.gpu.backend == "cpu" && c.nodes > 1) {
    p.add("nodes", "nodes " + std::to_string(c.nodes) +
                       " is not allowed with gpu.backend \"cpu\": CPU ranks are simulated on one "
                       "node (calibrate measures MPI between the ranks of one machine)");
  }
  if (c.nodes > 1 && c.node.nic_count == 0) {
    p.add("node.nic_count",
          "a cluster of " + std::to_string(c.nodes) + " nodes needs node.nic_count >= 1, got 0");
  }
  return p.take();
}

Status validate_cluster(const Cluster& cluster) {
  const std::vector<ClusterProblem> problems = cluster_problems(cluster);
  if (problems.empty()) return Status::ok();
  std::string message = "invalid cluster (" + cluster.preset + "): " + problems[0].message;
  for (std::size_t i = 1; i < problems.size(); ++i) message += "; " + problems[i].message;
  return Status::invalid_argument(message);
}

Result<Cluster> make_cluster(std::string_view preset, int nodes, int gpus_per_node) {
  ZS_ASSIGN_OR_RETURN(HardwarePreset p, find_hardware_preset(preset));
  Cluster c;
  c.preset = p.name;
  c.gpu = std::move(p.gpu);
  c.node = std::move(p.node);
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  ZS_RETURN_IF_ERROR(validate_cluster(c));
  return c;
}

std::string describe_cluster(const Cluster& c) {
  const GpuSpec& g = c.gpu;
  const NodeSpec& n = c.node;
  std::string line1 = "cluster: " + std::to_string(c.nodes) + " x " +
                      std::to_string(c.gpus_per_node) + " = " + std::to_string(c.world_size()) +
                      (g.backend == "cpu" ? " CPU ranks " : " GPUs ") + c.preset + " (" + g.name +
                      ": " + format_bytes(g.hbm_bytes) +
                      (g.backend == "cpu" ? " memory at " : " HBM at ") +
                      si(g.hbm_bw_bytes_per_s, "B/s") + ", " + headline_flops(g) + ")";
  std::string line2 = "node: " + n.name + ", " + describe_links(c) + ", " +
                      format_bytes(n.host_memory_bytes) + " host memory, " +
                      std::to_string(n.cpu_cores) + " CPU cores";
  if (n.nvme_count > 0) {
    line2 += ", " + std::to_string(n.nvme_count) + " x " +
             si(static_cast<double>(n.nvme_bytes_each), "B") + " NVMe";
  }
  return line1 + "\n" + line2;
}

json::Json cluster_to_json(const Cluster& c) {
  json::Json out = json::Json::object();
  out["preset"] = c.preset;
  out["nodes"] = c.nodes;
  out["gpus_per_node"] = c.gpus_per_node;
  out["world_size"] = c.world_size();
  out["gpu"] = gpu_spec_to_json(c.gpu);
  out["node"] = node_spec_to_json(c.node);
  return out;
}

}  // namespace zs::configs
