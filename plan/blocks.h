// Blocks: the granularity at which the Plan runs the model. A block is the kernels of one
// module that owns parameters, plus the parameter-free kernels that follow it (attention core,
// activation, residual add). DeepSpeed's ZeRO-3 hooks fetch and release parameters per such
// module, so a block is also the unit of stage-3 all-gathers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/units.h"
#include "models/ops.h"
#include "models/parameters.h"

namespace zs::plan {

struct Block {
  std::string name;  // the first op's name, e.g. "layers.3.attn.q_proj"
  int first_op = 0;  // range in the forward op list
  int last_op = 0;
  int layer = 0;
  std::vector<int> params;       // ids of the real (non-alias) tensors it reads
  std::int64_t param_numel = 0;  // their elements
  std::int64_t fwd_flops = 0;
  std::int64_t bwd_flops = 0;
  Bytes fwd_hbm_bytes = 0;
  Bytes bwd_hbm_bytes = 0;
  Bytes saved_bytes = 0;        // activations its kernels keep for backward
  Bytes bwd_working_bytes = 0;  // the largest activation-gradient working set of its kernels
};

// Splits `ops` (models::forward_ops) into blocks, in order.
// REQUIRES: every param id in `ops` indexes `params`.
std::vector<Block> make_blocks(const std::vector<models::Op>& ops,
                               const std::vector<models::ParamTensor>& params);

}  // namespace zs::plan
