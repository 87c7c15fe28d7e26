#include "models/op_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string_view>
#include <tuple>

#include "models/activations.h"
#include "models/flops.h"
#include "models/parameters.h"
#include "models/zoo.h"
#include "tests/models/model_test_util.h"

namespace zs::models {
namespace {

using test_util::find_op;
using test_util::zoo;

// Zoo model `name` shrunk to 2 layers of hidden 64 with GQA (4 query heads, 2 kv heads), small
// enough to read.
ModelSpec tiny(std::string_view name) {
  ModelSpec spec = zoo(name);
  spec.name = "tiny-" + std::string(name);
  spec.vocab_size = 128;
  spec.hidden_size = 64;
  spec.num_layers = 2;
  spec.num_heads = 4;
  spec.num_kv_heads = 2;
  spec.head_dim = 16;
  spec.intermediate_size = 160;
  spec.max_position_embeddings = 128;
  return spec;
}

ModelSpec tiny_llama() { return tiny("llama3-8b"); }

std::vector<std::string> names(const std::vector<Op>& ops) {
  std::vector<std::string> out;
  for (const Op& op : ops) out.push_back(op.name);
  return out;
}

TEST(OpGraph, Gpt2OpNamesAndOrderAreStable) {
  const std::vector<Op> ops = forward_ops(zoo("tiny-gpt"), {.micro_batch = 2, .seq_len = 64});
  std::vector<std::string> expected = {"embed"};
  for (int i = 0; i < 2; ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    for (const char* n : {"attn_norm", "attn.qkv", "attn.core", "attn.out_proj", "attn.residual",
                          "mlp_norm", "mlp.up", "mlp.act", "mlp.down", "mlp.residual"}) {
      expected.push_back(p + n);
    }
  }
  for (const char* n : {"final_norm", "lm_head", "loss"}) expected.push_back(n);
  EXPECT_EQ(names(ops), expected);
  EXPECT_EQ(ops.front().kind, OpKind::kEmbedding);
  EXPECT_EQ(ops.front().layer, kEmbeddingLayer);
  EXPECT_EQ(find_op(ops, "layers.1.attn.core").kind, OpKind::kAttention);
  EXPECT_EQ(find_op(ops, "layers.1.attn.core").layer, 1);
  EXPECT_EQ(find_op(ops, "layers.0.mlp.act").kind, OpKind::kActivation);
  EXPECT_EQ(ops.back().kind, OpKind::kCrossEntropy);
  EXPECT_EQ(ops.back().layer, 2);
}

TEST(OpGraph, LlamaLayerOpNamesAreStable) {
  const std::vector<Op> ops =
      forward_ops(tiny_llama(), {.micro_batch = 1, .seq_len = 32, .flash_attention = true});
  const std::vector<std::string> all = names(ops);
  const std::vector<std::string> layer0(all.begin() + 1, all.begin() + 15);
  EXPECT_EQ(layer0, (std::vector<std::string>{
                        "layers.0.attn_norm", "layers.0.attn.q_proj", "layers.0.attn.k_proj",
                        "layers.0.attn.v_proj", "layers.0.attn.rotary", "layers.0.attn.core",
                        "layers.0.attn.out_proj", "layers.0.attn.residual", "layers.0.mlp_norm",
                        "layers.0.mlp.gate", "layers.0.mlp.up", "layers.0.mlp.act",
                        "layers.0.mlp.down", "layers.0.mlp.residual"}));
  EXPECT_EQ(all.size(), 1u + 2u * 14u + 3u);
  EXPECT_EQ(find_op(ops, "layers.0.attn.core").kind, OpKind::kFlashAttention);
  EXPECT_EQ(find_op(ops, "layers.0.mlp.act").kind, OpKind::kSwiGlu);
}

TEST(OpGraph, EveryParameterIsUsedOnceAndTiedTablesTwice) {
  for (const ModelSpec& spec : {zoo("tiny-gpt"), tiny_llama()}) {
    const std::vector<ParamTensor> params = parameter_tensors(spec);
    std::vector<int> uses(params.size(), 0);
    for (const Op& op : forward_ops(spec, {.seq_len = 8})) {
      for (int id : op.param_ids) {
        const ParamTensor& p = params[static_cast<std::size_t>(id)];
        ++uses[static_cast<std::size_t>(p.tied ? p.tied_to : id)];
      }
    }
    for (const ParamTensor& p : params) {
      if (p.tied) continue;
      const bool shared = spec.tie_word_embeddings && p.id == 0;
      EXPECT_EQ(uses[static_cast<std::size_t>(p.id)], shared ? 2 : 1) << spec.name << " " << p.name;
    }
  }
}

TEST(OpGraph, GemmShapesFollowTheSpec) {
  const Workload w{.micro_batch = 2, .seq_len = 128};
  const std::vector<Op> l70 = forward_ops(zoo("llama2-70b"), w);
  auto gemm = [](const Op& op) { return std::get<GemmShape>(op.shape); };
  const GemmShape k = gemm(find_op(l70, "layers.5.attn.k_proj"));
  EXPECT_EQ(k.m, 256);
  EXPECT_EQ(k.n, 1024);  // 8 kv heads x 128
  EXPECT_EQ(k.k, 8192);
  const GemmShape down = gemm(find_op(l70, "layers.5.mlp.down"));
  EXPECT_EQ(down.n, 8192);
  EXPECT_EQ(down.k, 28672);
  EXPECT_EQ(gemm(find_op(l70, "lm_head")).n, 32000);

  const std::vector<Op> gpt2 = forward_ops(zoo("gpt2"), w);
  const GemmShape qkv = gemm(find_op(gpt2, "layers.0.attn.qkv"));
  EXPECT_EQ(qkv.n, 3 * 768);
  EXPECT_TRUE(qkv.bias);
  const AttentionShape attn = std::get<AttentionShape>(find_op(gpt2, "layers.0.attn.core").shape);
  EXPECT_EQ(attn.heads, 12);
  EXPECT_EQ(attn.head_dim, 64);
  EXPECT_EQ(attn.dropout, 0.1);
}

TEST(OpGraph, OpsReferToTheirModulesParameters) {
  const ModelSpec spec = zoo("tiny-gpt");
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  const std::vector<Op> ops = forward_ops(spec, {.seq_len = 8});
  auto param_names = [&](std::string_view op) {
    std::vector<std::string> out;
    for (int id : find_op(ops, op).param_ids)
      out.push_back(params[static_cast<std::size_t>(id)].name);
    return out;
  };
  EXPECT_EQ(param_names("embed"),
            (std::vector<std::string>{"transformer.wte.weight", "transformer.wpe.weight"}));
  EXPECT_EQ(param_names("layers.1.mlp.up"),
            (std::vector<std::string>{"transformer.h.1.mlp.c_fc.weight",
                                      "transformer.h.1.mlp.c_fc.bias"}));
  EXPECT_EQ(param_names("lm_head"), (std::vector<std::string>{"lm_head.weight"}));
  EXPECT_TRUE(find_op(ops, "layers.0.attn.core").param_ids.empty());
}

TEST(OpGraph, GradientsAreReadyInReverseOfFirstUse) {
  const ModelSpec gpt = zoo("tiny-gpt");
  const std::vector<ParamTensor> params = parameter_tensors(gpt);
  const std::vector<int> order = gradient_ready_order(gpt);
  ASSERT_EQ(order.size(), params.size() - 1);  // the tied alias has no gradient of its own
  auto name = [&](int id) { return params[static_cast<std::size_t>(id)].name; };
  EXPECT_EQ(name(order[0]), "transformer.ln_f.bias");
  EXPECT_EQ(name(order[1]), "transformer.ln_f.weight");
  EXPECT_EQ(name(order[2]), "transformer.h.1.mlp.c_proj.bias");
  // The tied table finishes last, after the embedding's backward.
  EXPECT_EQ(name(order[order.size() - 2]), "transformer.wpe.weight");
  EXPECT_EQ(name(order.back()), "transformer.wte.weight");

  const ModelSpec llama = tiny_llama();
  const std::vector<ParamTensor> lp = parameter_tensors(llama);
  const std::vector<int> lo = gradient_ready_order(llama);
  ASSERT_EQ(lo.size(), lp.size());
  auto lname = [&](int id) { return lp[static_cast<std::size_t>(id)].name; };
  EXPECT_EQ(lname(lo[0]), "lm_head.weight");
  EXPECT_EQ(lname(lo[1]), "model.norm.weight");
  EXPECT_EQ(lname(lo[2]), "model.layers.1.mlp.down_proj.weight");
  EXPECT_EQ(lname(lo[3]), "model.layers.1.mlp.up_proj.weight");
  EXPECT_EQ(lname(lo[4]), "model.layers.1.mlp.gate_proj.weight");
  EXPECT_EQ(lname(lo[5]), "model.layers.1.post_attention_layernorm.weight");
  EXPECT_EQ(lname(lo.back()), "model.embed_tokens.weight");
}

// The index of the op called `name`.
int index_of(const std::vector<Op>& ops, std::string_view name) {
  return static_cast<int>(&find_op(ops, name) - ops.data());
}

// Qwen3 (modeling_qwen3.py Qwen3Attention.forward): q_norm(q_proj(x)) and k_norm(k_proj(x)),
// each an RMSNorm over head_dim of every head with head_dim weights, feed the rotary embedding.
TEST(OpGraph, Qwen3NormsEachHeadsQueryAndKeyBeforeTheRotaryEmbedding) {
  ModelSpec spec = zoo("qwen3-8b");
  spec.vocab_size = 128;
  spec.hidden_size = 64;
  spec.num_layers = 2;
  spec.num_heads = 4;
  spec.num_kv_heads = 2;
  spec.head_dim = 24;  // not hidden / heads, as Qwen3's own small checkpoints
  spec.intermediate_size = 160;
  spec.max_position_embeddings = 128;
  const Workload w{.micro_batch = 2, .seq_len = 8, .flash_attention = true};
  const std::vector<Op> ops = forward_ops(spec, w);
  const std::vector<std::string> all = names(ops);
  const std::vector<std::string> attn(all.begin() + 2, all.begin() + 9);
  EXPECT_EQ(attn, (std::vector<std::string>{"layers.0.attn.q_proj", "layers.0.attn.q_norm",
                                            "layers.0.attn.k_proj", "layers.0.attn.k_norm",
                                            "layers.0.attn.v_proj", "layers.0.attn.rotary",
                                            "layers.0.attn.core"}));
  EXPECT_EQ(all.size(), 1u + 2u * 16u + 3u);
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  const std::int64_t t = w.tokens();
  for (const auto& [norm, proj, heads] :
       {std::tuple{"layers.0.attn.q_norm", "layers.0.attn.q_proj", spec.num_heads},
        std::tuple{"layers.0.attn.k_norm", "layers.0.attn.k_proj", spec.num_kv_heads}}) {
    const Op& op = find_op(ops, norm);
    EXPECT_EQ(op.kind, OpKind::kNorm);
    const auto& shape = std::get<NormShape>(op.shape);
    EXPECT_EQ(shape.rows, t * heads) << norm;
    EXPECT_EQ(shape.cols, spec.head_dim) << norm;
    ASSERT_EQ(op.param_ids.size(), 1u) << norm;
    EXPECT_EQ(params[op.param_ids[0]].numel, spec.head_dim) << norm;
    EXPECT_EQ(op.inputs, std::vector<int>{index_of(ops, proj)}) << norm;
  }
  EXPECT_EQ(find_op(ops, "layers.0.attn.rotary").inputs,
            (std::vector<int>{index_of(ops, "layers.0.attn.q_norm"),
                              index_of(ops, "layers.0.attn.k_norm")}));
  // Llama has none.
  for (const Op& op : forward_ops(tiny_llama(), w)) {
    EXPECT_FALSE(op.name.ends_with(".q_norm") || op.name.ends_with(".k_norm")) << op.name;
  }
}

// Mixtral (modeling_mixtral.py MixtralSparseMoeBlock): the router's linear over E, the
// softmax/top-k, then the experts reading the normed input and the routing; each token costs k
// experts' GEMMs, and every expert's weights are parameters.
// A zoo MoE shrunk to 2 layers of hidden 64, 4 heads (2 KV) of head_dim, 4 experts of width
// `inner`, 2 per token.
ModelSpec small_moe(std::string_view zoo_name, std::int64_t head_dim, std::int64_t inner) {
  ModelSpec spec = zoo(zoo_name);
  spec.vocab_size = 128;
  spec.hidden_size = 64;
  spec.num_layers = 2;
  spec.num_heads = 4;
  spec.num_kv_heads = 2;
  spec.head_dim = head_dim;
  spec.intermediate_size = inner;
  spec.max_position_embeddings = 128;
  spec.moe = {.num_experts = 4, .experts_per_token = 2};
  return spec;
}

TEST(OpGraph, MixtralRoutesEachTokenToTopKOfItsExperts) {
  const ModelSpec spec = small_moe("mixtral-8x7b", 16, 96);
  const Workload w{.micro_batch = 2, .seq_len = 8, .flash_attention = true};
  const std::vector<Op> ops = forward_ops(spec, w);
  const std::vector<std::string> all = names(ops);
  const auto mlp = std::find(all.begin(), all.end(), "layers.0.mlp_norm");
  ASSERT_NE(mlp, all.end());
  EXPECT_EQ(
      std::vector<std::string>(mlp, mlp + 5),
      (std::vector<std::string>{"layers.0.mlp_norm", "layers.0.mlp.router", "layers.0.mlp.route",
                                "layers.0.mlp.experts", "layers.0.mlp.residual"}));
  const std::int64_t t = w.tokens(), h = 64, I = 96, E = 4, k = 2;
  const Op& router = find_op(ops, "layers.0.mlp.router");
  const auto& g = std::get<GemmShape>(router.shape);
  EXPECT_EQ(g.m, t);
  EXPECT_EQ(g.n, E);
  EXPECT_EQ(g.k, h);
  const Op& experts = find_op(ops, "layers.0.mlp.experts");
  EXPECT_EQ(experts.kind, OpKind::kMoeExperts);
  EXPECT_EQ(experts.inputs, (std::vector<int>{index_of(ops, "layers.0.mlp_norm"),
                                              index_of(ops, "layers.0.mlp.route")}));
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  ASSERT_EQ(experts.param_ids.size(), 2u);
  EXPECT_EQ(params[experts.param_ids[0]].name, "model.layers.0.mlp.experts.gate_up_proj");
  EXPECT_EQ(params[experts.param_ids[1]].shape, (std::vector<std::int64_t>{E, h, I}));
  // k of E experts per token: 2·(t·k)·h·3I forward, twice that backward.
  EXPECT_EQ(matmul_fwd_flops(experts), 2 * t * k * h * 3 * I);
  EXPECT_EQ(matmul_bwd_flops(experts), 4 * t * k * h * 3 * I);
  EXPECT_GT(experts.cost.fwd_flops, matmul_fwd_flops(experts));  // + the glue
  // Saved: gathered rows and the down output (S·h each), gate_up (2S·I), silu out and the
  // product (S·I each) in bf16, then the fp32 weights, two int64 permutations and the mask.
  const std::int64_t S = t * k;
  EXPECT_EQ(experts.saved_bytes(), 2 * (2 * S * h + 4 * S * I) + 4 * S + 16 * S + S);
  // The 6·N rule counts k/E of the experts' tensors (the active parameters).
  std::int64_t expert_params = 0;
  for (const ParamTensor& p : params) {
    if (p.shape.size() == 3) expert_params += p.numel;
  }
  EXPECT_EQ(expert_params, spec.num_layers * E * 3 * h * I);
  std::int64_t dense = 0;
  for (const ParamTensor& p : params) {
    if (p.shape.size() == 2 && p.layer != kEmbeddingLayer) dense += p.numel;
  }
  EXPECT_EQ(matmul_parameter_count(spec), dense + expert_params / E * k);
}

// Qwen3-MoE (modeling_qwen3_moe.py): Qwen3's attention with q/k norms and head_dim apart from
// hidden / heads, then the same routed block as Mixtral's with the experts registered before the
// gate (the order DeepSpeed buckets and reduces their gradients in).
TEST(OpGraph, Qwen3MoeHasQkNormsAndRegistersItsExpertsFirst) {
  const ModelSpec spec = small_moe("qwen3-30b-a3b", 32, 48);
  const Workload w{.micro_batch = 2, .seq_len = 8, .flash_attention = true};
  const std::vector<Op> ops = forward_ops(spec, w);
  EXPECT_EQ(find_op(ops, "layers.1.attn.q_norm").kind, OpKind::kNorm);
  const auto& q = std::get<GemmShape>(find_op(ops, "layers.0.attn.q_proj").shape);
  EXPECT_EQ(q.n, 4 * 32);  // heads x head_dim, not hidden
  const Op& experts = find_op(ops, "layers.1.mlp.experts");
  const Op& router = find_op(ops, "layers.1.mlp.router");
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  ASSERT_EQ(experts.param_ids.size(), 2u);
  ASSERT_EQ(router.param_ids.size(), 1u);
  EXPECT_EQ(params[experts.param_ids[0]].name, "model.layers.1.mlp.experts.gate_up_proj");
  EXPECT_EQ(params[router.param_ids[0]].name, "model.layers.1.mlp.gate.weight");
  EXPECT_LT(experts.param_ids[1], router.param_ids[0]);
  EXPECT_EQ(params[experts.param_ids[0]].shape, (std::vector<std::int64_t>{4, 2 * 48, 64}));
}

// Qwen2-MoE (modeling_qwen2_moe.py Qwen2MoeSparseMoeBlock.forward): the shared expert's MLP
// first, then the router and the routed experts, then the shared expert's sigmoid gate and the
// sum, which is the block's output; its parameters registered gate, experts, shared expert,
// shared_expert_gate.
TEST(OpGraph, Qwen2MoeRunsItsSharedExpertBesideTheRoutedOnes) {
  ModelSpec spec = small_moe("qwen1.5-moe-a2.7b", 16, 48);
  spec.moe.shared_expert_size = 80;
  spec.moe.shared_expert_gate = true;
  const Workload w{.micro_batch = 2, .seq_len = 8, .flash_attention = true};
  const std::vector<Op> ops = forward_ops(spec, w);
  const std::vector<std::string> all = names(ops);
  const auto first = std::find(all.begin(), all.end(), "layers.0.mlp_norm");
  ASSERT_NE(first, all.end());
  EXPECT_EQ(std::vector<std::string>(first, first + 11),
            (std::vector<std::string>{
                "layers.0.mlp_norm", "layers.0.mlp.shared.gate", "layers.0.mlp.shared.up",
                "layers.0.mlp.shared.act", "layers.0.mlp.shared.down", "layers.0.mlp.router",
                "layers.0.mlp.route", "layers.0.mlp.experts", "layers.0.mlp.shared_gate",
                "layers.0.mlp.combine", "layers.0.mlp.residual"}));
  const Op& combine = find_op(ops, "layers.0.mlp.combine");
  EXPECT_EQ(combine.kind, OpKind::kMoeCombine);
  EXPECT_EQ(combine.inputs, (std::vector<int>{index_of(ops, "layers.0.mlp.experts"),
                                              index_of(ops, "layers.0.mlp.shared.down"),
                                              index_of(ops, "layers.0.mlp.shared_gate")}));
  const std::int64_t t = w.tokens(), h = 64;
  EXPECT_EQ(combine.saved_bytes(), 2 * (t + t * h));
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, "layers.0.mlp.shared.gate").shape).n, 80);
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, "layers.0.mlp.shared_gate").shape).n, 1);
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  std::vector<std::string> mlp;
  for (const ParamTensor& p : params) {
    if (p.name.starts_with("model.layers.0.mlp.")) mlp.push_back(p.name);
  }
  EXPECT_EQ(mlp, (std::vector<std::string>{"model.layers.0.mlp.gate.weight",
                                           "model.layers.0.mlp.experts.gate_up_proj",
                                           "model.layers.0.mlp.experts.down_proj",
                                           "model.layers.0.mlp.shared_expert.gate_proj.weight",
                                           "model.layers.0.mlp.shared_expert.up_proj.weight",
                                           "model.layers.0.mlp.shared_expert.down_proj.weight",
                                           "model.layers.0.mlp.shared_expert_gate.weight"}));
}

