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

// ZeRO-3 leaf modules (configs/leaf_module.h): DeepSpeed's default makes Mixtral's MoE block one,
// fetched whole before its router's block in forward and its experts' in backward, released
// after the other end, with its gradients reduced together after the router's backward.
TEST(MicroStepTrace, ALeafModuleIsFetchedWholeAndReleasedAfterItsLastBlock) {
  models::ModelSpec spec = models::zoo_model("mixtral-8x7b").value();
  spec.num_layers = 2;
  const models::Workload w{1, 64, 2, true};
  const auto leaf =
      make_model_graph(spec, w, configs::default_leaf_modules(configs::kLatestDsVersion)).value();
  const auto plain = make_model_graph(spec, w).value();
  EXPECT_FALSE(plain->matches(spec, w, leaf->leaf_rules));
  EXPECT_TRUE(leaf->matches(spec, w, leaf->leaf_rules));

  auto find = [](const ModelGraph& g, const std::string& name) {
    for (std::size_t m = 0; m < g.modules.modules.size(); ++m) {
      if (g.modules.modules[m].name == name) return static_cast<int>(m);
    }
    return -1;
  };
  // Without leaves the router and the experts are fetched on their own.
  EXPECT_GE(find(*plain, "model.layers.1.mlp.gate"), 0);
  EXPECT_TRUE(plain->modules.leaves.empty());
  // With them, the block owns all three tensors, and its submodules are gone.
  EXPECT_EQ(find(*leaf, "model.layers.1.mlp.gate"), -1);
  EXPECT_EQ(find(*leaf, "model.layers.1.mlp.experts.act_fn"), -1);
  const int mlp = find(*leaf, "model.layers.1.mlp");
  ASSERT_GE(mlp, 0);
  ASSERT_EQ(leaf->modules.leaves.size(), 2u);
  const FetchedModule& m = leaf->modules.modules[mlp];
  EXPECT_TRUE(m.leaf);
  EXPECT_EQ(m.cls, "transformers.models.mixtral.modeling_mixtral.MixtralSparseMoeBlock");
  ASSERT_EQ(m.params.size(), 3u);
  EXPECT_EQ(m.last_block, m.block + 1);  // the router's block, then the experts'

  const MicroStepTrace& t = leaf->trace(false);
  int forward = 0, backward = 0;
  for (const ModuleVisit& v : t.visits) {
    if (v.module != mlp) continue;
    const TraceEntry& at = t.entries[v.trace_pos];
    const TraceEntry& until = t.entries[v.release_pos];
    if (at.pass == Pass::kForward) {
      ++forward;
      EXPECT_EQ(at.block, m.block);
      EXPECT_EQ(until.block, m.last_block);
    } else {
      ++backward;
      EXPECT_EQ(at.block, m.last_block);
      EXPECT_EQ(until.block, m.block);
    }
  }
  EXPECT_EQ(forward, 1);
  EXPECT_EQ(backward, 1);

  // Stage 3's gradients: the block's three, in registration order, after the router's backward.
  EXPECT_EQ(leaf->stage3_flow.completed[m.block], m.params);
  EXPECT_TRUE(leaf->stage3_flow.completed[m.last_block].empty());
  EXPECT_EQ(leaf->flow.completed[m.block].size(), 1u);  // autograd's order: the router alone
}

