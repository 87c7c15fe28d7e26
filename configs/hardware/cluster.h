// A cluster: `nodes` identical nodes, each with `gpus_per_node` GPUs of one kind.
//
// Built from a preset (`--gpu h100 --nodes 4 --gpus-per-node 8`) or read from a cluster file:
//
//   {"preset": "h100-80gb-sxm",          // GPU preset name or alias (presets.h)
//    "node_preset": "dgx-2",             // optional: another node than the preset's own
//    "nodes": 4,                         // optional, default 1
//    "gpus_per_node": 8,                 // optional, default the node's maximum
//    "overrides": {"gpu": {"hbm_bytes": 85899345920},
//                  "node": {"nic_count": 4, "effective": {...}}}}
//
// or, without "preset", a custom machine: "gpu" must then give every required GpuSpec field,
// and "node" every required NodeSpec field unless "node_preset" supplies them (then "node" holds
// changes to it). Field names are those of hardware_spec.h (spec_fields.h lists them).
// Overriding "hbm_bytes" without "reported_hbm_bytes" drops the preset's reported capacity,
// which described the preset's memory, not the new one. Likewise, changing "nvme_count" without
// "nvme_read_bw_bytes_per_s" / "nvme_write_bw_bytes_per_s" drops those: they are totals over the
// preset's drives.
#pragma once

#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "common/status.h"
#include "configs/hardware/hardware_spec.h"

namespace zs::configs {

struct Cluster {
  std::string preset;  // canonical GPU preset name, or "custom"
  GpuSpec gpu;
  NodeSpec node;
  int nodes = 1;
  int gpus_per_node = 1;

  int world_size() const { return nodes * gpus_per_node; }
  Bytes gpu_memory_bytes() const;  // reported_hbm_bytes when known, else hbm_bytes
};

// `nodes` x `gpus_per_node` GPUs of the named preset, in the preset's node.
// Errors: as find_hardware_preset for the name (kNotFound unknown, kInvalidArgument
// ambiguous); kInvalidArgument when nodes < 1 or gpus_per_node is outside
// [1, node.max_gpus_per_node], naming the value and the allowed range.
Result<Cluster> make_cluster(std::string_view preset, int nodes, int gpus_per_node);

// Checks what every cluster must satisfy: sizes and bandwidths positive, gpus_per_node within
// the node, a NIC per node when there is more than one node, drives with a size, a reported
// memory no larger than the memory. Returns kInvalidArgument naming the field and value.
Status validate_cluster(const Cluster& cluster);

// Reads a cluster file (format above). Parse errors are kParseError, an unreadable file
// kNotFound/kIoError, anything wrong in the content kInvalidArgument whose message holds one
// line per error: "FILE:LINE:COL: error[code]: JSON.PATH: what was found; what is allowed".
// Every diagnostic, warnings included, is also appended to *diags when diags != nullptr.
Result<Cluster> load_cluster_file(const std::string& path, Diagnostics* diags = nullptr);

// The same for a parsed document (doc.source names it in messages).
Result<Cluster> parse_cluster(const json::Document& doc, Diagnostics* diags = nullptr);

// Two lines, no trailing newline, for `zerosim check` / `simulate` output, e.g.
//   cluster: 4 x 8 = 32 GPUs h100-80gb-sxm (NVIDIA H100 SXM5 80GB: 80.00 GiB HBM at 3.35 TB/s,
//            989.5 TFLOP/s bf16 dense)
//   node: DGX H100, NVLink 450 GB/s/GPU/direction via NVSwitch, PCIe Gen5 64 GB/s,
//         8 x 400 Gb/s NICs, 2.00 TiB host memory, 112 CPU cores, 8 x 3.84 TB NVMe
// (each wrapped here; one line each in the output).
// Deterministic: the same cluster always gives the same bytes.
std::string describe_cluster(const Cluster& cluster);

// {"preset", "nodes", "gpus_per_node", "world_size", "gpu": {...}, "node": {...}} with every
// spec field (spec_fields.h), for --json output.
json::Json cluster_to_json(const Cluster& cluster);

}  // namespace zs::configs
