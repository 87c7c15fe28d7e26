// ModelGraph: everything the Plan needs from the model for one workload (micro-batch, sequence
// length, dtype, attention kernel): parameter tensors, forward ops, blocks and where gradients
// appear in backward. It depends on the model, the workload and ZeRO-3's leaf modules only (a
// sweep keeps these fixed), so a sweep over ZeRO settings builds it once and shares it (it is
// immutable).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "configs/leaf_module.h"
#include "models/model_spec.h"
#include "models/ops.h"
#include "models/parameters.h"
#include "plan/blocks.h"
#include "plan/micro_step_trace.h"
#include "plan/module_order.h"

namespace zs::plan {

// Where each parameter's gradient appears during a micro-step's backward.
struct GradFlow {
  // Per block: parameters whose gradient tensor autograd creates in this block's backward
  // (first use in backward order; the tied embedding appears at the LM head).
  std::vector<std::vector<int>> created;
  // Per block: parameters whose gradient is complete after this block's backward, in the order
  // DeepSpeed's gradient hooks fire (ModelGraph::grad_order).
  std::vector<std::vector<int>> completed;
  // Per block: its largest parameter (elements), for transient per-parameter gradients.
  std::vector<std::int64_t> largest;
};

struct ModelGraph {
  models::ModelSpec spec;
  models::Workload workload;
  std::vector<models::ParamTensor> params;  // every tensor, aliases flagged (parameters.h)
  std::vector<int> real_params;             // non-alias ids, registration order
  std::int64_t hidden = 0;                  // h
  std::int64_t psi = 0;                     // trainable parameters
  std::int64_t largest_param = 0;           // L_max
  std::vector<models::Op> ops;              // forward ops of one micro-step
  std::vector<Block> blocks;
  std::vector<int> grad_order;  // non-alias ids in the order backward completes them
  GradFlow flow;
  // Stage 3's: a leaf module's gradients are reduced together, in registration order, when its
  // backward ends (after its first block's); the rest as `flow`.
  GradFlow stage3_flow;
  std::vector<bool> leaf_param;        // per tensor: a leaf module fetches it
  std::vector<int> stage3_done_block;  // per tensor: the block stage3_flow completes it in
  configs::LeafModules leaf_rules;     // what made modules.leaves
  ModuleOrder modules;                 // what ZeRO-3's hooks fetch, in order
  // A micro-step's blocks and module fetches, without and with activation checkpointing.
  std::array<MicroStepTrace, 2> traces;
  const MicroStepTrace& trace(bool checkpointing) const { return traces[checkpointing ? 1 : 0]; }

  // True when this graph was built for `spec`, `w` and `leaves`.
  bool matches(const models::ModelSpec& other, const models::Workload& w,
               const configs::LeafModules& leaves = {}) const;
};

// kInvalidArgument when the workload does not suit the model (models::validate_workload).
Result<std::shared_ptr<const ModelGraph>> make_model_graph(const models::ModelSpec& spec,
                                                           const models::Workload& w,
                                                           const configs::LeafModules& leaves = {});

}  // namespace zs::plan
