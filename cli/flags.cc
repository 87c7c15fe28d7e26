#include "cli/flags.h"

#include <algorithm>
#include <charconv>

#include "configs/hardware/presets.h"
#include "models/hf_config.h"
#include "models/parameters.h"
#include "models/zoo.h"

namespace zs::cli {

Result<std::int64_t> parse_int_flag(const std::string& flag, const std::string& value,
                                    std::int64_t min, std::int64_t max) {
  std::int64_t v = 0;
  const auto r = std::from_chars(value.data(), value.data() + value.size(), v);
  const std::string allowed =
      "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  if (value.empty() || r.ec != std::errc() || r.ptr != value.data() + value.size()) {
    return Status::invalid_argument(flag + ": \"" + value + "\" is not an integer; expected " +
                                    allowed);
  }
  if (v < min || v > max) {
    return Status::invalid_argument(flag + ": " + value + " is out of range; expected " + allowed);
  }
  return v;
}

Result<configs::Precision> parse_precision_flag(const std::string& value) {
  if (value == "fp32") return configs::Precision::kFp32;
  if (value == "fp16") return configs::Precision::kFp16;
  if (value == "bf16") return configs::Precision::kBf16;
  return Status::invalid_argument("--precision: \"" + value +
                                  "\" is not allowed; expected fp32, fp16 or bf16");
}

Result<configs::Cluster> cluster_from_flags(const ClusterFlags& f) {
  if (!f.cluster_file.empty()) {
    if (!f.gpu.empty() || !f.nodes.empty() || !f.gpus_per_node.empty()) {
      return Status::invalid_argument(
          "--cluster FILE describes the whole cluster; drop --gpu, --nodes and --gpus-per-node");
    }
    return configs::load_cluster_file(f.cluster_file);
  }
  if (f.gpu.empty()) {
    return Status::invalid_argument("--nodes and --gpus-per-node need --gpu PRESET (one of " + [] {
      std::string s;
      for (const auto& n : configs::hardware_preset_names()) {
        s += (s.empty() ? "" : ", ") + n;
      }
      return s;
    }() + ")");
  }
  ZS_ASSIGN_OR_RETURN(const configs::HardwarePreset preset, configs::find_hardware_preset(f.gpu));
  std::int64_t nodes = 1;
  if (!f.nodes.empty()) {
    ZS_ASSIGN_OR_RETURN(nodes, parse_int_flag("--nodes", f.nodes, 1, 100000));
  }
  std::int64_t per_node = preset.node.max_gpus_per_node;
  if (!f.gpus_per_node.empty()) {
    ZS_ASSIGN_OR_RETURN(per_node, parse_int_flag("--gpus-per-node", f.gpus_per_node, 1,
                                                 preset.node.max_gpus_per_node));
  }
  return configs::make_cluster(f.gpu, static_cast<int>(nodes), static_cast<int>(per_node));
}

}  // namespace zs::cli
