#include "models/flops.h"

#include <gtest/gtest.h>

#include "models/op_costs.h"
#include "models/op_graph.h"
#include "models/parameters.h"
#include "models/zoo.h"
#include "tests/models/model_test_util.h"

namespace zs::models {
namespace {

using test_util::find_op;
using test_util::zoo;

TEST(Flops, GemmIsTwoMnkForwardAndTwiceThatBackward) {
  const Workload w{.micro_batch = 2, .seq_len = 512};
  const std::vector<Op> ops = forward_ops(zoo("gpt2"), w);
  const Op& head = find_op(ops, "lm_head");
  const std::int64_t t = 1024, V = 50257, h = 768;
  EXPECT_EQ(head.cost.fwd_flops, 2 * t * V * h);
  EXPECT_EQ(head.cost.bwd_flops, 4 * t * V * h);
  EXPECT_EQ(head.cost.fwd_hbm_bytes, 2 * (t * h + h * V + t * V));
  // With a bias: + m·n forward (the add) and backward (the column sum).
  const Op& fc = find_op(ops, "layers.0.mlp.up");
  EXPECT_EQ(fc.cost.fwd_flops, 2 * t * 3072 * h + t * 3072);
  EXPECT_EQ(fc.cost.bwd_flops, 4 * t * 3072 * h + t * 3072);
}

TEST(Flops, UnfusedAttentionIsFourBS2HForwardEvenWhenCausal) {
  const std::int64_t b = 2, s = 1024, h = 768;
  const std::vector<Op> ops = forward_ops(zoo("gpt2"), {.micro_batch = b, .seq_len = s});
  const Op& core = find_op(ops, "layers.0.attn.core");
  EXPECT_EQ(matmul_fwd_flops(core), 4 * b * s * s * h);
  EXPECT_EQ(matmul_bwd_flops(core), 8 * b * s * s * h);
  // Scale, softmax and dropout add 7 nominal FLOPs per score forward.
  EXPECT_EQ(core.cost.fwd_flops, 4 * b * s * s * h + 7 * b * 12 * s * s);
}

TEST(Flops, CausalFlashAttentionComputesHalfThePairs) {
  EXPECT_EQ(attention_pairs({.seq = 4, .causal = true}), 10);
  EXPECT_EQ(attention_pairs({.seq = 4, .causal = false}), 16);
  // A cross-attention's queries attend to every key of the encoder's sequence.
  EXPECT_EQ(attention_pairs({.seq = 4, .causal = false, .kv_seq = 6}), 24);
  const std::int64_t s = 2048;
  const ModelSpec spec = zoo("llama2-7b");
  const Workload flash{.seq_len = s, .flash_attention = true};
  const Op core = find_op(forward_ops(spec, flash), "layers.0.attn.core");
  EXPECT_EQ(matmul_fwd_flops(core), 4 * 32 * 128 * (s * (s + 1) / 2));
  EXPECT_EQ(matmul_bwd_flops(core), 10 * 32 * 128 * (s * (s + 1) / 2));
  // The s x s scores never reach HBM: far fewer bytes than the unfused kernel.
  const Op unfused = find_op(forward_ops(spec, {.seq_len = s}), "layers.0.attn.core");
  EXPECT_GT(unfused.cost.fwd_hbm_bytes, 10 * core.cost.fwd_hbm_bytes);
  EXPECT_GT(unfused.cost.fwd_hbm_bytes, 2 * 32 * s * s * 4);  // scores written, re-read
}

// The GEMMs of the op list are exactly 6·N + 12·L·a·d·s FLOPs per token (PaLM App. B).
TEST(Flops, MatmulFlopsAreSixNPlusTheAttentionTerm) {
  const std::pair<std::string_view, Workload> cases[] = {
      {"gpt2", {.micro_batch = 4, .seq_len = 1024}},
      {"tiny-gpt", {.micro_batch = 3, .seq_len = 64}},
      {"llama2-7b", {.micro_batch = 1, .seq_len = 4096}},
      {"llama2-70b", {.micro_batch = 2, .seq_len = 2048}},
      {"qwen2-7b", {.micro_batch = 1, .seq_len = 1000, .act_bytes = 4}},
  };
  for (const auto& [name, w] : cases) {
    const ModelSpec spec = zoo(name);
    const CostTotals t = sum_costs(forward_ops(spec, w));
    EXPECT_EQ(t.matmul_fwd_flops + t.matmul_bwd_flops,
              w.tokens() * model_flops_per_token(spec, w.seq_len))
        << name;
    EXPECT_EQ(t.matmul_bwd_flops, 2 * t.matmul_fwd_flops) << name;
  }
  // gpt2 at s = 1024 by hand: 6 x 123,532,032 + 12 x 12 x 768 x 1024.
  EXPECT_EQ(model_flops_per_token(zoo("gpt2"), 1024), 741'192'192 + 113'246'208);
}

// All ops, including the memory-bound ones, stay within 1% of the standard count: the nominal
// elementwise FLOPs are a rounding error next to the GEMMs.
TEST(Flops, TotalIsWithinOnePercentOfModelFlops) {
  const std::pair<std::string_view, Workload> cases[] = {
      {"gpt2", {.micro_batch = 4, .seq_len = 1024}},
      {"gpt2-xl", {.micro_batch = 1, .seq_len = 1024}},
      {"llama2-7b", {.micro_batch = 1, .seq_len = 4096}},
      {"llama3-8b", {.micro_batch = 2, .seq_len = 8192}},
      {"mistral-7b", {.micro_batch = 1, .seq_len = 4096}},
  };
  for (const auto& [name, w] : cases) {
    const ModelSpec spec = zoo(name);
    const double model = static_cast<double>(model_flops_per_token(spec, w.seq_len));
    const double executed = training_flops_per_token(spec, w);
    EXPECT_GT(executed, model) << name;
    EXPECT_LT(executed, 1.01 * model) << name;
  }
}

TEST(Flops, FlashAttentionSavesAboutHalfTheForwardAttentionTerm) {
  const ModelSpec spec = zoo("llama2-7b");
  const std::int64_t s = 4096;
  const CostTotals unfused = sum_costs(forward_ops(spec, {.seq_len = s}));
  const CostTotals flash = sum_costs(forward_ops(spec, {.seq_len = s, .flash_attention = true}));
  const std::int64_t attention_fwd = 32 * 4 * 4096 * s * s;  // L · 4·b·s²·h
  const std::int64_t saved = unfused.matmul_fwd_flops - flash.matmul_fwd_flops;
  EXPECT_EQ(saved, attention_fwd / 2 - 32 * 4 * 4096 * s / 2);  // s(s+1)/2 pairs, not s²/2
}

}  // namespace
}  // namespace zs::models
