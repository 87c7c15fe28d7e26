// Hardware presets: the GPUs zerosim knows by name, each with the DGX system it usually comes in.
//
// GPU presets (canonical name: GPU, default node):
//   v100-32gb      Tesla V100 SXM2 32GB   in DGX-1 (V100)
//   v100-32gb-dgx2 Tesla V100 SXM3 32GB   in DGX-2 (16 GPUs on NVSwitch)
//   a100-40gb      A100 40GB SXM4         in DGX A100 320GB
//   a100-80gb      A100 80GB SXM4         in DGX A100 640GB
//   h100-80gb-sxm  H100 80GB SXM5         in DGX H100
//   h200           H200 141GB SXM         in DGX H200
// Node presets (usable with any GPU through a cluster file's "node_preset"):
//   dgx-1v, dgx-2, dgx-a100-320gb, dgx-a100-640gb, dgx-h100, dgx-h200
//
// Every figure carries its source next to it in gpu_presets.cc and node_presets.cc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "configs/hardware/hardware_spec.h"

namespace zs::configs {

struct HardwarePreset {
  std::string name;                  // canonical, e.g. "h100-80gb-sxm"
  std::vector<std::string> aliases;  // normalized spellings (see normalize_preset_name)
  GpuSpec gpu;
  NodeSpec node;  // the system this GPU usually ships in
};

struct NodePreset {
  std::string name;  // canonical, e.g. "dgx-h100"
  NodeSpec node;
};

// Every GPU preset, in the order listed above. The vector is built once and never changes.
const std::vector<HardwarePreset>& hardware_presets();

// The canonical GPU preset names, in order.
std::vector<std::string> hardware_preset_names();

// Lower case, with '_' and ' ' turned into '-': "H100_SXM" -> "h100-sxm".
std::string normalize_preset_name(std::string_view name);

// Looks a GPU preset up by canonical name or alias, ignoring case and '_' vs '-'.
// Returns kInvalidArgument when `name` is ambiguous ("a100": 40GB or 80GB), naming the
// candidates; kNotFound when it is unknown, naming the value, listing the presets and, when one
// is close, suggesting it ("did you mean ...").
Result<HardwarePreset> find_hardware_preset(std::string_view name);

// Every node preset, in the order listed above.
const std::vector<NodePreset>& node_presets();

// Looks a node preset up by name (same normalization); kNotFound, with the list and a
// suggestion, when unknown.
Result<NodeSpec> find_node_preset(std::string_view name);

}  // namespace zs::configs
