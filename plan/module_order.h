// Internal to plan/: the submodules DeepSpeed's ZeRO-3 hooks fetch, in the order they fetch them
// in one micro-step (partitioned_param_coordinator.py records this as its __submodule_order and
// replays it from the second step on). Every nn.Module of the Hugging Face model is fetched, the
// parameter-free ones (the model itself, containers, dropout, activations) included: each fetch
// moves the coordinator's step id and spends its prefetch budget. Forward fetches in call order
// (pre-order of the module tree as HF's forward() runs it); backward fetches, from the
// pre-backward hooks on each module's outputs, in the reverse order of the modules' exits,
// skipping modules whose outputs need no gradient (the rotary embedding). Checked against the
// oracle's recorded fetch events (tests/plan/oracle_test.cc) for every family zerosim reads.
// A module forward never calls (T5's and Blenderbot's `shared`) is fetched through the modules
// that share its weight. A ZeRO-3 leaf module
// (configs/leaf_module.h) is fetched whole and its submodules not at all. It depends on the
// model, the attention kernel and the leaf modules only, so ModelGraph builds it once for every
// plan of a sweep.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "configs/leaf_module.h"
#include "models/model_spec.h"
#include "models/parameters.h"
#include "plan/blocks.h"

namespace zs::plan {

struct FetchedModule {
  std::string name;         // HF module path, "" for the model itself
  std::string cls;          // its class, module-qualified ("torch.nn.modules.linear.Linear")
  std::vector<int> params;  // real parameter ids it fetches, ascending (ds_id order): its own,
                            // and a leaf module's every descendant's
  std::int64_t numel = 0;   // their elements (ds_numel)
  // The blocks that read its parameters, first to last; -1 when it has none. A leaf module
  // spans several, and so does a module with parameters of its own and submodules (BERT's
  // cls.predictions), from the first to the last block of its subtree: it is fetched before its
  // first block in forward and its last in backward, and released after the other end.
  int block = -1;
  int last_block = -1;
  bool leaf = false;  // a ZeRO-3 leaf module
};

struct ModuleOrder {
  std::vector<FetchedModule> modules;  // in forward order
  std::vector<int> forward;            // module ids in forward fetch order
  std::vector<int> backward;           // module ids in backward fetch order
  // Per block, the modules of each pass fetched before its compute: a parameter-free module goes
  // with the next parameter module's block, trailing ones with the pass's last block. A
  // micro-step's module trace (plan/micro_step_trace.h) is these lists in the trace's block order.
  std::vector<std::vector<int>> forward_by_block, backward_by_block;
  // The leaf modules that own parameters, in forward order: each one's parameters' gradients
  // are reduced together when its backward ends (stage3.py create_reduce_and_remove_grad_hooks).
  std::vector<int> leaves;
};

// REQUIRES: `params` and `blocks` are the model's (models::parameter_tensors, make_blocks).
// A leaf rule that matches no module changes nothing (DeepSpeed warns and goes on); one that
// matches a module inside a leaf has no effect (the outer leaf's submodules get no hooks).
ModuleOrder make_module_order(const models::ModelSpec& spec,
                              const std::vector<models::ParamTensor>& params,
                              const std::vector<Block>& blocks, bool flash_attention,
                              const configs::LeafModules& leaves = {});

}  // namespace zs::plan