// Phi-3 (modeling_phi3.py): one qkv_proj whose q and k slices are rotated (here half of each
// head) and whose v slice the core reads, one gate_up_proj whose halves the SwiGLU multiplies;
// the same parameters and GEMM FLOPs as the unfused Llama layout of the same sizes.
TEST(OpGraph, Phi3FusesQkvAndGateUpIntoOneLinearEach) {
  ModelSpec spec = tiny("phi-4");
  spec.partial_rotary_factor = 0.5;
  const Workload w{.micro_batch = 2, .seq_len = 8, .flash_attention = true};
  const std::vector<Op> ops = forward_ops(spec, w);
  const std::vector<std::string> all = names(ops);
  EXPECT_EQ(std::vector<std::string>(all.begin() + 1, all.begin() + 12),
            (std::vector<std::string>{
                "layers.0.attn_norm", "layers.0.attn.qkv", "layers.0.attn.rotary",
                "layers.0.attn.core", "layers.0.attn.out_proj", "layers.0.attn.residual",
                "layers.0.mlp_norm", "layers.0.mlp.gate_up", "layers.0.mlp.act",
                "layers.0.mlp.down", "layers.0.mlp.residual"}));
  EXPECT_EQ(all.size(), 1u + 2u * 11u + 3u);
  const std::int64_t t = w.tokens();
  const Op& qkv = find_op(ops, "layers.0.attn.qkv");
  EXPECT_EQ(std::get<GemmShape>(qkv.shape).n, spec.q_dim() + 2 * spec.kv_dim());
  const Op& rotary = find_op(ops, "layers.0.attn.rotary");
  EXPECT_EQ(std::get<ElementwiseShape>(rotary.shape).numel, t * (4 + 2) * 8);  // 8 of 16 dims
  const int qkv_index = index_of(ops, "layers.0.attn.qkv");
  EXPECT_EQ(rotary.inputs, std::vector<int>{qkv_index});
  EXPECT_EQ(find_op(ops, "layers.0.attn.core").inputs,
            (std::vector<int>{index_of(ops, "layers.0.attn.rotary"), qkv_index}));
  const Op& gate_up = find_op(ops, "layers.0.mlp.gate_up");
  EXPECT_EQ(std::get<GemmShape>(gate_up.shape).n, 2 * spec.intermediate_size);
  EXPECT_EQ(find_op(ops, "layers.0.mlp.act").inputs,
            std::vector<int>{index_of(ops, "layers.0.mlp.gate_up")});
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  ASSERT_EQ(qkv.param_ids.size(), 1u);
  EXPECT_EQ(params[qkv.param_ids[0]].name, "model.layers.0.self_attn.qkv_proj.weight");

  const ModelSpec llama = tiny_llama();
  EXPECT_EQ(parameter_count(spec), parameter_count(llama));
  auto gemm_flops = [&w](const ModelSpec& m) {
    std::int64_t f = 0;
    for (const Op& op : forward_ops(m, w)) {
      if (op.kind == OpKind::kLinear) f += op.cost.fwd_flops + op.cost.bwd_flops;
    }
    return f;
  };
  EXPECT_EQ(gemm_flops(spec), gemm_flops(llama));
}

