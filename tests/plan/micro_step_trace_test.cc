// A micro-step's trace (plan/micro_step_trace.h): built once per model graph, with and without
// activation checkpointing, and read by every plan of that graph.
#include "plan/micro_step_trace.h"

#include <gtest/gtest.h>

#include "models/zoo.h"
#include "plan/model_graph.h"

namespace zs::plan {
namespace {

std::shared_ptr<const ModelGraph> gpt2_graph() {
  const models::ModelSpec spec = models::zoo_model("gpt2").value();
  return make_model_graph(spec, models::Workload{2, 128, 2, true}).value();
}

TEST(MicroStepTrace, RunsEveryBlockForwardThenBackwardAndRecomputesCheckpointedLayers) {
  const auto g = gpt2_graph();
  const int blocks = static_cast<int>(g->blocks.size());
  const MicroStepTrace& plain = g->trace(false);
  ASSERT_EQ(plain.entries.size(), 2u * blocks);
  for (int i = 0; i < blocks; ++i) {
    EXPECT_EQ(plain.entries[i].block, i);
    EXPECT_EQ(plain.entries[i].pass, Pass::kForward);
    EXPECT_EQ(plain.entries[blocks + i].block, blocks - 1 - i);
    EXPECT_EQ(plain.entries[blocks + i].pass, Pass::kBackward);
  }
  // Checkpointing recomputes each transformer layer's blocks (not the embedding or the head's)
  // just before that layer's backward.
  const MicroStepTrace& ckpt = g->trace(true);
  int recomputed = 0;
  for (std::size_t k = 0; k < ckpt.entries.size(); ++k) {
    const TraceEntry& e = ckpt.entries[k];
    if (e.pass != Pass::kRecompute) continue;
    ++recomputed;
    EXPECT_TRUE(block_checkpointed(g->blocks, e.block, true));
    EXPECT_FALSE(block_checkpointed(g->blocks, e.block, false));
  }
  int layer_blocks = 0;
  for (int i = 0; i < blocks; ++i) layer_blocks += block_checkpointed(g->blocks, i, true);
  EXPECT_EQ(recomputed, layer_blocks);
  EXPECT_EQ(ckpt.entries.size(), plain.entries.size() + static_cast<std::size_t>(layer_blocks));
}

TEST(MicroStepTrace, TheQueueHoldsEachVisitsParametersAndTheirNextUse) {
  const auto g = gpt2_graph();
  for (const bool checkpointing : {false, true}) {
    const MicroStepTrace& t = g->trace(checkpointing);
    ASSERT_EQ(t.entry_begin.size(), t.visits.size() + 1);
    ASSERT_EQ(t.next_step.size(), t.param.size());
    for (std::size_t s = 0; s < t.visits.size(); ++s) {
      const FetchedModule& m = g->modules.modules[t.visits[s].module];
      ASSERT_EQ(t.entry_begin[s + 1] - t.entry_begin[s], static_cast<int>(m.params.size()));
      EXPECT_EQ(t.numel_before[s + 1] - t.numel_before[s], m.numel);
      for (int e = t.entry_begin[s]; e < t.entry_begin[s + 1]; ++e) {
        EXPECT_EQ(t.step[e], static_cast<int>(s));
        // The next visit that uses the parameter, and none in between.
        int expected = -1;
        for (int later = e + 1; later < static_cast<int>(t.param.size()); ++later) {
          if (t.param[later] == t.param[e]) {
            expected = t.step[later];
            break;
          }
        }
        EXPECT_EQ(t.next_step[e], expected);
      }
    }
    // Every parameter is gathered forward and again backward: each has a next use from its
    // forward visit.
    EXPECT_GT(t.param.size(), g->real_params.size());
  }
}

}  // namespace
}  // namespace zs::plan
