// module_tree: the tree of Hugging Face modules a model's forward() calls, in call order, with
// their qualified classes, as transformers builds each family (modeling_*.py). Stage 3's fetch
// order, its hooks and the leaf modules DeepSpeed matches by class or name are read off it
// (plan/module_order.h).
#pragma once

#include <string>
#include <vector>

#include "models/model_spec.h"

namespace zs::plan {

// A module of the model tree as forward() calls it.
struct ModuleNode {
  std::string name;
  std::string cls;  // module-qualified class name, as DeepSpeed's leaf matching reads it
  std::vector<ModuleNode> children;
  bool grad_output = true;  // its output requires grad, so backward fetches it
};

// The module tree of `spec`'s family (GPT-2's eager attention adds its dropout module).
ModuleNode module_tree(const models::ModelSpec& spec, bool flash_attention);

}  // namespace zs::plan