// Gemma 2 (modeling_gemma2.py): a norm on each sublayer's output before its residual add, the
// attention scores and the logits soft-capped (tanh keeps its output: one more scores-sized and
// one more logits-sized tensor), the embedding scaled; Gemma 3 (modeling_gemma3.py) norms each
// head's query and key after all three projections.
TEST(OpGraph, GemmaNormsEachSublayersOutputAndSoftCaps) {
  ModelSpec spec = tiny("gemma-2-9b");
  spec.head_dim = 32;
  const Workload w{.micro_batch = 2, .seq_len = 8};
  const std::vector<Op> ops = forward_ops(spec, w);
  const std::vector<std::string> all = names(ops);
  EXPECT_EQ(std::vector<std::string>(all.begin() + 7, all.begin() + 16),
            (std::vector<std::string>{"layers.0.attn.out_proj", "layers.0.attn.post_norm",
                                      "layers.0.attn.residual", "layers.0.mlp_norm",
                                      "layers.0.mlp.gate", "layers.0.mlp.up", "layers.0.mlp.act",
                                      "layers.0.mlp.down", "layers.0.mlp.post_norm"}));
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  auto module_of = [&](std::string_view op) {
    return params[find_op(ops, op).param_ids.at(0)].module;
  };
  EXPECT_EQ(module_of("layers.0.attn.post_norm"), "model.layers.0.post_attention_layernorm");
  EXPECT_EQ(module_of("layers.0.mlp_norm"), "model.layers.0.pre_feedforward_layernorm");
  EXPECT_EQ(module_of("layers.0.mlp.post_norm"), "model.layers.0.post_feedforward_layernorm");
  EXPECT_TRUE(std::get<EmbeddingShape>(find_op(ops, "embed").shape).scaled);
  EXPECT_EQ(std::get<AttentionShape>(find_op(ops, "layers.0.attn.core").shape).softcap, 50.0);
  EXPECT_EQ(std::get<CrossEntropyShape>(find_op(ops, "loss").shape).softcap, 30.0);

  // Without the caps: one scores-sized and one logits-sized tensor fewer, and less work.
  ModelSpec uncapped = spec;
  uncapped.attn_softcap = 0;
  uncapped.logit_softcap = 0;
  const std::vector<Op> plain = forward_ops(uncapped, w);
  const std::int64_t scores = 2 * spec.num_heads * 8 * 8, logits = w.tokens() * spec.vocab_size;
  EXPECT_EQ(find_op(ops, "layers.0.attn.core").saved_bytes() -
                find_op(plain, "layers.0.attn.core").saved_bytes(),
            2 * scores);
  EXPECT_EQ(find_op(ops, "loss").saved_bytes() - find_op(plain, "loss").saved_bytes(), 2 * logits);
  EXPECT_GT(find_op(ops, "loss").cost.fwd_hbm_bytes, find_op(plain, "loss").cost.fwd_hbm_bytes);

  ModelSpec g3 = tiny("gemma-3-1b");
  g3.head_dim = 32;
  const std::vector<std::string> g3_names = names(forward_ops(g3, w));
  EXPECT_EQ(std::vector<std::string>(g3_names.begin() + 2, g3_names.begin() + 8),
            (std::vector<std::string>{"layers.0.attn.q_proj", "layers.0.attn.k_proj",
                                      "layers.0.attn.v_proj", "layers.0.attn.q_norm",
                                      "layers.0.attn.k_norm", "layers.0.attn.rotary"}));
}

