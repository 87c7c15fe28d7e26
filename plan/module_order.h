// Internal to plan/: the submodules DeepSpeed's ZeRO-3 hooks fetch, in the order they fetch them
// in one micro-step (partitioned_param_coordinator.py records this as its __submodule_order and
// replays it from the second step on). Every nn.Module of the Hugging Face model is fetched, the
// parameter-free ones (the model itself, containers, dropout, activations) included: each fetch
// moves the coordinator's step id and spends its prefetch budget. Forward fetches in call order
// (pre-order of the module tree as HF's forward() runs it); backward fetches, from the
// pre-backward hooks on each module's outputs, in the reverse order of the modules' exits,
// skipping modules whose outputs need no gradient (the rotary embedding). Checked against the
// oracle's recorded fetch events (tests/plan/oracle_test.cc) for HF GPT-2 and Llama with SDPA
// attention; Mistral and Qwen2 follow Llama's module structure. It depends on the model and the
// attention kernel only, so ModelGraph builds it once for every plan of a sweep.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/model_spec.h"
#include "models/parameters.h"
#include "plan/blocks.h"

namespace zs::plan {

struct FetchedModule {
  std::string name;         // HF module path, "" for the model itself
  std::vector<int> params;  // real parameter ids it owns directly, ascending (ds_id order)
  std::int64_t numel = 0;   // their elements (ds_numel)
  int block = -1;           // the block that reads its parameters; -1 when it has none
};

struct ModuleOrder {
  std::vector<FetchedModule> modules;  // in forward order
  std::vector<int> forward;            // module ids in forward fetch order
  std::vector<int> backward;           // module ids in backward fetch order
  // Per block, the modules of each pass fetched before its compute: a parameter-free module goes
  // with the next parameter module's block, trailing ones with the pass's last block. A
  // micro-step's module trace (plan/micro_step_trace.h) is these lists in the trace's block order.
  std::vector<std::vector<int>> forward_by_block, backward_by_block;
};

// REQUIRES: `params` and `blocks` are the model's (models::parameter_tensors, make_blocks).
ModuleOrder make_module_order(const models::ModelSpec& spec,
                              const std::vector<models::ParamTensor>& params,
                              const std::vector<Block>& blocks, bool flash_attention);

}  // namespace zs::plan
