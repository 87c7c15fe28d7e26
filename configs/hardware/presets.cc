#include "configs/hardware/presets.h"

#include <algorithm>
#include <optional>

#include "common/text.h"
#include "configs/hardware/preset_data.h"

namespace zs::configs {
namespace {

namespace data = preset_data;

std::vector<HardwarePreset> make_hardware_presets() {
  std::vector<HardwarePreset> p;
  p.push_back({"v100-16gb",
               {"v100-sxm2-16gb", "v100-16gb-sxm2", "tesla-v100-sxm2-16gb"},
               data::v100_sxm2_16gb(),
               data::dgx_1v()});
  p.push_back({"v100-32gb",
               {"v100", "v100-sxm2", "v100-32gb-sxm2", "v100-sxm2-32gb", "tesla-v100-sxm2-32gb"},
               data::v100_sxm2_32gb(),
               data::dgx_1v()});
  p.push_back({"v100-32gb-dgx2",
               {"v100-sxm3", "v100-32gb-sxm3", "v100-sxm3-32gb", "tesla-v100-sxm3-32gb"},
               data::v100_sxm3_32gb(),
               data::dgx_2()});
  p.push_back({"a100-40gb",
               {"a100-40gb-sxm", "a100-40gb-sxm4", "a100-sxm4-40gb", "a100-40g"},
               data::a100_sxm4_40gb(),
               data::dgx_a100_320gb()});
  p.push_back({"a100-80gb",
               {"a100-80gb-sxm", "a100-80gb-sxm4", "a100-sxm4-80gb", "a100-80g"},
               data::a100_sxm4_80gb(),
               data::dgx_a100_640gb()});
  p.push_back({"h100-80gb-sxm",
               {"h100", "h100-sxm", "h100-sxm5", "h100-80gb", "h100-sxm5-80gb", "h100-80gb-hbm3"},
               data::h100_sxm5_80gb(),
               data::dgx_h100()});
  p.push_back({"h200",
               {"h200-sxm", "h200-141gb", "h200-sxm-141gb"},
               data::h200_sxm_141gb(),
               data::dgx_h200()});
  return p;
}

std::vector<NodePreset> make_node_presets() {
  return {{"dgx-1v", data::dgx_1v()},
          {"dgx-2", data::dgx_2()},
          {"dgx-a100-320gb", data::dgx_a100_320gb()},
          {"dgx-a100-640gb", data::dgx_a100_640gb()},
          {"dgx-h100", data::dgx_h100()},
          {"dgx-h200", data::dgx_h200()}};
}

// Names that match more than one GPU preset: the user must pick.
struct AmbiguousName {
  std::string_view name;
  std::vector<std::string_view> candidates;
};

const std::vector<AmbiguousName>& ambiguous_names() {
  static const std::vector<AmbiguousName> kNames = {
      {"a100", {"a100-40gb", "a100-80gb"}},
      {"a100-sxm", {"a100-40gb", "a100-80gb"}},
      {"a100-sxm4", {"a100-40gb", "a100-80gb"}},
  };
  return kNames;
}

const AmbiguousName* find_ambiguous(std::string_view normalized) {
  for (const auto& a : ambiguous_names()) {
    if (a.name == normalized) return &a;
  }
  return nullptr;
}

std::string quoted_alternatives(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += "\"" + std::string(names[i]) + "\"";
  }
  return out;
}

// "did you mean ..." for a GPU preset: the closest canonical name, alias or ambiguous name.
std::string gpu_suggestion(std::string_view normalized) {
  std::vector<std::string> candidates;
  std::vector<std::vector<std::string_view>> meaning;  // canonical names per candidate
  for (const auto& p : hardware_presets()) {
    candidates.push_back(p.name);
    meaning.push_back({p.name});
    for (const auto& a : p.aliases) {
      candidates.push_back(a);
      meaning.push_back({p.name});
    }
  }
  for (const auto& a : ambiguous_names()) {
    candidates.emplace_back(a.name);
    meaning.push_back(a.candidates);
  }
  const auto match = closest_match(normalized, candidates);
  if (!match) return "";
  const auto it = std::find(candidates.begin(), candidates.end(), *match);
  return " (did you mean " + quoted_alternatives(meaning[it - candidates.begin()]) + "?)";
}

}  // namespace

const std::vector<HardwarePreset>& hardware_presets() {
  static const std::vector<HardwarePreset> kPresets = make_hardware_presets();
  return kPresets;
}

std::vector<std::string> hardware_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : hardware_presets()) names.push_back(p.name);
  return names;
}

std::string normalize_preset_name(std::string_view name) {
  std::string out = to_lower(name);
  for (char& c : out) {
    if (c == '_' || c == ' ') c = '-';
  }
  return out;
}

Result<HardwarePreset> find_hardware_preset(std::string_view name) {
  const std::string key = normalize_preset_name(name);
  for (const auto& p : hardware_presets()) {
    if (p.name == key) return p;
    if (std::find(p.aliases.begin(), p.aliases.end(), key) != p.aliases.end()) return p;
  }
  if (const AmbiguousName* a = find_ambiguous(key)) {
    return Status::invalid_argument("GPU preset \"" + std::string(name) +
                                    "\" is ambiguous: it could mean " +
                                    quoted_alternatives(a->candidates) + "; name one of them");
  }
  const std::vector<std::string> names = hardware_preset_names();
  return Status::not_found("unknown GPU preset \"" + std::string(name) +
                           "\"; known presets: " + join(names, ", ") + gpu_suggestion(key));
}

const std::vector<NodePreset>& node_presets() {
  static const std::vector<NodePreset> kPresets = make_node_presets();
  return kPresets;
}

Result<NodeSpec> find_node_preset(std::string_view name) {
  const std::string key = normalize_preset_name(name);
  std::vector<std::string> names;
  for (const auto& n : node_presets()) {
    if (n.name == key) return n.node;
    names.push_back(n.name);
  }
  std::string hint;
  if (auto m = closest_match(key, names)) hint = " (did you mean \"" + *m + "\"?)";
  return Status::not_found("unknown node preset \"" + std::string(name) +
                           "\"; known node presets: " + join(names, ", ") + hint);
}

}  // namespace zs::configs