// OPT (modeling_opt.py): separate q/k/v projections read by the core with nothing to rotate,
// learned positions of max_position_embeddings + 2 rows added in the embedding, the decoder's
// final LayerNorm registered before its layers and k_proj before q_proj (parameter order).
TEST(OpGraph, OptHasLearnedOffsetPositionsAndNoRotary) {
  ModelSpec spec = zoo("opt-1.3b");
  spec.vocab_size = 128;
  spec.hidden_size = 64;
  spec.num_layers = 2;
  spec.num_heads = 4;
  spec.num_kv_heads = 4;
  spec.head_dim = 16;
  spec.intermediate_size = 160;
  spec.max_position_embeddings = 128;
  const Workload w{.micro_batch = 2, .seq_len = 8};
  const std::vector<Op> ops = forward_ops(spec, w);
  for (const Op& op : ops) EXPECT_NE(op.kind, OpKind::kRotary) << op.name;
  EXPECT_EQ(find_op(ops, "layers.0.attn.core").inputs,
            (std::vector<int>{index_of(ops, "layers.0.attn.q_proj"),
                              index_of(ops, "layers.0.attn.k_proj"),
                              index_of(ops, "layers.0.attn.v_proj")}));
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  EXPECT_EQ(params[1].name, "model.decoder.embed_positions.weight");
  EXPECT_EQ(params[1].shape, (std::vector<std::int64_t>{130, 64}));
  EXPECT_EQ(params[2].name, "model.decoder.final_layer_norm.weight");
  EXPECT_EQ(params[4].name, "model.decoder.layers.0.self_attn.k_proj.weight");
  EXPECT_EQ(find_op(ops, "embed").param_ids, (std::vector<int>{0, 1}));
  EXPECT_EQ(params[find_op(ops, "final_norm").param_ids.at(0)].module,
            "model.decoder.final_layer_norm");
  EXPECT_TRUE(params.back().tied);
  EXPECT_EQ(find_op(ops, "layers.0.mlp.act").kind, OpKind::kActivation);
}

// GPT-NeoX (modeling_gpt_neox.py GPTNeoXLayer): the MLP's norm reads the layer's input, not the
// attention's sum, and keeps nothing of its own (the attention's norm keeps that input); both
// branches are added to the input after both ran; a quarter of each head is rotated.
TEST(OpGraph, GptNeoxRunsItsAttentionAndMlpInParallel) {
  ModelSpec spec = tiny("pythia-6.9b");
  spec.num_kv_heads = spec.num_heads;  // one query_key_value over every head
  const Workload w{.micro_batch = 2, .seq_len = 8};
  const std::vector<Op> ops = forward_ops(spec, w);
  const int embed = index_of(ops, "embed");
  EXPECT_EQ(find_op(ops, "layers.0.attn_norm").inputs, std::vector<int>{embed});
  EXPECT_EQ(find_op(ops, "layers.0.mlp_norm").inputs, std::vector<int>{embed});
  EXPECT_TRUE(find_op(ops, "layers.0.mlp_norm").saved.empty());
  EXPECT_EQ(find_op(ops, "layers.0.attn.residual").inputs,
            (std::vector<int>{embed, index_of(ops, "layers.0.attn.out_proj")}));
  EXPECT_EQ(find_op(ops, "layers.0.mlp.residual").inputs,
            (std::vector<int>{index_of(ops, "layers.0.attn.residual"),
                              index_of(ops, "layers.0.mlp.down")}));
  EXPECT_LT(index_of(ops, "layers.0.mlp.down"), index_of(ops, "layers.0.attn.residual"));
  EXPECT_EQ(std::get<ElementwiseShape>(find_op(ops, "layers.0.attn.rotary").shape).numel,
            w.tokens() * (4 + 4) * 4);  // 4 of each head's 16 dimensions
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  EXPECT_EQ(params[find_op(ops, "layers.0.attn.qkv").param_ids.at(0)].name,
            "gpt_neox.layers.0.attention.query_key_value.weight");
}

