// JSON names of the GpuSpec and NodeSpec fields, for cluster files and --json output.
//
// A JSON key is the C++ member's name ("hbm_bytes", "nic_bw_bytes_per_s"); one table per struct
// drives both reading and writing, so the two cannot drift apart. Sizes are integers (1e9 is
// accepted, as DeepSpeed's pydantic models accept it); bandwidths, FLOP/s and latencies are
// numbers. An optional field may be set to null to clear it (e.g. "fp8_flops_per_s": null for a
// GPU without FP8).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "configs/hardware/hardware_spec.h"

namespace zs::configs {

// Where a read spec starts from.
enum class SpecBase {
  kPreset,  // a preset: every member is optional, each overrides the preset's value
  kCustom,  // nothing: the required members must be present
};

// Reads the members of `obj` (an object at JSON path `path` of `doc`) into *gpu. Wrong types,
// out-of-range values (zero or negative sizes and bandwidths, among others), unknown keys and,
// for kCustom, missing required keys are reported into `diags` as errors naming the path, the
// value and what is allowed; *gpu then holds whatever could be read.
// REQUIRES: gpu != nullptr, diags != nullptr; `obj` belongs to `doc`.
void read_gpu_spec(const json::Document& doc, const json::Json& obj, const std::string& path,
                   SpecBase base, GpuSpec* gpu, Diagnostics* diags);

// The same for a NodeSpec, including its "effective" object, whose values are recorded as
// measurements with the source "<doc.source> (<path>.effective.<key>)".
// REQUIRES: node != nullptr, diags != nullptr; `obj` belongs to `doc`.
void read_node_spec(const json::Document& doc, const json::Json& obj, const std::string& path,
                    SpecBase base, NodeSpec* node, Diagnostics* diags);

// Every field, in declaration order; unset optionals are null. Effective measurements are
// {"value": v, "source": s}.
json::Json gpu_spec_to_json(const GpuSpec& gpu);
json::Json node_spec_to_json(const NodeSpec& node);

// The accepted keys, in declaration order.
std::vector<std::string_view> gpu_spec_keys();
std::vector<std::string_view> node_spec_keys();

}  // namespace zs::configs
