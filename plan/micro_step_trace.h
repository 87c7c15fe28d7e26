// One micro-step's order of block computations and, laid on it, ZeRO-3's module fetches and the
// parameter queue DeepSpeed's coordinator builds from them. They depend on the model and on
// whether activation checkpointing is on, not on the ds_config, so a ModelGraph holds both
// versions (ModelGraph::trace) and a sweep's plans read them instead of rebuilding them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "plan/blocks.h"
#include "plan/module_order.h"
#include "plan/plan.h"

namespace zs::plan {

// One step of a micro-step's compute: block `block` run in `pass`.
struct TraceEntry {
  int block = 0;
  Pass pass = Pass::kForward;
};

struct ModuleVisit {
  int module = 0;     // index in ModuleOrder::modules
  int trace_pos = 0;  // the trace entry whose compute it precedes
  // The trace entry after whose compute the module is released: trace_pos, or for a leaf
  // module spanning several blocks the entry of its other end in the same pass.
  int release_pos = 0;
};

struct MicroStepTrace {
  // The order in which one micro-step runs its blocks (what DeepSpeed's stage-3 coordinator
  // records as its trace): every block forward, then backward from the last block, with the
  // blocks of each checkpointed layer recomputed just before that layer's backward.
  std::vector<TraceEntry> entries;
  // The module fetches, in order (recomputed blocks fetch their modules again, as forward). Each
  // visit is tied to the trace entry whose compute runs next: a parameter module to its block's
  // entry, a parameter-free module to the next parameter module's.
  std::vector<ModuleVisit> visits;
  // The parameter queue (construct_parameter_trace_from_module_trace: each fetched module's
  // parameters in ds_id order, tagged with the fetch's step id).
  std::vector<int> param;        // per queue entry
  std::vector<int> step;         // per queue entry: the visit that uses it
  std::vector<int> entry_begin;  // per visit + 1: its first queue entry
  std::vector<int> next_step;    // per queue entry: the next visit using the same parameter, -1
  std::vector<std::int64_t> numel_before;  // per visit + 1: the queue's elements before it
};

// Transformer layers are 0..L-1; the embedding is -1 and the final norm, head and loss are L.
// A block is checkpointed when its layer is a transformer layer and checkpointing is on.
bool block_checkpointed(const std::vector<Block>& blocks, int block, bool checkpointing);
bool first_of_layer(const std::vector<Block>& blocks, int block);
bool last_of_layer(const std::vector<Block>& blocks, int block);

// REQUIRES: `order` is make_module_order's for `blocks`; `params` the number of parameter
// tensors (aliases included).
MicroStepTrace make_micro_step_trace(const std::vector<Block>& blocks, const ModuleOrder& order,
                                     std::size_t params, bool checkpointing);

}  // namespace zs::plan