// BERT (modeling_bert.py): the embedding's three tables, then its LayerNorm and dropout; every
// layer's norms after its adds, their outputs the residual stream; the attention unmasked; the
// masked-LM head's decoder tied to the word table with cls.predictions.bias as its bias.
TEST(OpGraph, BertIsAnUnmaskedEncoderWithItsNormsAfterTheAdds) {
  ModelSpec spec = tiny("bert-base-uncased");
  spec.num_kv_heads = spec.num_heads;
  const Workload w{.micro_batch = 2, .seq_len = 8};
  const std::vector<Op> ops = forward_ops(spec, w);
  std::vector<std::string> expected = {"embed", "embed_norm"};
  for (int i = 0; i < 2; ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    for (const char* n : {"attn.q_proj", "attn.k_proj", "attn.v_proj", "attn.core", "attn.out_proj",
                          "attn.residual", "attn_norm", "mlp.up", "mlp.act", "mlp.down",
                          "mlp.residual", "mlp_norm"}) {
      expected.push_back(p + n);
    }
  }
  for (const char* n : {"head.dense", "head.act", "head.norm", "lm_head", "loss"}) {
    expected.push_back(n);
  }
  EXPECT_EQ(names(ops), expected);
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  const Op& embed = find_op(ops, "embed");
  ASSERT_EQ(embed.param_ids.size(), 3u);
  EXPECT_EQ(params[embed.param_ids[1]].name, "bert.embeddings.token_type_embeddings.weight");
  EXPECT_TRUE(std::get<EmbeddingShape>(embed.shape).token_types);
  EXPECT_EQ(std::get<NormShape>(find_op(ops, "embed_norm").shape).dropout, 0.1);
  EXPECT_FALSE(std::get<AttentionShape>(find_op(ops, "layers.0.attn.core").shape).causal);
  const int norm0 = index_of(ops, "layers.0.attn_norm");
  EXPECT_EQ(find_op(ops, "layers.0.attn_norm").inputs,
            std::vector<int>{index_of(ops, "layers.0.attn.residual")});
  EXPECT_EQ(find_op(ops, "layers.0.mlp.up").inputs, std::vector<int>{norm0});
  EXPECT_EQ(find_op(ops, "layers.0.mlp.residual").inputs,
            (std::vector<int>{norm0, index_of(ops, "layers.0.mlp.down")}));
  EXPECT_EQ(find_op(ops, "layers.1.attn.q_proj").inputs,
            std::vector<int>{index_of(ops, "layers.0.mlp_norm")});
  const Op& head = find_op(ops, "lm_head");
  ASSERT_EQ(head.param_ids.size(), 2u);
  EXPECT_EQ(params[head.param_ids[0]].tied_to, embed.param_ids[0]);
  EXPECT_EQ(params[params[head.param_ids[1]].tied_to].name, "cls.predictions.bias");
  EXPECT_EQ(std::get<CrossEntropyShape>(find_op(ops, "loss").shape).vocab, spec.vocab_size);
  // Eager attention keeps BERT's softmax in the activations' dtype, as GPT-2's.
  const Op& core = find_op(ops, "layers.0.attn.core");
  for (const SavedTensor& t : core.saved) EXPECT_NE(t.what, "softmax_out (fp32)");
}

// BERT's question-answering head: qa_outputs over every token, the loss over each sequence's
// start and end logits; the classification head: the pooler on each sequence's first token.
TEST(OpGraph, BertHeadsEndInTheirOwnLosses) {
  ModelSpec spec = tiny("bert-base-uncased");
  spec.num_kv_heads = spec.num_heads;
  const Workload w{.micro_batch = 3, .seq_len = 8};
  spec.head = HeadKind::kQuestionAnswering;
  std::vector<Op> ops = forward_ops(spec, w);
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, "head").shape).n, 2);
  const auto qa = std::get<CrossEntropyShape>(find_op(ops, "loss").shape);
  EXPECT_EQ(qa.tokens, 3 * 2);
  EXPECT_EQ(qa.vocab, 8);
  // The training loop holds the head's logits, 2 a token, not a vocabulary's.
  EXPECT_EQ(activation_summary(spec, w).logits_bytes, w.act_bytes * w.tokens() * 2);
  EXPECT_EQ(parameter_count(spec) - parameter_tensors(spec).back().numel -
                parameter_tensors(spec).rbegin()[1].numel,
            layer_parameter_count(parameter_tensors(spec), kEmbeddingLayer) +
                2 * layer_parameter_count(parameter_tensors(spec), 0));
  spec.head = HeadKind::kSequenceClassification;
  spec.num_labels = 3;
  ops = forward_ops(spec, w);
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, "pooler").shape).m, 3);
  const auto cls = std::get<CrossEntropyShape>(find_op(ops, "loss").shape);
  EXPECT_EQ(cls.tokens, 3);
  EXPECT_EQ(cls.vocab, 3);
  EXPECT_EQ(parameter_tensors(spec).rbegin()[2].name, "bert.pooler.dense.bias");
}

// RoBERTa (modeling_roberta.py): BERT's ops under roberta.* and lm_head.*; its classification
// head's dense reads the first tokens through a dropout, so it keeps b x h, not the last layer's
// t x h as BERT's pooler does; the position table holds the padding offset's rows too.
TEST(OpGraph, RobertaIsBertUnderItsOwnNames) {
  ModelSpec spec = tiny("roberta-base");
  spec.num_kv_heads = spec.num_heads;
  ASSERT_TRUE(validate(spec).is_ok()) << validate(spec).message();
  const Workload w{.micro_batch = 3, .seq_len = 8};
  ModelSpec bert = spec;
  bert.model_type = ModelType::kBert;
  bert.position_offset = 0;
  std::vector<Op> ops = forward_ops(spec, w);
  EXPECT_EQ(names(ops), names(forward_ops(bert, w)));
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  EXPECT_EQ(params[find_op(ops, "layers.1.attn.q_proj").param_ids.at(0)].name,
            "roberta.encoder.layer.1.attention.self.query.weight");
  EXPECT_EQ(params[find_op(ops, "head.norm").param_ids.at(0)].name, "lm_head.layer_norm.weight");
  EXPECT_EQ(params[params[find_op(ops, "lm_head").param_ids.at(1)].tied_to].name, "lm_head.bias");
  EXPECT_EQ(params[4].name, "roberta.embeddings.position_embeddings.weight");
  EXPECT_EQ(params[4].shape.at(0), spec.max_position_embeddings + 2);
  EXPECT_EQ(parameter_count(spec), parameter_count(bert) + 2 * spec.hidden_size);
  spec.head = bert.head = HeadKind::kSequenceClassification;
  ops = forward_ops(spec, w);
  EXPECT_EQ(parameter_tensors(spec).size(), parameter_tensors(bert).size());
  EXPECT_EQ(parameter_tensors(spec).rbegin()[1].name, "classifier.out_proj.weight");
  const std::int64_t h = spec.hidden_size;
  EXPECT_EQ(find_op(ops, "pooler").saved_bytes(), w.act_bytes * 3 * h);
  EXPECT_EQ(find_op(forward_ops(bert, w), "pooler").saved_bytes(), w.act_bytes * 3 * 8 * h);
}

