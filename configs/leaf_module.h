// zero_optimization.leaf_module: the modules ZeRO-3 treats as leaves (deepspeed/runtime/zero/
// leaf_module_config.py, utils/z3_leaf_module.py, DeepSpeed 0.18.0 on: 7d9a2f2bf, #7604). A
// leaf module gets ZeRO-3's fetch and release hooks, its submodules none: it gathers every
// parameter under it on entry, in forward and backward, and reduces their gradients together
// when its backward ends. deepspeed.utils.set_z3_leaf_modules(model, [cls]) has the same effect
// from code. The config's default makes the MoE blocks of Mixtral, Qwen2-MoE and Qwen3-MoE
// leaves, so a MoE model is trained with them unless the config says otherwise.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json_reader.h"
#include "configs/ds_version.h"

namespace zs::configs {

using json::Json;

inline constexpr DsVersion kLeafModuleConfig{0, 18, 0};

// Which modules become leaves (apply_zero_leaf_module_config): a module whose class name
// (__class__.__name__ or its module-qualified name) is in `classes`, whose named_modules() name
// is in `names`, or whose name ends with one of `name_suffixes`.
struct LeafModules {
  std::vector<std::string> classes;
  std::vector<std::string> names;
  std::vector<std::string> name_suffixes;
  bool operator==(const LeafModules&) const = default;
};

// The release's default: DEFAULT_LEAF_MODULE_CLASSES from 0.18.0, nothing before.
LeafModules default_leaf_modules(DsVersion version);

struct LeafModuleIssue {
  std::string path;     // JSON path under the config's root
  std::string message;  // what is wrong and what is allowed
};

// Reads the zero_optimization.leaf_module value (`value` null or absent: the default). A key
// missing from the object keeps its default; a string stands for a one-element list.
// Returns the issue for a value DeepSpeed rejects (pydantic: unknown key, not a string).
std::optional<LeafModuleIssue> read_leaf_modules(const Json* value, DsVersion version,
                                                 LeafModules* out);

}  // namespace zs::configs
