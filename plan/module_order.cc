#include "plan/module_order.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "common/check.h"
#include "plan/module_tree.h"

namespace zs::plan {
namespace {

// utils/z3_leaf_module.py: a class rule matches __class__.__name__ or the qualified name.
bool is_leaf(const ModuleNode& n, const configs::LeafModules& rules) {
  const std::size_t dot = n.cls.rfind('.');
  const std::string_view simple =
      dot == std::string::npos ? std::string_view(n.cls) : std::string_view(n.cls).substr(dot + 1);
  for (const std::string& c : rules.classes) {
    if (!n.cls.empty() && (c == n.cls || c == simple)) return true;
  }
  for (const std::string& name : rules.names) {
    if (name == n.name) return true;
  }
  for (const std::string& s : rules.name_suffixes) {
    if (n.name.ends_with(s)) {
      return true;
    }
  }
  return false;
}

// parameter_offload.py _register_deepspeed_module: a leaf's submodules get no hooks. The tree
// keeps a leaf's descendants' names in `owned` so that their parameters become the leaf's.
struct Collapsed {
  std::map<std::string, std::string> owner;  // descendant module -> the leaf that fetches it
  std::vector<std::string> leaves;
};

void collapse(ModuleNode* n, const configs::LeafModules& rules, Collapsed* out) {
  if (!is_leaf(*n, rules)) {
    for (ModuleNode& c : n->children) collapse(&c, rules, out);
    return;
  }
  out->leaves.push_back(n->name);
  std::vector<const ModuleNode*> stack;
  for (const ModuleNode& c : n->children) stack.push_back(&c);
  while (!stack.empty()) {
    const ModuleNode* d = stack.back();
    stack.pop_back();
    out->owner[d->name] = n->name;
    for (const ModuleNode& c : d->children) stack.push_back(&c);
  }
  n->children.clear();
}

void pre_order(const ModuleNode& n, std::vector<const ModuleNode*>* out) {
  out->push_back(&n);
  for (const ModuleNode& c : n.children) pre_order(c, out);
}

// The number of nodes in each node's subtree, itself included, in pre-order.
int subtree_sizes(const ModuleNode& n, std::vector<int>* out) {
  const std::size_t at = out->size();
  out->push_back(1);
  for (const ModuleNode& c : n.children) (*out)[at] += subtree_sizes(c, out);
  return (*out)[at];
}

void post_order(const ModuleNode& n, std::vector<const ModuleNode*>* out) {
  for (const ModuleNode& c : n.children) post_order(c, out);
  out->push_back(&n);
}

// The modules in forward order (their index by name), the backward pass's (the modules whose
// exit hooks see a gradient, in reverse exit order), the leaves.
void list_modules(const ModuleNode& root, const Collapsed& collapsed, ModuleOrder* o,
                  std::map<std::string, int>* index) {
  std::vector<const ModuleNode*> forward, exits;
  pre_order(root, &forward);
  post_order(root, &exits);
  for (const ModuleNode* n : forward) {
    (*index)[n->name] = static_cast<int>(o->modules.size());
    o->forward.push_back(static_cast<int>(o->modules.size()));
    FetchedModule m;
    m.name = n->name;
    m.cls = n->cls;
    o->modules.push_back(std::move(m));
  }
  for (auto it = exits.rbegin(); it != exits.rend(); ++it) {
    if ((*it)->grad_output) o->backward.push_back((*index)[(*it)->name]);
  }
  for (const std::string& name : collapsed.leaves) o->modules[(*index)[name]].leaf = true;
}

// Each parameter to the module that registers it (or the leaf module that owns that), a tied
// one as the tensor it ties to.
void assign_params(const std::vector<models::ParamTensor>& params, const Collapsed& collapsed,
                   const std::map<std::string, int>& index, ModuleOrder* o) {
  for (const models::ParamTensor& p : params) {
    const auto owner = collapsed.owner.find(p.module);
    const auto it = index.find(owner == collapsed.owner.end() ? p.module : owner->second);
    if (it == index.end()) {
      // A module forward never calls (T5's `shared`): its weight is fetched through the modules
      // that share it (the stacks' embed_tokens, lm_head).
      // (Or through the leaf module that owns them.)
      ZS_CHECK(!p.tied && std::any_of(params.begin(), params.end(), [&](const auto& a) {
        return a.tied && a.tied_to == p.id &&
               (index.count(a.module) > 0 || collapsed.owner.count(a.module) > 0);
      }));
      continue;
    }
    FetchedModule& m = o->modules[it->second];
    const int real = p.tied ? p.tied_to : p.id;
    if (std::find(m.params.begin(), m.params.end(), real) != m.params.end()) continue;
    m.params.push_back(real);
    m.numel += params[real].numel;
  }
  for (FetchedModule& m : o->modules) std::sort(m.params.begin(), m.params.end());
}

// The block of each parameter module: forward order matches blocks in order, so a scan finds
// the first block from the current one that reads all of the module's parameters. A leaf
// module spans the blocks from the first to the last that read any of its parameters. Returns
// the modules with parameters of their own and in submodules, not placed yet.
std::vector<int> place_modules(std::size_t n_params, const std::vector<Block>& blocks,
                               const std::vector<int>& subtree, ModuleOrder* o) {
  std::vector<int> first_read(n_params, -1), last_read(n_params, -1);
  for (int blk = 0; blk < static_cast<int>(blocks.size()); ++blk) {
    for (int p : blocks[blk].params) {
      if (first_read[p] < 0) first_read[p] = blk;
      last_read[p] = blk;
    }
  }
  auto reads_all = [&](const FetchedModule& m, int blk) {
    return std::all_of(m.params.begin(), m.params.end(), [&](int p) {
      return std::find(blocks[blk].params.begin(), blocks[blk].params.end(), p) !=
             blocks[blk].params.end();
    });
  };
  int b = 0;
  std::vector<int> spanning;
  for (int id = 0; id < static_cast<int>(o->modules.size()); ++id) {
    FetchedModule& m = o->modules[id];
    if (m.params.empty()) continue;
    if (m.leaf) {
      m.block = static_cast<int>(blocks.size());
      for (int p : m.params) {
        ZS_CHECK(first_read[p] >= 0);  // every parameter is read by some block
        m.block = std::min(m.block, first_read[p]);
        m.last_block = std::max(m.last_block, last_read[p]);
      }
      o->leaves.push_back(id);
      continue;
    }
    const auto descendants = o->modules.begin() + id + 1;
    if (std::any_of(descendants, descendants + (subtree[id] - 1),
                    [](const FetchedModule& d) { return !d.params.empty(); })) {
      spanning.push_back(id);  // placed once its submodules are
      continue;
    }
    while (b < static_cast<int>(blocks.size()) && !reads_all(m, b)) ++b;
    ZS_CHECK(b < static_cast<int>(blocks.size()));
    m.block = b;
    m.last_block = b;
  }
  return spanning;
}

// A module with parameters of its own and submodules (BERT's cls.predictions and its bias):
// its hooks fetch them when its forward begins and release them when it ends
// (parameter_offload.py pre_sub_module_forward / post_sub_module_forward fetch a module's
// params(recurse=False)), so they live from its first submodule's block to its last's. Its
// submodules' blocks, not the first reads of their parameters: a tied decoder's table is read
// by the embedding first.
void place_spanning(const std::vector<int>& spanning, std::size_t n_blocks,
                    const std::vector<int>& subtree, ModuleOrder* o) {
  for (auto it = spanning.rbegin(); it != spanning.rend(); ++it) {
    FetchedModule& m = o->modules[*it];
    m.block = static_cast<int>(n_blocks);
    for (int k = *it + 1; k < *it + subtree[*it]; ++k) {
      if (o->modules[k].block < 0) continue;
      m.block = std::min(m.block, o->modules[k].block);
      m.last_block = std::max(m.last_block, o->modules[k].last_block);
    }
    ZS_CHECK(m.last_block >= 0);
  }
}

// The modules of `pass` grouped by the block that runs them (backward: its last block), the
// modules without parameters with the next that has some, trailing ones with the last.
std::vector<std::vector<int>> by_block(const ModuleOrder& o, const std::vector<int>& pass,
                                       bool backward, std::size_t n_blocks) {
  std::vector<std::vector<int>> out(n_blocks);
  std::size_t pending = 0;
  int last = -1;
  for (std::size_t k = 0; k < pass.size(); ++k) {
    const FetchedModule& m = o.modules[pass[k]];
    const int blk = backward ? m.last_block : m.block;
    if (blk < 0) continue;
    for (; pending <= k; ++pending) out[blk].push_back(pass[pending]);
    last = blk;
  }
  for (; pending < pass.size() && last >= 0; ++pending) out[last].push_back(pass[pending]);
  return out;
}

}  // namespace

ModuleOrder make_module_order(const models::ModelSpec& spec,
                              const std::vector<models::ParamTensor>& params,
                              const std::vector<Block>& blocks, bool flash_attention,
                              const configs::LeafModules& leaves) {
  ModuleNode root = module_tree(spec, flash_attention);
  Collapsed collapsed;
  collapse(&root, leaves, &collapsed);
  std::vector<int> subtree;
  subtree_sizes(root, &subtree);
  ModuleOrder o;
  std::map<std::string, int> index;
  list_modules(root, collapsed, &o, &index);
  assign_params(params, collapsed, index, &o);
  const std::vector<int> spanning = place_modules(params.size(), blocks, subtree, &o);
  place_spanning(spanning, blocks.size(), subtree, &o);
  o.forward_by_block = by_block(o, o.forward, false, blocks.size());
  o.backward_by_block = by_block(o, o.backward, true, blocks.size());
  return o;
}

}  // namespace zs::plan