// T5 (modeling_t5.py): the encoder over seq_len tokens, then the decoder over target_len, each
// decoder layer's cross-attention reading the encoder's output (its keys and values the
// encoder's tokens); the relative-position bias read by each stack's first core.
TEST(OpGraph, T5DecodesTheTargetOverTheEncodersOutput) {
  const ModelSpec spec = zoo("t5-base");
  const Workload w{.micro_batch = 2, .seq_len = 16, .target_len = 8};
  const std::vector<Op> ops = forward_ops(spec, w);
  const int L = static_cast<int>(spec.num_layers);
  const int encoder_out = index_of(ops, "encoder.final_norm");
  EXPECT_EQ(std::get<NormShape>(ops[encoder_out].shape).rows, 2 * 16);
  const std::string d = "layers." + std::to_string(L) + ".";
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, d + "attn.q_proj").shape).m, 2 * 8);
  EXPECT_EQ(find_op(ops, d + "cross.k_proj").inputs, std::vector<int>{encoder_out});
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, d + "cross.k_proj").shape).m, 2 * 16);
  const auto cross = std::get<AttentionShape>(find_op(ops, d + "cross.core").shape);
  EXPECT_EQ(cross.seq, 8);
  EXPECT_EQ(cross.keys(), 16);
  EXPECT_FALSE(cross.causal);
  EXPECT_TRUE(std::get<AttentionShape>(find_op(ops, d + "attn.core").shape).causal);
  EXPECT_FALSE(std::get<AttentionShape>(find_op(ops, "layers.0.attn.core").shape).causal);
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  EXPECT_EQ(params[find_op(ops, "layers.0.attn.core").param_ids.at(0)].name,
            "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
  EXPECT_EQ(params[find_op(ops, d + "attn.core").param_ids.at(0)].name,
            "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
  EXPECT_TRUE(find_op(ops, "layers.1.attn.core").param_ids.empty());
  // The one encoder output is kept once, by the first cross-attention's k projection.
  EXPECT_EQ(find_op(ops, d + "cross.k_proj").saved_bytes(), 2 * 16 * spec.hidden_size * 2);
  EXPECT_EQ(find_op(ops, "layers." + std::to_string(L + 1) + ".cross.k_proj").saved_bytes(), 0);
  EXPECT_EQ(std::get<CrossEntropyShape>(find_op(ops, "loss").shape).tokens, 2 * 8);
  EXPECT_EQ(ops.back().layer, total_layers(spec));
  // Every parameter is read, the shared table by both embeddings and the head.
  EXPECT_EQ(gradient_ready_order(spec).size(), params.size() - 3);
}

// Blenderbot (modeling_blenderbot.py): each stack's scaled embedding plus its learned positions,
// pre-LN layers with the decoder's encoder_attn over the encoder's output, the stacks' final
// LayerNorms without dropout.
TEST(OpGraph, BlenderbotsStacksEmbedTheirPositionsAndNormLast) {
  ModelSpec spec = tiny("bert-base-uncased");
  spec.model_type = ModelType::kBlenderbot;
  spec.num_kv_heads = spec.num_heads;
  spec.post_norm = false;
  spec.type_vocab_size = 0;
  spec.head = HeadKind::kCausalLm;
  spec.num_decoder_layers = 3;
  spec.scaled_embedding = true;
  spec.dropout = {.embd = 0.1, .attn = 0, .resid = 0.1, .act = 0};
  ASSERT_TRUE(validate(spec).is_ok()) << validate(spec).message();
  const Workload w{.micro_batch = 2, .seq_len = 16, .target_len = 8};
  const std::vector<Op> ops = forward_ops(spec, w);
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  const Op& embed = find_op(ops, "decoder.embed");
  ASSERT_EQ(embed.param_ids.size(), 2u);
  EXPECT_EQ(params[embed.param_ids[1]].name, "model.decoder.embed_positions.weight");
  EXPECT_TRUE(std::get<EmbeddingShape>(embed.shape).scaled);
  EXPECT_EQ(std::get<EmbeddingShape>(embed.shape).tokens, 2 * 8);
  EXPECT_EQ(std::get<NormShape>(find_op(ops, "encoder.final_norm").shape).dropout, 0);
  EXPECT_EQ(find_op(ops, "layers.2.cross.v_proj").inputs,
            std::vector<int>{index_of(ops, "encoder.final_norm")});
  EXPECT_EQ(params[find_op(ops, "layers.2.cross_norm").param_ids.at(0)].name,
            "model.decoder.layers.0.encoder_attn_layer_norm.weight");
  EXPECT_EQ(ops.back().layer, 5);
}

// BLOOM (modeling_bloom.py): the word embedding normalized, GPT-NeoX's fused query_key_value
// without a rotary op (ALiBi enters the scores), an eager core with its fp32 softmax even when
// the workload asks for flash attention (BloomAttention has no SDPA path).
TEST(OpGraph, BloomNormsItsEmbeddingAndAttendsEagerly) {
  const ModelSpec spec = zoo("bloom-560m");
  const Workload w{.micro_batch = 2, .seq_len = 16, .flash_attention = true};
  const std::vector<Op> ops = forward_ops(spec, w);
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  EXPECT_EQ(find_op(ops, "embed_norm").inputs, std::vector<int>{index_of(ops, "embed")});
  EXPECT_EQ(params[find_op(ops, "embed_norm").param_ids.at(0)].name,
            "transformer.word_embeddings_layernorm.weight");
  EXPECT_EQ(find_op(ops, "layers.0.attn_norm").inputs,
            std::vector<int>{index_of(ops, "embed_norm")});
  EXPECT_EQ(params[find_op(ops, "layers.3.attn.qkv").param_ids.at(0)].name,
            "transformer.h.3.self_attention.query_key_value.weight");
  for (const Op& op : ops) EXPECT_EQ(op.name.find("rotary"), std::string::npos) << op.name;
  const Op& core = find_op(ops, "layers.0.attn.core");
  EXPECT_EQ(core.kind, OpKind::kAttention);
  bool fp32_softmax = false;
  for (const SavedTensor& t : core.saved)
    fp32_softmax = fp32_softmax || t.what == "softmax_out (fp32)";
  EXPECT_TRUE(fp32_softmax);
  EXPECT_EQ(params[find_op(ops, "final_norm").param_ids.at(0)].name, "transformer.ln_f.weight");
}

// Falcon-7B (modeling_falcon.py): one norm a layer feeds both query_key_value and the MLP, which
// keeps nothing more of it; the fused projection carries one key/value head; both branches add
// to the layer's input.
TEST(OpGraph, FalconFeedsAttentionAndMlpFromOneNorm) {
  const ModelSpec spec = zoo("falcon-7b");
  const Workload w{.micro_batch = 2, .seq_len = 16};
  const std::vector<Op> ops = forward_ops(spec, w);
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  const int norm = index_of(ops, "layers.0.attn_norm");
  EXPECT_EQ(find_op(ops, "layers.0.attn.qkv").inputs, std::vector<int>{norm});
  EXPECT_EQ(find_op(ops, "layers.0.mlp.up").inputs, std::vector<int>{norm});
  EXPECT_EQ(find_op(ops, "layers.0.mlp.up").saved_bytes(), 0);
  EXPECT_EQ(find_op(ops, "layers.0.attn.qkv").saved_bytes(),
            w.act_bytes * 2 * 16 * spec.hidden_size);
  for (const Op& op : ops) EXPECT_NE(op.name, "layers.0.mlp_norm");
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, "layers.0.attn.qkv").shape).n,
            spec.hidden_size + 2 * spec.head_dim);
  EXPECT_EQ(params[find_op(ops, "layers.0.attn_norm").param_ids.at(0)].name,
            "transformer.h.0.input_layernorm.weight");
  EXPECT_EQ(find_op(ops, "layers.1.attn_norm").inputs,
            std::vector<int>{index_of(ops, "layers.0.mlp.residual")});
}

