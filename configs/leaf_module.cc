#include "configs/leaf_module.h"

namespace zs::configs {
namespace {

constexpr const char* kPath = "zero_optimization.leaf_module";

// One of classes/names/name_suffixes: a string or a list of strings, deduplicated in order
// (leaf_module_config.py _coerce_container_types, _validate_entries).
std::optional<LeafModuleIssue> read_list(const Json& v, const std::string& path,
                                         std::vector<std::string>* out) {
  out->clear();
  auto add = [&](const std::string& s) {
    for (const std::string& have : *out) {
      if (have == s) return;
    }
    out->push_back(s);
  };
  if (v.is_string()) {
    add(v.get<std::string>());
    return std::nullopt;
  }
  if (!v.is_array()) {
    return LeafModuleIssue{path, v.dump() +
                                     " is not allowed; expected a string or a list of "
                                     "strings (module class names or module names)"};
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      return LeafModuleIssue{path + "[" + std::to_string(i) + "]",
                             v[i].dump() + " is not allowed; expected a string"};
    }
    add(v[i].get<std::string>());
  }
  return std::nullopt;
}

}  // namespace

LeafModules default_leaf_modules(DsVersion version) {
  if (version < kLeafModuleConfig) return {};
  // leaf_module_config.py DEFAULT_LEAF_MODULE_CLASSES.
  return LeafModules{{"transformers.models.mixtral.modeling_mixtral.MixtralSparseMoeBlock",
                      "transformers.models.qwen2_moe.modeling_qwen2_moe.Qwen2MoeSparseMoeBlock",
                      "transformers.models.qwen3_moe.modeling_qwen3_moe.Qwen3MoeSparseMoeBlock"},
                     {},
                     {}};
}

std::optional<LeafModuleIssue> read_leaf_modules(const Json* value, DsVersion version,
                                                 LeafModules* out) {
  *out = default_leaf_modules(version);
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (version < kLeafModuleConfig) {
    return LeafModuleIssue{kPath, "is not a key of DeepSpeed " + version.str() +
                                      " (zero_optimization.leaf_module came in 0.18.0); use "
                                      "deepspeed.utils.set_z3_leaf_modules in the training "
                                      "script, or --ds-version 0.18 or later"};
  }
  if (!value->is_object()) {
    return LeafModuleIssue{kPath, value->dump() +
                                      " is not allowed; expected an object with \"classes\", "
                                      "\"names\" and/or \"name_suffixes\""};
  }
  for (const auto& [key, v] : value->items()) {
    const std::string path = std::string(kPath) + "." + key;
    std::vector<std::string>* list = key == "classes"         ? &out->classes
                                     : key == "names"         ? &out->names
                                     : key == "name_suffixes" ? &out->name_suffixes
                                                              : nullptr;
    if (list == nullptr) {
      return LeafModuleIssue{path,
                             "is not a leaf_module key; expected \"classes\", \"names\" or "
                             "\"name_suffixes\""};
    }
    if (auto issue = read_list(v, path, list)) return issue;
  }
  return std::nullopt;
}

}  // namespace zs::configs
