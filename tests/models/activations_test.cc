#include "models/activations.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "models/op_graph.h"
#include "models/zoo.h"
#include "tests/models/model_test_util.h"

namespace zs::models {
namespace {

using test_util::zoo;

// A GPT-2-architecture model with the given width and heads (Korthikanti's setting).
ModelSpec gpt2_like(std::int64_t h, std::int64_t a, std::int64_t max_seq) {
  ModelSpec spec = zoo("gpt2");
  spec.name = "gpt2-like";
  spec.hidden_size = h;
  spec.num_heads = a;
  spec.num_kv_heads = a;
  spec.head_dim = h / a;
  spec.intermediate_size = 4 * h;
  spec.num_layers = 3;
  spec.vocab_size = 1000;
  spec.max_position_embeddings = max_seq;
  return spec;
}

Bytes saved_by(const std::vector<Op>& ops, int layer, std::initializer_list<std::string_view> ns) {
  Bytes total = 0;
  const std::string prefix = "layers." + std::to_string(layer) + ".";
  for (const Op& op : ops) {
    for (std::string_view n : ns) {
      if (op.name == prefix + std::string(n)) total += op.saved_bytes();
    }
  }
  return total;
}

// Korthikanti et al. 2022 eq. 1: s·b·h·(34 + 5·a·s/h) bytes per layer, exactly.
TEST(Activations, GptLayerMatchesKorthikantiEquation1) {
  struct Case {
    std::int64_t s, b, h, a;
  };
  const Case cases[] = {{1024, 1, 768, 12},
                        {2048, 4, 1600, 25},
                        {64, 3, 64, 4},
                        {512, 8, 1024, 16},
                        {4096, 1, 5120, 40}};
  for (const Case& c : cases) {
    const ModelSpec spec = gpt2_like(c.h, c.a, c.s);
    const std::vector<Op> ops = forward_ops(spec, {.micro_batch = c.b, .seq_len = c.s});
    const std::int64_t expected = korthikanti_layer_bytes(c.s, c.b, c.h, c.a);
    EXPECT_EQ(expected * c.h, c.s * c.b * c.h * (34 * c.h + 5 * c.a * c.s));  // eq. 1 as printed
    for (int layer = 0; layer < 3; ++layer) {
      EXPECT_EQ(layer_saved_bytes(ops, layer), expected) << "s=" << c.s << " h=" << c.h;
    }
    const std::int64_t sbh = c.s * c.b * c.h, as2b = c.a * c.s * c.s * c.b;
    // The paper's breakdown: attention 11sbh + 5as²b, MLP 19sbh, two norms 4sbh.
    EXPECT_EQ(saved_by(ops, 1, {"attn.qkv", "attn.core", "attn.out_proj", "attn.residual"}),
              11 * sbh + 5 * as2b);
    EXPECT_EQ(saved_by(ops, 1, {"mlp.up", "mlp.act", "mlp.down", "mlp.residual"}), 19 * sbh);
    EXPECT_EQ(saved_by(ops, 1, {"attn_norm", "mlp_norm"}), 4 * sbh);
  }
}

TEST(Activations, FlashAttentionReplacesTheQuadraticTermWithSoftmaxStatistics) {
  const std::int64_t s = 2048, b = 2, h = 1600, a = 25;
  const std::vector<Op> ops =
      forward_ops(gpt2_like(h, a, s), {.micro_batch = b, .seq_len = s, .flash_attention = true});
  EXPECT_EQ(layer_saved_bytes(ops, 0), 34 * s * b * h + 4 * a * s * b);  // fp32 log-sum-exp
}

TEST(Activations, Fp32DoublesEverythingButTheMasks) {
  const std::int64_t s = 512, b = 2, h = 768, a = 12;
  const std::vector<Op> ops =
      forward_ops(gpt2_like(h, a, s), {.micro_batch = b, .seq_len = s, .act_bytes = 4});
  const std::int64_t sbh = s * b * h, as2b = a * s * s * b;
  // 16-bit: 32sbh + 4as²b in tensors plus 2sbh + as²b of masks.
  EXPECT_EQ(layer_saved_bytes(ops, 0), 2 * (32 * sbh + 4 * as2b) + 2 * sbh + as2b);
}

TEST(Activations, LlamaLayerHasNoMasksAndASwiGluMlp) {
  const ModelSpec spec = zoo("llama2-7b");
  const std::int64_t s = 4096, b = 1, h = 4096, a = 32, I = 11008;
  const std::vector<Op> ops = forward_ops(spec, {.micro_batch = b, .seq_len = s});
  const std::int64_t sbh = s * b * h, as2b = a * s * s * b, sbI = s * b * I;
  // Norms 4sbh; attention: input 2, Q 2, K 2, V 2, out-proj input 2 (sbh) + the fp32 softmax's
  // output 4as²b and its bf16 cast, P.V's input, 2as²b (LlamaAttention's saved tensors);
  // MLP: input 2sbh + gate, silu, up, down input (2sbI each).
  EXPECT_EQ(saved_by(ops, 0,
                     {"attn.q_proj", "attn.k_proj", "attn.v_proj", "attn.rotary", "attn.core",
                      "attn.out_proj", "attn.residual"}),
            10 * sbh + 6 * as2b);
  EXPECT_EQ(saved_by(ops, 0, {"mlp.gate", "mlp.up", "mlp.act", "mlp.down", "mlp.residual"}),
            2 * sbh + 8 * sbI);
  EXPECT_EQ(layer_saved_bytes(ops, 0), 16 * sbh + 8 * sbI + 6 * as2b);
}

TEST(Activations, GroupedKeysAndValuesShrinkOnlyUnderFlashAttention) {
  const ModelSpec spec = zoo("llama2-70b");  // 64 heads, 8 kv heads, d = 128
  const std::int64_t s = 1024, b = 1, h = 8192, kv = 1024, a = 64;
  const Op flash = forward_ops(spec, {.seq_len = s, .flash_attention = true})[6];
  ASSERT_EQ(flash.name, "layers.0.attn.core");
  EXPECT_EQ(flash.saved_bytes(), 2 * s * b * h + 2 * 2 * s * b * kv + 4 * a * s * b);
  const Op unfused = forward_ops(spec, {.seq_len = s})[6];
  // repeat_kv copies; the fp32 softmax output and its bf16 cast.
  EXPECT_EQ(unfused.saved_bytes(), 3 * 2 * s * b * h + 6 * a * s * s * b);
}

TEST(Activations, SummaryAddsNonLayerTermsAndLogits) {
  const ModelSpec spec = zoo("gpt2");
  const std::int64_t b = 4, s = 1024, h = 768, V = 50257, L = 12, t = b * s;
  const Workload w{.micro_batch = b, .seq_len = s};
  const ActivationSummary sum = activation_summary(spec, w);
  EXPECT_EQ(sum.per_layer_bytes, korthikanti_layer_bytes(s, b, h, 12));
  // input ids + embedding dropout mask; final-norm and LM-head inputs; fp32 log-probs + labels.
  const Bytes non_layer = (8 * t + t * h) + 2 * t * h + 2 * t * h + (4 * t * V + 8 * t);
  EXPECT_EQ(sum.non_layer_bytes, non_layer);
  EXPECT_EQ(sum.logits_bytes, 2 * t * V);
  EXPECT_EQ(sum.total_bytes, L * sum.per_layer_bytes + non_layer + 2 * t * V);
  EXPECT_EQ(sum.checkpoint_per_layer_bytes, 2 * t * h);
  EXPECT_EQ(sum.total_checkpointed_bytes, L * 2 * t * h + non_layer + 2 * t * V);
  // Without checkpointing the loss's backward is the peak: everything saved, plus two fp32
  // [t, V] gradients.
  EXPECT_EQ(sum.peak_backward_bytes, sum.total_bytes + 8 * t * V);
}

TEST(Activations, CheckpointingHoldsInputsPlusOneRecomputedLayer) {
  const ModelSpec spec = zoo("llama2-7b");
  const std::int64_t s = 4096, h = 4096;
  const ActivationSummary sum = activation_summary(spec, {.micro_batch = 1, .seq_len = s});
  EXPECT_EQ(sum.checkpoint_per_layer_bytes, 2 * s * h);
  EXPECT_LT(sum.total_checkpointed_bytes, sum.total_bytes / 10);
  // The last layer's recomputation: 31 checkpoints, its full activations, the embedding's
  // saved ids and the held logits, plus the gradients of whichever op is running.
  const Bytes recompute_floor =
      31 * sum.checkpoint_per_layer_bytes + sum.per_layer_bytes + 8 * s + sum.logits_bytes;
  Bytes max_grad = 0;
  for (const Op& op : forward_ops(spec, {.micro_batch = 1, .seq_len = s})) {
    max_grad = std::max(max_grad, op.cost.bwd_grad_bytes);
  }
  EXPECT_GE(sum.peak_backward_checkpointed_bytes, recompute_floor);
  EXPECT_LE(sum.peak_backward_checkpointed_bytes, recompute_floor + max_grad);
  EXPECT_LT(sum.peak_backward_checkpointed_bytes, sum.peak_backward_bytes);
  EXPECT_GE(sum.peak_backward_bytes, sum.total_bytes);
}

}  // namespace
}  // namespace zs::models