// DeBERTa-v2-xlarge-mnli (modeling_deberta_v2.py): the word table alone, the relative table
// normalized once before the layers, each layer's c2p and p2c GEMMs against it (keeping the
// projected table repeated per sequence, p2c the keys too) feeding the eager core, the ConvLayer
// after layer 0 reading the layer's input and adding onto its output, ContextPooler and the
// classifier.
TEST(OpGraph, DebertaV2DisentangledAttentionAndConvLayer) {
  const ModelSpec spec = zoo("deberta-v2-xlarge-mnli");
  const Workload w{.micro_batch = 4, .seq_len = 32, .flash_attention = true};
  const std::int64_t t = 128, e = w.act_bytes, h = 1536, rows = 512;
  const std::vector<Op> ops = forward_ops(spec, w);
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  EXPECT_EQ(find_op(ops, "embed").param_ids.size(), 1u);
  const int table = index_of(ops, "rel_norm");
  EXPECT_EQ(std::get<NormShape>(find_op(ops, "rel_norm").shape).rows, rows);
  const Op& c2p = find_op(ops, "layers.3.attn.c2p");
  EXPECT_EQ(c2p.inputs, (std::vector<int>{index_of(ops, "layers.3.attn.q_proj"),
                                          index_of(ops, "layers.3.attn.pos_k")}));
  EXPECT_EQ(find_op(ops, "layers.3.attn.pos_k").inputs, std::vector<int>{table});
  EXPECT_EQ(std::get<GemmShape>(c2p.shape).m, 4 * 24 * 32);
  EXPECT_EQ(std::get<GemmShape>(c2p.shape).n, rows);
  EXPECT_EQ(c2p.saved_bytes(), e * 4 * rows * h);
  EXPECT_EQ(find_op(ops, "layers.3.attn.p2c").saved_bytes(), e * (t * h + 4 * rows * h));
  const Op& core = find_op(ops, "layers.3.attn.core");
  EXPECT_EQ(core.kind, OpKind::kAttention);  // no SDPA path, whatever the workload asks
  EXPECT_EQ(core.inputs.size(), 5u);
  const Op& conv = find_op(ops, "layers.0.conv");
  EXPECT_EQ(conv.inputs, std::vector<int>{index_of(ops, "embed_norm")});
  EXPECT_EQ(std::get<GemmShape>(conv.shape).k, 3 * h);
  EXPECT_EQ(params[conv.param_ids.at(0)].name, "deberta.encoder.conv.conv.bias");
  EXPECT_EQ(
      find_op(ops, "layers.0.conv.residual").inputs,
      (std::vector<int>{index_of(ops, "layers.0.mlp_norm"), index_of(ops, "layers.0.conv.act")}));
  EXPECT_EQ(find_op(ops, "layers.1.attn.q_proj").inputs,
            std::vector<int>{index_of(ops, "layers.0.conv_norm")});
  EXPECT_EQ(params[find_op(ops, "pooler").param_ids.at(0)].name, "pooler.dense.weight");
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, "head").shape).n, 3);
}

// DeepSeek-V2-Lite (modeling_deepseek_v2.py): latent attention (q_proj; kv_a_proj_with_mqa on
// the same input keeping nothing new, its latent normalized and expanded by kv_b_proj; a query
// and key of 192 per head, a value of 128), a dense first layer, then the router, the experts
// and the shared experts added without a gate. DeepSeek-V3's query goes through its low rank.
TEST(OpGraph, DeepSeekLatentAttentionDenseFirstLayerAndSharedExperts) {
  const ModelSpec spec = zoo("deepseek-v2-lite");
  const Workload w{.micro_batch = 2, .seq_len = 16, .flash_attention = true};
  const std::int64_t t = 32, e = w.act_bytes, heads = 16;
  const std::vector<Op> ops = forward_ops(spec, w);
  const int norm = index_of(ops, "layers.0.attn_norm");
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, "layers.0.attn.q_proj").shape).n, heads * 192);
  const Op& kv_a = find_op(ops, "layers.0.attn.kv_a");
  EXPECT_EQ(kv_a.inputs, std::vector<int>{norm});
  EXPECT_EQ(std::get<GemmShape>(kv_a.shape).n, 512 + 64);
  EXPECT_EQ(kv_a.saved_bytes(), 0);
  EXPECT_EQ(find_op(ops, "layers.0.attn.kv_a_norm").saved_bytes(), e * t * 576);
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, "layers.0.attn.kv_b").shape).n, heads * 256);
  const Op& core = find_op(ops, "layers.0.attn.core");
  EXPECT_EQ(core.kind, OpKind::kFlashAttention);
  const auto& a = std::get<AttentionShape>(core.shape);
  EXPECT_EQ(a.head_dim, 192);
  EXPECT_EQ(a.value_dim(), 128);
  EXPECT_EQ(core.inputs, (std::vector<int>{index_of(ops, "layers.0.attn.rotary"),
                                           index_of(ops, "layers.0.attn.kv_b")}));
  // q and k at every head, the whole kv_b output the values view, the fp32 log-sum-exp.
  EXPECT_EQ(core.saved_bytes(), e * t * heads * (192 + 192 + 256) + 4 * t * heads);
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, "layers.0.attn.out_proj").shape).k, heads * 128);
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, "layers.0.mlp.gate").shape).n, 10944);
  for (const Op& op : ops) EXPECT_NE(op.name, "layers.0.mlp.router");
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, "layers.1.mlp.shared.gate").shape).n, 2 * 1408);
  EXPECT_EQ(find_op(ops, "layers.1.mlp.router").saved_bytes(), 4 * t * spec.hidden_size);
  EXPECT_EQ(find_op(ops, "layers.1.mlp.combine").inputs,
            (std::vector<int>{index_of(ops, "layers.1.mlp.experts"),
                              index_of(ops, "layers.1.mlp.shared.down")}));
  EXPECT_EQ(find_op(ops, "layers.1.mlp.residual").inputs.at(1),
            index_of(ops, "layers.1.mlp.combine"));
  // Attention FLOPs: Q.K^T over 192 and P.V over 128 per head.
  EXPECT_EQ(matmul_fwd_flops(core), 2 * 2 * heads * (16 * 17 / 2) * (192 + 128));

  const std::vector<Op> v3 = forward_ops(zoo("deepseek-v3"), w);
  EXPECT_EQ(find_op(v3, "layers.0.attn.q_b").inputs,
            std::vector<int>{index_of(v3, "layers.0.attn.q_a_norm")});
  EXPECT_EQ(std::get<GemmShape>(find_op(v3, "layers.0.attn.q_a").shape).n, 1536);
  EXPECT_EQ(std::get<GemmShape>(find_op(v3, "layers.2.mlp.up").shape).n, 18432);
  EXPECT_EQ(std::get<GemmShape>(find_op(v3, "layers.3.mlp.shared.up").shape).n, 2048);
}

// Falcon-40B (the new decoder architecture): ln_attn feeds query_key_value, ln_mlp the MLP (its
// input the layer's, kept by ln_attn already), and the core keeps the keys and values copied out
// to every head.
TEST(OpGraph, Falcon40bCopiesItsKeyValueGroupsToEveryHead) {
  const ModelSpec spec = zoo("falcon-40b");
  const Workload w{.micro_batch = 1, .seq_len = 16, .flash_attention = true};
  const std::int64_t t = 16, e = w.act_bytes, q = spec.q_dim();
  const std::vector<Op> ops = forward_ops(spec, w);
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  EXPECT_EQ(params[find_op(ops, "layers.0.attn_norm").param_ids.at(0)].name,
            "transformer.h.0.ln_attn.weight");
  const Op& mlp_norm = find_op(ops, "layers.0.mlp_norm");
  EXPECT_EQ(params[mlp_norm.param_ids.at(0)].name, "transformer.h.0.ln_mlp.weight");
  EXPECT_EQ(mlp_norm.saved_bytes(), 0);
  EXPECT_EQ(find_op(ops, "layers.0.mlp.up").inputs,
            std::vector<int>{index_of(ops, "layers.0.mlp_norm")});
  EXPECT_EQ(std::get<GemmShape>(find_op(ops, "layers.0.attn.qkv").shape).n,
            q + 2 * 8 * spec.head_dim);
  const Op& core = find_op(ops, "layers.0.attn.core");
  EXPECT_EQ(std::get<AttentionShape>(core.shape).kv_heads, spec.num_heads);
  EXPECT_EQ(core.saved_bytes(), e * t * 3 * q + 4 * t * spec.num_heads);
}

