// models/eager_dispatch.h's lookup of the measured eager dispatch counts: every op of every
// shipped config.json has an entry under SDPA and eager attention (a missing one fails a check),
// and T5's stacks' first blocks carry the relative position bias's calls in their cores.
#include "models/eager_dispatch.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "models/hf_config.h"
#include "models/op_graph.h"

namespace zs::models {
namespace {

namespace fs = std::filesystem;

ModelSpec load(const std::string& file) {
  const Result<ModelSpec> spec =
      load_hf_config(std::string(ZS_SOURCE_DIR) + "/models/hf_configs/" + file);
  EXPECT_TRUE(spec.ok()) << file << ": " << spec.status().message();
  return *spec;
}

const Op& find_op(const std::vector<Op>& ops, const std::string& name) {
  for (const Op& op : ops) {
    if (op.name == name) return op;
  }
  ADD_FAILURE() << "no op " << name;
  return ops.front();
}

TEST(EagerDispatch, EveryOpOfEveryShippedConfigHasAnEntry) {
  int configs = 0;
  for (const auto& entry :
       fs::directory_iterator(std::string(ZS_SOURCE_DIR) + "/models/hf_configs")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    ++configs;
    const ModelSpec spec = load(entry.path().filename().string());
    for (const bool sdpa : {true, false}) {
      const Workload w{.micro_batch = 2, .seq_len = 128, .flash_attention = sdpa};
      int calls = 0;
      for (const Op& op : forward_ops(spec, w)) {
        const EagerDispatch d = eager_dispatch(op, spec, w);
        EXPECT_GE(d.fwd.kernels, 0) << op.name;
        EXPECT_GE(d.bwd.other, 0) << op.name;
        calls += d.fwd.calls() + d.bwd.calls();
      }
      EXPECT_GT(calls, 0);
    }
  }
  EXPECT_GT(configs, 30);
}

// compute_bias runs in a stack's first block (the buckets, the relative_attention_bias lookup, a
// permute); the decoder's first cross-attention makes a zero bias. The other blocks take them
// as they are, so their cores make the same calls.
TEST(EagerDispatch, AT5StacksFirstBlockMakesThePositionBias) {
  for (const char* file : {"t5-large.json", "flan-t5-base.json"}) {
    SCOPED_TRACE(file);
    const ModelSpec spec = load(file);
    for (const bool sdpa : {true, false}) {
      const Workload w{.micro_batch = 2, .seq_len = 128, .flash_attention = sdpa};
      const std::vector<Op> ops = forward_ops(spec, w);
      auto core = [&](std::int64_t layer, const char* part) {
        return eager_dispatch(find_op(ops, "layers." + std::to_string(layer) + "." + part), spec,
                              w);
      };
      const std::int64_t dec = spec.num_layers;
      // Encoder: block 0 makes the bidirectional bias; blocks 1 and 2 the same calls.
      EXPECT_GT(core(0, "attn.core").fwd.kernels, core(1, "attn.core").fwd.kernels + 10);
      EXPECT_EQ(core(1, "attn.core").fwd.calls(), core(2, "attn.core").fwd.calls());
      EXPECT_EQ(core(0, "attn.core").fwd.modules, core(1, "attn.core").fwd.modules + 1);
      // The bias's backward into its table: the embedding's gradient.
      EXPECT_GT(core(0, "attn.core").bwd.kernels, core(1, "attn.core").bwd.kernels);
      // Decoder: its own (causal) bias and the cross-attention's zeros, in its block 0 alone.
      EXPECT_GT(core(dec, "attn.core").fwd.kernels, core(dec + 1, "attn.core").fwd.kernels + 10);
      EXPECT_EQ(core(dec, "cross.core").fwd.kernels, core(dec + 1, "cross.core").fwd.kernels + 1);
      EXPECT_EQ(core(dec, "cross.core").bwd.calls(), core(dec + 1, "cross.core").bwd.calls());
      // A decoder block takes its own entries: a causal self-attention, a cross-attention.
      EXPECT_NE(core(dec + 1, "attn.core").fwd.calls(), core(1, "attn.core").fwd.calls());
    }
  }
}

}  // namespace
}  // namespace zs::models