// A class rule matches the simple or the qualified class name, a name rule the module's path,
// a suffix rule its end; a rule inside a leaf changes nothing.
// BERT's cls.predictions owns a parameter (its bias, the decoder's too) and has submodules: its
// hooks fetch the bias when its forward begins, before the transform's dense layer, and release
// it when its forward ends, after the decoder; backward the other way round.
TEST(MicroStepTrace, AModuleWithParametersAndSubmodulesSpansTheirBlocks) {
  const models::ModelSpec spec = models::zoo_model("bert-base-uncased").value();
  const auto g = make_model_graph(spec, models::Workload{2, 128, 2, false}).value();
  const ModuleOrder& o = g->modules;
  auto module = [&](std::string_view name) {
    for (const FetchedModule& m : o.modules) {
      if (m.name == name) return m;
    }
    ADD_FAILURE() << name;
    return FetchedModule{};
  };
  const FetchedModule predictions = module("cls.predictions");
  const FetchedModule dense = module("cls.predictions.transform.dense");
  const FetchedModule decoder = module("cls.predictions.decoder");
  EXPECT_FALSE(predictions.leaf);
  EXPECT_EQ(predictions.params.size(), 1u);
  EXPECT_EQ(predictions.block, dense.block);
  EXPECT_EQ(predictions.last_block, decoder.block);
  EXPECT_LT(predictions.block, predictions.last_block);
  const MicroStepTrace& t = g->trace(false);
  int visits = 0;
  for (const ModuleVisit& v : t.visits) {
    if (o.modules[v.module].name != "cls.predictions") continue;
    ++visits;
    const TraceEntry& at = t.entries[v.trace_pos];
    const TraceEntry& until = t.entries[v.release_pos];
    if (at.pass == Pass::kForward) {
      EXPECT_EQ(at.block, dense.block);
      EXPECT_EQ(until.block, decoder.block);
    } else {
      EXPECT_EQ(at.block, decoder.block);
      EXPECT_EQ(until.block, dense.block);
    }
  }
  EXPECT_EQ(visits, 2);
}

TEST(MicroStepTrace, LeafRulesMatchClassesNamesAndSuffixes) {
  models::ModelSpec spec = models::zoo_model("llama2-7b").value();
  spec.num_layers = 3;
  const models::Workload w{1, 64, 2, true};
  auto leaves_of = [&](const configs::LeafModules& rules) {
    const auto g = make_model_graph(spec, w, rules).value();
    std::vector<std::string> names;
    for (int m : g->modules.leaves) names.push_back(g->modules.modules[m].name);
    return names;
  };
  const std::vector<std::string> layers{"model.layers.0", "model.layers.1", "model.layers.2"};
  EXPECT_EQ(leaves_of({{"LlamaDecoderLayer"}, {}, {}}), layers);
  EXPECT_EQ(leaves_of({{"transformers.models.llama.modeling_llama.LlamaDecoderLayer"}, {}, {}}),
            layers);
  EXPECT_EQ(leaves_of({{"LlamaDecoderLayer"}, {"model.layers.1.mlp"}, {"self_attn"}}), layers);
  EXPECT_EQ(leaves_of({{}, {"model.layers.1.mlp"}, {}}),
            std::vector<std::string>{"model.layers.1.mlp"});
  EXPECT_EQ(leaves_of({{"MixtralSparseMoeBlock"}, {"no.such.module"}, {}}),
            std::vector<std::string>{});
}

// T5's `shared` is fetched through the modules sharing its weight, a leaf among them: a whole
// stack made a leaf (T5Stack), its blocks (T5Block) or the model itself plan as any leaf does.
TEST(MicroStepTrace, AnUncalledModulesWeightIsFetchedThroughALeafThatSharesIt) {
  models::ModelSpec spec = models::zoo_model("t5-base").value();
  spec.num_layers = spec.num_decoder_layers = 2;
  const models::Workload w{1, 64, 2, true};
  // The whole model a leaf: no module that shares the weight is in the tree but as the leaf's.
  const std::pair<const char*, std::size_t> cases[] = {
      {"T5Stack", 2}, {"T5Block", 4}, {"T5ForConditionalGeneration", 1}};
  for (const auto& [cls, leaves] : cases) {
    const auto g = make_model_graph(spec, w, {{cls}, {}, {}});
    ASSERT_TRUE(g.ok()) << cls;
    EXPECT_EQ((*g)->modules.leaves.size(), leaves) << cls;
  }
}

}  // namespace
}  // namespace zs::plan