// BART (modeling_bart.py): each stack's embedding sum normalized (layernorm_embedding, then its
// dropout), every norm after its sublayer's add, no final norm: the encoder's output is its last
// layer's final_layer_norm, the head reads the decoder's.
TEST(OpGraph, BartNormalizesAfterEachAddAndEndsAtItsLastLayer) {
  const ModelSpec spec = zoo("bart-base");
  const Workload w{.micro_batch = 2, .seq_len = 16, .target_len = 8};
  const std::vector<Op> ops = forward_ops(spec, w);
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  const std::int64_t h = spec.hidden_size;
  EXPECT_EQ(find_op(ops, "embed_norm").inputs, std::vector<int>{index_of(ops, "embed")});
  EXPECT_EQ(std::get<NormShape>(find_op(ops, "decoder.embed_norm").shape).dropout, 0.1);
  EXPECT_EQ(std::get<EmbeddingShape>(find_op(ops, "embed").shape).dropout, 0);
  EXPECT_EQ(params[find_op(ops, "decoder.embed_norm").param_ids.at(0)].name,
            "model.decoder.layernorm_embedding.weight");
  EXPECT_EQ(find_op(ops, "layers.0.attn.q_proj").inputs,
            std::vector<int>{index_of(ops, "embed_norm")});
  EXPECT_EQ(find_op(ops, "layers.0.attn_norm").inputs,
            std::vector<int>{index_of(ops, "layers.0.attn.residual")});
  EXPECT_EQ(find_op(ops, "layers.0.mlp.up").inputs,
            std::vector<int>{index_of(ops, "layers.0.attn_norm")});
  const int encoder_out = index_of(ops, "layers.5.mlp_norm");
  EXPECT_EQ(find_op(ops, "layers.6.cross.k_proj").inputs, std::vector<int>{encoder_out});
  EXPECT_EQ(find_op(ops, "layers.6.cross_norm").inputs,
            std::vector<int>{index_of(ops, "layers.6.cross.residual")});
  EXPECT_EQ(find_op(ops, "lm_head").inputs, std::vector<int>{index_of(ops, "layers.11.mlp_norm")});
  for (const Op& op : ops) EXPECT_EQ(op.name.find("final_norm"), std::string::npos) << op.name;
  EXPECT_EQ(find_op(ops, "layers.6.cross.k_proj").saved_bytes(), w.act_bytes * 2 * 16 * h);
  EXPECT_EQ(params[2].name, "model.encoder.embed_positions.weight");
  EXPECT_EQ(params[2].shape.at(0), spec.max_position_embeddings + 2);
  EXPECT_EQ(ops.back().layer, 12);
}

TEST(OpGraph, InputsNameEarlierOpsAndWireTheResidualStream) {
  for (const ModelSpec& spec : {zoo("tiny-gpt"), tiny_llama()}) {
    const std::vector<Op> ops = forward_ops(spec, {.micro_batch = 2, .seq_len = 8});
    for (std::size_t i = 0; i < ops.size(); ++i) {
      ASSERT_FALSE(ops[i].inputs.empty()) << ops[i].name;
      for (int in : ops[i].inputs) {
        EXPECT_LT(in, static_cast<int>(i)) << ops[i].name;
        EXPECT_GE(in, kTargetsInput) << ops[i].name;
      }
    }
    auto inputs = [&](std::string_view name) { return find_op(ops, name).inputs; };
    auto at = [&](std::string_view name) { return index_of(ops, name); };
    using V = std::vector<int>;
    EXPECT_EQ(inputs("embed"), V{kTokenIdsInput});
    // The residual stream: embed -> layer 0 -> layer 1 -> final_norm.
    int resid = at("embed");
    for (int layer = 0; layer < 2; ++layer) {
      const std::string p = "layers." + std::to_string(layer) + ".";
      EXPECT_EQ(inputs(p + "attn_norm"), V{resid}) << spec.name << " " << p;
      EXPECT_EQ(inputs(p + "attn.out_proj"), V{at(p + "attn.core")});
      EXPECT_EQ(inputs(p + "attn.residual"), (V{resid, at(p + "attn.out_proj")}));
      EXPECT_EQ(inputs(p + "mlp_norm"), V{at(p + "attn.residual")});
      EXPECT_EQ(inputs(p + "mlp.down"), V{at(p + "mlp.act")});
      EXPECT_EQ(inputs(p + "mlp.residual"), (V{at(p + "attn.residual"), at(p + "mlp.down")}));
      resid = at(p + "mlp.residual");
    }
    EXPECT_EQ(inputs("final_norm"), V{resid});
    EXPECT_EQ(inputs("lm_head"), V{at("final_norm")});
    EXPECT_EQ(inputs("loss"), (V{at("lm_head"), kTargetsInput}));
  }

  const std::vector<Op> gpt = forward_ops(zoo("tiny-gpt"), {.seq_len = 8});
  EXPECT_EQ(find_op(gpt, "layers.1.attn.qkv").inputs,
            std::vector<int>{index_of(gpt, "layers.1.attn_norm")});
  EXPECT_EQ(find_op(gpt, "layers.1.attn.core").inputs,
            std::vector<int>{index_of(gpt, "layers.1.attn.qkv")});
  EXPECT_EQ(find_op(gpt, "layers.1.mlp.act").inputs,
            std::vector<int>{index_of(gpt, "layers.1.mlp.up")});

  const std::vector<Op> llama = forward_ops(tiny_llama(), {.seq_len = 8});
  auto at = [&](std::string_view name) { return index_of(llama, name); };
  const int norm = at("layers.0.attn_norm");
  for (const char* proj :
       {"layers.0.attn.q_proj", "layers.0.attn.k_proj", "layers.0.attn.v_proj"}) {
    EXPECT_EQ(find_op(llama, proj).inputs, std::vector<int>{norm}) << proj;
  }
  EXPECT_EQ(find_op(llama, "layers.0.attn.rotary").inputs,
            (std::vector<int>{at("layers.0.attn.q_proj"), at("layers.0.attn.k_proj")}));
  EXPECT_EQ(find_op(llama, "layers.0.attn.core").inputs,
            (std::vector<int>{at("layers.0.attn.rotary"), at("layers.0.attn.v_proj")}));
  EXPECT_EQ(find_op(llama, "layers.0.mlp.gate").inputs, std::vector<int>{at("layers.0.mlp_norm")});
  EXPECT_EQ(find_op(llama, "layers.0.mlp.up").inputs, std::vector<int>{at("layers.0.mlp_norm")});
  EXPECT_EQ(find_op(llama, "layers.0.mlp.act").inputs,
            (std::vector<int>{at("layers.0.mlp.gate"), at("layers.0.mlp.up")}));
}

TEST(Workload, RejectsWhatCannotRun) {
  const ModelSpec gpt2 = zoo("gpt2");
  EXPECT_TRUE(validate_workload(gpt2, {.micro_batch = 4, .seq_len = 1024}).is_ok());
  const Status too_long = validate_workload(gpt2, {.seq_len = 1025});
  ASSERT_FALSE(too_long.is_ok());
  EXPECT_NE(too_long.message().find("seq_len = 1025"), std::string::npos);
  EXPECT_NE(too_long.message().find("1024"), std::string::npos);
  EXPECT_FALSE(validate_workload(gpt2, {.seq_len = 8, .act_bytes = 3}).is_ok());
  EXPECT_FALSE(validate_workload(gpt2, {.micro_batch = 0, .seq_len = 8}).is_ok());
  EXPECT_FALSE(validate_workload(gpt2, {.seq_len = 0}).is_ok());
  // Rotary models may run past their trained context.
  EXPECT_TRUE(validate_workload(zoo("llama2-7b"), {.seq_len = 16384}).is_ok());
}

TEST(Workload, TooLargeToCountInInt64IsAnErrorNotAWrappedCount) {
  // micro-batch 1e6 x seq 1e7 wrapped the FLOP counts (a negative MFU) before.
  const ModelSpec llama = zoo("llama2-7b");
  const Status s = validate_workload(llama, {.micro_batch = 1'000'000, .seq_len = 10'000'000});
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("micro-batch 1000000 x seq_len 10000000 is too large to count"),
            std::string::npos)
      << s.message();
  // Large but countable: every op's FLOPs stay positive.
  const Workload big{.micro_batch = 64, .seq_len = 131072};
  ASSERT_TRUE(validate_workload(llama, big).is_ok());
  for (const Op& op : forward_ops(llama, big)) {
    EXPECT_GE(op.cost.fwd_flops, 0) << op.name;
    EXPECT_GE(op.cost.bwd_flops, 0) << op.name;
  }
}

}  // namespace
}  // namespace zs::models
