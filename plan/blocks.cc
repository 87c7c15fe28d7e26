#include "plan/blocks.h"

#include <algorithm>

#include "common/check.h"

namespace zs::plan {
namespace {

int real_id(const std::vector<models::ParamTensor>& params, int id) {
  ZS_CHECK(id >= 0 && id < static_cast<int>(params.size()));
  return params[id].tied ? params[id].tied_to : id;
}

}  // namespace

std::vector<Block> make_blocks(const std::vector<models::Op>& ops,
                               const std::vector<models::ParamTensor>& params) {
  std::vector<Block> blocks;
  std::string module;  // the module of the current block's parameters
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    const models::Op& op = ops[i];
    std::string op_module;
    if (!op.param_ids.empty()) op_module = params[op.param_ids.front()].module;
    const bool starts_block =
        blocks.empty() ||
        (!op_module.empty() && (op_module != module || blocks.back().layer != op.layer));
    if (starts_block) {
      Block b;
      b.name = op.name;
      b.first_op = i;
      b.layer = op.layer;
      blocks.push_back(std::move(b));
      module = op_module;
    }
    Block& b = blocks.back();
    b.last_op = i;
    for (int id : op.param_ids) {
      const int real = real_id(params, id);
      if (std::find(b.params.begin(), b.params.end(), real) == b.params.end()) {
        b.params.push_back(real);
        b.param_numel += params[real].numel;
      }
    }
    b.fwd_flops += op.cost.fwd_flops;
    b.bwd_flops += op.cost.bwd_flops;
    b.fwd_hbm_bytes += op.cost.fwd_hbm_bytes;
    b.bwd_hbm_bytes += op.cost.bwd_hbm_bytes;
    b.saved_bytes += op.saved_bytes();
    b.bwd_working_bytes = std::max(b.bwd_working_bytes, op.cost.bwd_grad_bytes);
  }
  return blocks;
}

}  // namespace zs::plan
