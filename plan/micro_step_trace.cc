#include "plan/micro_step_trace.h"

#include "common/check.h"

namespace zs::plan {

bool block_checkpointed(const std::vector<Block>& blocks, int block, bool checkpointing) {
  const int layer = blocks[block].layer;
  return checkpointing && layer >= 0 && layer < blocks.back().layer;
}

bool first_of_layer(const std::vector<Block>& blocks, int block) {
  return block == 0 || blocks[block - 1].layer != blocks[block].layer;
}

bool last_of_layer(const std::vector<Block>& blocks, int block) {
  return block + 1 == static_cast<int>(blocks.size()) ||
         blocks[block + 1].layer != blocks[block].layer;
}

MicroStepTrace make_micro_step_trace(const std::vector<Block>& blocks, const ModuleOrder& order,
                                     std::size_t params, bool checkpointing) {
  MicroStepTrace t;
  const int n = static_cast<int>(blocks.size());
  t.entries.reserve(3 * blocks.size());
  for (int i = 0; i < n; ++i) t.entries.push_back({i, Pass::kForward});
  for (int i = n - 1; i >= 0; --i) {
    if (block_checkpointed(blocks, i, checkpointing) && last_of_layer(blocks, i)) {
      int first = i;
      while (!first_of_layer(blocks, first)) --first;
      for (int j = first; j <= i; ++j) t.entries.push_back({j, Pass::kRecompute});
    }
    t.entries.push_back({i, Pass::kBackward});
  }

  for (int pos = 0; pos < static_cast<int>(t.entries.size()); ++pos) {
    const TraceEntry& e = t.entries[pos];
    const auto& by_block =
        e.pass == Pass::kBackward ? order.backward_by_block : order.forward_by_block;
    for (int m : by_block[e.block]) {
      const FetchedModule& fm = order.modules[m];
      int release = pos;
      if (fm.block != fm.last_block) {
        // The other end of the leaf (or of the module's subtree) in this pass: forward and
        // recomputation run blocks upward, backward downward, each without interruption.
        const bool backward = e.pass == Pass::kBackward;
        const int end = backward ? fm.block : fm.last_block;
        // A leaf wider than a checkpointed layer ends with the layer's recomputation.
        while (t.entries[release].block != end &&
               release + 1 < static_cast<int>(t.entries.size()) &&
               (t.entries[release + 1].pass == Pass::kBackward) == backward &&
               (backward || t.entries[release + 1].block > t.entries[release].block)) {
          ++release;
        }
      }
      t.visits.push_back(ModuleVisit{m, pos, release});
    }
  }

  const int visits = static_cast<int>(t.visits.size());
  t.entry_begin.assign(visits + 1, 0);
  t.numel_before.assign(visits + 1, 0);
  for (int s = 0; s < visits; ++s) {
    const FetchedModule& m = order.modules[t.visits[s].module];
    for (int p : m.params) {
      t.param.push_back(p);
      t.step.push_back(s);
    }
    t.entry_begin[s + 1] = static_cast<int>(t.param.size());
    t.numel_before[s + 1] = t.numel_before[s] + m.numel;
  }
  t.next_step.assign(t.param.size(), -1);
  std::vector<int> seen(params, -1);
  for (int e = static_cast<int>(t.param.size()) - 1; e >= 0; --e) {
    t.next_step[e] = seen[t.param[e]];
    seen[t.param[e]] = t.step[e];
  }
  return t;
}

}  // namespace zs::plan
