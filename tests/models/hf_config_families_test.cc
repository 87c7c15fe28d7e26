// The config.json readers of the families with their own keys: the MoE families, Phi-3, the
// Gemma families, OPT, GPT-NeoX and BERT (models/hf_config.h).
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "models/hf_config.h"
#include "models/ops.h"
#include "models/parameters.h"
#include "models/zoo.h"
#include "tests/models/hf_config_test_util.h"

namespace zs::models {
namespace {

using hf_test::load_error;
using hf_test::write_temp;

// MixtralConfig: 8 experts, 2 per token, 8 KV heads, rms_norm_eps 1e-5, rope theta 1e6 and no
// sliding window by default; more experts per token than experts is an error; the router's
// jitter and auxiliary loss, which zerosim does not price, are warnings.
TEST(HfConfig, ReadsMixtralsExpertsWithItsDefaults) {
  const Result<ModelSpec> m = load_hf_config(write_temp(
      "mixtral_min.json",
      R"({"model_type": "mixtral", "vocab_size": 100, "hidden_size": 64, "num_hidden_layers": 2,
          "num_attention_heads": 8, "intermediate_size": 96})"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model_type, ModelType::kMixtral);
  EXPECT_EQ(m->moe.num_experts, 8);
  EXPECT_EQ(m->moe.experts_per_token, 2);
  EXPECT_EQ(m->num_kv_heads, 8);
  EXPECT_EQ(m->norm_eps, 1e-5);
  EXPECT_EQ(m->rope_theta, 1e6);
  EXPECT_EQ(m->sliding_window, 0);
  EXPECT_FALSE(m->bias.qkv || m->bias.attn_out || m->bias.mlp);

  const std::string msg = load_error(
      "mixtral_k.json",
      R"({"model_type": "mixtral", "vocab_size": 100, "hidden_size": 64, "num_hidden_layers": 2,
          "num_attention_heads": 8, "intermediate_size": 96, "num_local_experts": 4,
          "num_experts_per_tok": 5})");
  EXPECT_NE(msg.find(": num_experts_per_tok: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("5 is not allowed; expected at most num_local_experts = 4"), std::string::npos)
      << msg;

  Diagnostics warnings;
  const Result<ModelSpec> aux =
      load_hf_config(write_temp("mixtral_aux.json",
                                R"({"model_type": "mixtral", "vocab_size": 100, "hidden_size": 64,
                     "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 96,
                     "output_router_logits": true, "router_jitter_noise": 0.01})"),
                     &warnings);
  ASSERT_TRUE(aux.ok()) << aux.status().message();
  ASSERT_EQ(warnings.items().size(), 2u);
  EXPECT_EQ(warnings.items()[0].path, "router_jitter_noise");
  EXPECT_EQ(warnings.items()[1].path, "output_router_logits");
}

// Qwen3MoeConfig: 128 experts of moe_intermediate_size (768) each, 8 per token, no top-k
// renormalisation unless norm_topk_prob, 4 KV heads, q/k norms; intermediate_size is the dense
// MLP's and unused while every layer is sparse, so a mix of dense and sparse layers is refused.
TEST(HfConfig, ReadsQwen3MoesExpertsWithItsDefaults) {
  const Result<ModelSpec> m =
      load_hf_config(write_temp("qwen3_moe_min.json",
                                R"({"model_type": "qwen3_moe", "vocab_size": 100, "hidden_size": 64,
          "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 999})"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model_type, ModelType::kQwen3Moe);
  EXPECT_EQ(m->moe.num_experts, 128);
  EXPECT_EQ(m->moe.experts_per_token, 8);
  EXPECT_FALSE(m->moe.normalize_top_k);
  EXPECT_EQ(m->intermediate_size, 768);
  EXPECT_EQ(m->num_kv_heads, 4);
  EXPECT_TRUE(m->qk_norm);
  EXPECT_EQ(m->norm_eps, 1e-6);
  EXPECT_EQ(m->sliding_window, 0);

  const Result<ModelSpec> small =
      load_hf_config(write_temp("qwen3_moe_small.json",
                                R"({"model_type": "qwen3_moe", "vocab_size": 100, "hidden_size": 64,
          "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
          "moe_intermediate_size": 48, "num_experts": 4, "num_experts_per_tok": 2,
          "norm_topk_prob": true, "mlp_only_layers": []})"));
  ASSERT_TRUE(small.ok()) << small.status().message();
  EXPECT_EQ(small->intermediate_size, 48);
  EXPECT_EQ(small->moe.num_experts, 4);
  EXPECT_TRUE(small->moe.normalize_top_k);

  const std::string base =
      R"({"model_type": "qwen3_moe", "vocab_size": 100, "hidden_size": 64,
          "num_hidden_layers": 2, "num_attention_heads": 8, )";
  std::string msg = load_error("qwen3_moe_dense.json", base + R"("mlp_only_layers": [0]})");
  EXPECT_NE(msg.find(": mlp_only_layers: [0] is not supported"), std::string::npos) << msg;
  msg = load_error("qwen3_moe_step.json", base + R"("decoder_sparse_step": 2})");
  EXPECT_NE(msg.find(": decoder_sparse_step: 2 is not supported"), std::string::npos) << msg;
  // Every byte count of the experts' model states stays a 64-bit integer.
  msg = load_error("qwen3_moe_huge.json",
                   R"({"model_type": "qwen3_moe", "vocab_size": 100, "hidden_size": 131072,
          "num_attention_heads": 1024, "num_hidden_layers": 10000,
          "moe_intermediate_size": 524288, "num_experts": 4096, "num_experts_per_tok": 2})");
  EXPECT_NE(msg.find(": num_experts: 4096 experts of 3 x 131072 x 524288 over 10000 layers make "
                     "8.44e+18 parameters; expected at most 4503599627370496 (2^52)"),
            std::string::npos)
      << msg;
  msg = load_error("qwen3_moe_k.json", base + R"("num_experts": 4, "num_experts_per_tok": 6})");
  EXPECT_NE(msg.find("6 is not allowed; expected at most num_experts = 4"), std::string::npos)
      << msg;
}

// Qwen2MoeConfig: 60 experts of moe_intermediate_size (1408), 4 per token, no renormalisation,
// 16 KV heads, q/k/v biases unless qkv_bias is false, and a shared expert of
// shared_expert_intermediate_size (5632).
TEST(HfConfig, ReadsQwen2MoesSharedExpertWithItsDefaults) {
  const std::string base =
      R"({"model_type": "qwen2_moe", "vocab_size": 100, "hidden_size": 64,
          "num_hidden_layers": 2, "num_attention_heads": 16)";
  const Result<ModelSpec> m = load_hf_config(write_temp("qwen2_moe_min.json", base + "}"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model_type, ModelType::kQwen2Moe);
  EXPECT_EQ(m->moe.num_experts, 60);
  EXPECT_EQ(m->moe.experts_per_token, 4);
  EXPECT_FALSE(m->moe.normalize_top_k);
  EXPECT_EQ(m->moe.shared_expert_size, 5632);
  EXPECT_EQ(m->intermediate_size, 1408);
  EXPECT_EQ(m->num_kv_heads, 16);
  EXPECT_TRUE(m->bias.qkv);
  EXPECT_FALSE(m->bias.attn_out || m->bias.mlp || m->qk_norm);

  const Result<ModelSpec> nobias = load_hf_config(
      write_temp("qwen2_moe_nobias.json",
                 base + R"(, "qkv_bias": false, "shared_expert_intermediate_size": 96})"));
  ASSERT_TRUE(nobias.ok()) << nobias.status().message();
  EXPECT_FALSE(nobias->bias.qkv);
  EXPECT_EQ(nobias->moe.shared_expert_size, 96);

  const std::string msg =
      load_error("qwen2_moe_shared.json", base + R"(, "shared_expert_intermediate_size": 0})");
  EXPECT_NE(msg.find(": shared_expert_intermediate_size: 0 is not allowed"), std::string::npos)
      << msg;
}

// A hub id zerosim's zoo does not know is read from the Hugging Face cache when its config.json
// is there; otherwise the message says zerosim needs the config.json and where it looked.
// torch_dtype (transformers 4) or dtype (5) names the checkpoint's dtype, which the host memory
// of loading it depends on (plan/model_load.h); anything else is "" (not stated).
// Phi3Config: KV heads None (the heads), 4096 positions, rms_norm_eps 1e-5, no window, no
// biases whatever attention_bias says; resid_pdrop drops both sublayers' outputs; embd_pdrop is
// read by nothing (a warning when set); the RoPE parameters come from rope_parameters (or
// rope_scaling) before the top level, as transformers 5 resolves them.
TEST(HfConfig, ReadsPhi3WithItsDefaults) {
  const std::string base = R"({"model_type": "phi3", "vocab_size": 100, "hidden_size": 256,
      "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 512)";
  Diagnostics warnings;
  const Result<ModelSpec> m = load_hf_config(write_temp("phi3_min.json", base + "}"), &warnings);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_TRUE(warnings.items().empty());
  EXPECT_EQ(m->model_type, ModelType::kPhi3);
  EXPECT_EQ(m->num_kv_heads, 8);
  EXPECT_EQ(m->head_dim, 32);
  EXPECT_EQ(m->max_position_embeddings, 4096);
  EXPECT_EQ(m->norm_eps, 1e-5);
  EXPECT_EQ(m->rope_theta, 10000.0);
  EXPECT_EQ(m->partial_rotary_factor, 1.0);
  EXPECT_EQ(m->rotary_dim(), 32);
  EXPECT_EQ(m->sliding_window, 0);
  EXPECT_TRUE(fused_qkv(*m) && fused_gate_up(*m));
  EXPECT_EQ(m->dropout, DropoutProbs{});
  EXPECT_EQ(m->bias, LinearBiases{});

  Diagnostics w2;
  const Result<ModelSpec> d = load_hf_config(
      write_temp("phi3_dropout.json", base + R"(, "resid_pdrop": 0.1, "embd_pdrop": 0.1,
          "attention_bias": true, "sliding_window": 2047, "rope_theta": 5.0,
          "rope_parameters": {"rope_type": "default", "rope_theta": 250000.0,
                              "partial_rotary_factor": 0.75}})"),
      &w2);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->dropout.resid, 0.1);
  EXPECT_EQ(d->dropout.embd, 0.0);
  ASSERT_EQ(w2.items().size(), 1u);
  EXPECT_EQ(w2.items()[0].path, "embd_pdrop");
  EXPECT_FALSE(d->bias.qkv || d->bias.attn_out);
  EXPECT_EQ(d->sliding_window, 2047);
  EXPECT_EQ(d->rope_theta, 250000.0);
  EXPECT_EQ(d->partial_rotary_factor, 0.75);
  EXPECT_EQ(d->rotary_dim(), 24);

  // A longrope rope_scaling (Phi-3-mini-128k) names no theta: the top level's.
  const Result<ModelSpec> lr = load_hf_config(
      write_temp("phi3_longrope.json", base + R"(, "rope_theta": 5.0, "partial_rotary_factor": 0.5,
          "rope_scaling": {"type": "longrope", "short_factor": [1.0], "long_factor": [1.0]}})"));
  ASSERT_TRUE(lr.ok()) << lr.status().message();
  EXPECT_EQ(lr->rope_theta, 5.0);
  EXPECT_EQ(lr->partial_rotary_factor, 0.5);

  // 0.3 of 32 dimensions is 9: RoPE rotates pairs.
  const std::string odd = load_error("phi3_odd.json", base + R"(, "partial_rotary_factor": 0.3})");
  EXPECT_NE(odd.find("partial_rotary_factor"), std::string::npos) << odd;
  EXPECT_NE(odd.find("got 9"), std::string::npos) << odd;
  const std::string big =
      load_error("phi3_big.json", base + R"(, "rope_parameters": {"partial_rotary_factor": 1.5}})");
  EXPECT_NE(big.find("rope_parameters.partial_rotary_factor"), std::string::npos) << big;
}

// The Gemma families' config classes: head_dim 256, tied embeddings, gelu_pytorch_tanh (Gemma's
// hidden_act, Gemma 2's and 3's hidden_activation); Gemma2Config soft-caps the attention (50)
// and the logits (30) and slides a 4096 window; Gemma3TextConfig has q/k norms, no caps by
// default, and ignores attn_logit_softcapping (a warning); a null cap is none; Gemma 3's
// vision-language config is refused with what to pass instead.
TEST(HfConfig, ReadsTheGemmaFamiliesWithTheirDefaults) {
  auto gemma = [](std::string_view type, std::string_view extra, Diagnostics* w = nullptr) {
    const std::string text = R"({"model_type": ")" + std::string(type) +
                             R"(", "vocab_size": 100, "hidden_size": 96, "num_hidden_layers": 2,
        "num_attention_heads": 16, "intermediate_size": 256)" +
                             std::string(extra) + "}";
    return load_hf_config(write_temp(std::string(type) + "_gemma.json", text), w);
  };
  const Result<ModelSpec> g1 = gemma("gemma", R"(, "use_bidirectional_attention": null)");
  ASSERT_TRUE(g1.ok()) << g1.status().message();
  EXPECT_EQ(g1->head_dim, 256);
  EXPECT_EQ(g1->num_kv_heads, 16);
  EXPECT_TRUE(g1->tie_word_embeddings && g1->scaled_embedding);
  EXPECT_FALSE(g1->sandwich_norms || g1->qk_norm);
  EXPECT_EQ(g1->activation, "gelu_pytorch_tanh");
  EXPECT_EQ(g1->logit_softcap, 0.0);

  const Result<ModelSpec> g2 = gemma("gemma2", "");
  ASSERT_TRUE(g2.ok()) << g2.status().message();
  EXPECT_EQ(g2->num_kv_heads, 4);
  EXPECT_TRUE(g2->sandwich_norms && g2->scaled_embedding && !g2->qk_norm);
  EXPECT_EQ(g2->attn_softcap, 50.0);
  EXPECT_EQ(g2->logit_softcap, 30.0);
  EXPECT_EQ(g2->sliding_window, 4096);
  EXPECT_EQ(g2->max_position_embeddings, 8192);
  const Result<ModelSpec> nocap = gemma("gemma2", R"(,
      "attn_logit_softcapping": null, "final_logit_softcapping": null, "attention_bias": true,
      "hidden_activation": "gelu")");
  ASSERT_TRUE(nocap.ok()) << nocap.status().message();
  EXPECT_EQ(nocap->attn_softcap, 0.0);
  EXPECT_EQ(nocap->logit_softcap, 0.0);
  EXPECT_TRUE(nocap->bias.qkv && nocap->bias.attn_out);
  EXPECT_EQ(nocap->activation, "gelu");

  Diagnostics warnings;
  const Result<ModelSpec> g3 = gemma("gemma3_text", R"(,
      "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0)",
                                     &warnings);
  ASSERT_TRUE(g3.ok()) << g3.status().message();
  EXPECT_TRUE(g3->qk_norm && g3->sandwich_norms);
  EXPECT_EQ(g3->attn_softcap, 0.0);
  EXPECT_EQ(g3->logit_softcap, 30.0);
  EXPECT_EQ(g3->rope_theta, 1e6);
  ASSERT_EQ(warnings.items().size(), 1u);
  EXPECT_EQ(warnings.items()[0].path, "attn_logit_softcapping");

  const std::string vlm =
      load_error("gemma3.json", R"({"model_type": "gemma3", "text_config": {}})");
  EXPECT_NE(vlm.find("gemma3_text"), std::string::npos) << vlm;
  const std::string bidi =
      load_error("bidi.json", R"({"model_type": "gemma3_text", "vocab_size": 100, "hidden_size": 96,
          "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
          "intermediate_size": 256, "use_bidirectional_attention": true})");
  EXPECT_NE(bidi.find("use_bidirectional_attention"), std::string::npos) << bidi;
}

// OPTConfig: ReLU, biases (enable_bias), dropout 0.1 after the sublayers (none on the
// embeddings), 2048 positions, tied head; what OPT-350m and a few others differ by is an error
// naming the key.
TEST(HfConfig, ReadsOptAndRefusesWhatItDoesNotModel) {
  const std::string base = R"({"model_type": "opt", "vocab_size": 100, "hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 4, "ffn_dim": 256)";
  const Result<ModelSpec> m = load_hf_config(write_temp("opt_min.json", base + "}"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model_type, ModelType::kOpt);
  EXPECT_EQ(m->position, PositionKind::kLearned);
  EXPECT_EQ(m->norm, NormKind::kLayerNorm);
  EXPECT_EQ(m->activation, "relu");
  EXPECT_EQ(m->max_position_embeddings, 2048);
  EXPECT_TRUE(m->tie_word_embeddings);
  EXPECT_TRUE(m->bias.qkv && m->bias.attn_out && m->bias.mlp);
  EXPECT_EQ(m->dropout, (DropoutProbs{.embd = 0, .attn = 0, .resid = 0.1}));
  const Result<ModelSpec> nobias =
      load_hf_config(write_temp("opt_nobias.json", base + R"(, "enable_bias": false,
          "dropout": 0.0, "word_embed_proj_dim": 64})"));
  ASSERT_TRUE(nobias.ok()) << nobias.status().message();
  EXPECT_EQ(nobias->bias, LinearBiases{});
  EXPECT_EQ(nobias->dropout.resid, 0.0);

  const std::pair<std::string, std::string> refused[] = {
      {R"(, "do_layer_norm_before": false})", ": do_layer_norm_before: false is not supported"},
      {R"(, "word_embed_proj_dim": 32})", ": word_embed_proj_dim: 32 is not supported"},
      {R"(, "layerdrop": 0.1})", ": layerdrop: "},
      {R"(, "layer_norm_elementwise_affine": false})", ": layer_norm_elementwise_affine: "}};
  for (const auto& [extra, expected] : refused) {
    const std::string msg = load_error("opt_refused.json", base + extra);
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
  }
}

// GPTNeoXConfig: a quarter of each head rotated (rotary_pct) about base rotary_emb_base, both
// overridden by rope_parameters; the attention and MLP in parallel; hidden_dropout on the
// embeddings and both branches; biases (attention_bias for the attention's); an untied head.
TEST(HfConfig, ReadsGptNeoxWithItsDefaults) {
  const std::string base = R"({"model_type": "gpt_neox", "vocab_size": 100, "hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 256)";
  const Result<ModelSpec> m = load_hf_config(write_temp("neox_min.json", base + "}"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model_type, ModelType::kGptNeox);
  EXPECT_EQ(m->partial_rotary_factor, 0.25);
  EXPECT_EQ(m->rotary_dim(), 4);
  EXPECT_EQ(m->rope_theta, 10000.0);
  EXPECT_TRUE(m->parallel_residual);
  EXPECT_EQ(m->norm, NormKind::kLayerNorm);
  EXPECT_EQ(m->activation, "gelu");
  EXPECT_FALSE(m->tie_word_embeddings);
  EXPECT_TRUE(m->bias.qkv && m->bias.attn_out && m->bias.mlp);
  EXPECT_TRUE(fused_qkv(*m));
  const Result<ModelSpec> v = load_hf_config(write_temp("neox_vars.json", base + R"(,
      "rotary_pct": 0.5, "rotary_emb_base": 500.0, "rope_theta": 7.0, "hidden_dropout": 0.1,
      "use_parallel_residual": false, "attention_bias": false})"));
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->partial_rotary_factor, 0.5);
  EXPECT_EQ(v->rope_theta, 500.0);  // GPTNeoXConfig reads rotary_emb_base, not rope_theta
  EXPECT_EQ(v->dropout, (DropoutProbs{.embd = 0.1, .attn = 0, .resid = 0.1}));
  EXPECT_FALSE(v->parallel_residual);
  EXPECT_FALSE(v->bias.qkv || v->bias.attn_out);
  EXPECT_TRUE(v->bias.mlp);
  const Result<ModelSpec> d = load_hf_config(write_temp("neox_dict.json", base + R"(,
      "rotary_pct": 0.5, "rope_parameters": {"rope_type": "default", "rope_theta": 9.0,
      "partial_rotary_factor": 1.0}})"));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->partial_rotary_factor, 1.0);
  EXPECT_EQ(d->rope_theta, 9.0);
}

// BertConfig: post-LN layers, two token types, gelu, dropout 0.1, eps 1e-12, the masked-LM head
// tied unless architectures names another; num_labels from id2label; BERT as a decoder refused.
TEST(HfConfig, ReadsBertWithItsHead) {
  const std::string base = R"({"model_type": "bert", "vocab_size": 100, "hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 256)";
  const Result<ModelSpec> m = load_hf_config(write_temp("bert_min.json", base + "}"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model_type, ModelType::kBert);
  EXPECT_TRUE(is_encoder(*m));
  EXPECT_TRUE(m->post_norm);
  EXPECT_EQ(m->type_vocab_size, 2);
  EXPECT_EQ(m->max_position_embeddings, 512);
  EXPECT_EQ(m->head, HeadKind::kMaskedLm);
  EXPECT_EQ(m->activation, "gelu");
  EXPECT_EQ(m->norm_eps, 1e-12);
  EXPECT_EQ(m->dropout, (DropoutProbs{.embd = 0.1, .attn = 0.1, .resid = 0.1}));
  EXPECT_TRUE(m->tie_word_embeddings);
  const Result<ModelSpec> qa = load_hf_config(write_temp("bert_qa.json", base + R"(,
      "architectures": ["BertForQuestionAnswering"], "type_vocab_size": 1})"));
  ASSERT_TRUE(qa.ok()) << qa.status().message();
  EXPECT_EQ(qa->head, HeadKind::kQuestionAnswering);
  EXPECT_EQ(qa->num_labels, 2);
  EXPECT_EQ(qa->type_vocab_size, 1);
  const Result<ModelSpec> cls = load_hf_config(write_temp("bert_cls.json", base + R"(,
      "architectures": ["BertForSequenceClassification"],
      "id2label": {"0": "a", "1": "b", "2": "c"}})"));
  ASSERT_TRUE(cls.ok()) << cls.status().message();
  EXPECT_EQ(cls->head, HeadKind::kSequenceClassification);
  EXPECT_EQ(cls->num_labels, 3);
  const std::pair<std::string, std::string> refused[] = {
      {R"(, "architectures": ["BertForPreTraining"]})",
       "[\"BertForPreTraining\"] is not supported"},
      {R"(, "is_decoder": true})", "an encoder as a causal decoder is not modelled"},
      {R"(, "position_embedding_type": "relative_key"})", "\"absolute\""},
      {R"(, "type_vocab_size": 0})", "type_vocab_size"},
  };
  for (const auto& [extra, expected] : refused) {
    const std::string msg = load_error("bert_refused.json", base + extra);
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
    EXPECT_NE(msg.find("bert_refused.json"), std::string::npos) << msg;
  }
}

// RobertaConfig: BERT's keys; the position table's first pad_token_id + 1 rows precede position 0
// (514 rows and pad 1 in the checkpoints: 512 tokens); the heads named Roberta*.
TEST(HfConfig, ReadsRobertaWithItsPaddingOffset) {
  const std::string base = R"({"model_type": "roberta", "vocab_size": 100, "hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 256,
      "max_position_embeddings": 514, "type_vocab_size": 1)";
  const Result<ModelSpec> m = load_hf_config(write_temp("roberta_min.json", base + "}"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model_type, ModelType::kRoberta);
  EXPECT_TRUE(is_encoder(*m));
  EXPECT_TRUE(m->post_norm);
  EXPECT_EQ(m->max_position_embeddings, 512);
  EXPECT_EQ(m->position_offset, 2);  // RobertaConfig's pad_token_id 1
  EXPECT_EQ(m->head, HeadKind::kMaskedLm);
  const Result<ModelSpec> pad0 =
      load_hf_config(write_temp("roberta_pad0.json", base + R"(, "pad_token_id": 0})"));
  ASSERT_TRUE(pad0.ok()) << pad0.status().message();
  EXPECT_EQ(pad0->max_position_embeddings, 513);
  EXPECT_EQ(pad0->position_offset, 1);
  const Result<ModelSpec> cls = load_hf_config(write_temp("roberta_cls.json", base + R"(,
      "architectures": ["RobertaForSequenceClassification"], "id2label": {"0": "a"}})"));
  ASSERT_TRUE(cls.ok()) << cls.status().message();
  EXPECT_EQ(cls->head, HeadKind::kSequenceClassification);
  EXPECT_EQ(cls->num_labels, 1);
  const std::pair<std::string, std::string> refused[] = {
      {R"(, "architectures": ["BertForMaskedLM"]})",
       "expected a list of one of \"RobertaForMaskedLM\""},
      {R"(, "pad_token_id": null})", "pad_token_id: null is not supported"},
      {R"(, "pad_token_id": 513})", "514 leaves no position"},
      {R"(, "pad_token_id": -1})", "pad_token_id"},
  };
  for (const auto& [extra, expected] : refused) {
    const std::string msg = load_error("roberta_refused.json", base + extra);
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
    EXPECT_NE(msg.find("roberta_refused.json"), std::string::npos) << msg;
  }
}

// T5Config: decoder layers as many as the encoder's unless num_decoder_layers says, d_kv heads
// (T5-3B's 32 x 128 over d_model 1024), relu or a gated activation, dropout_rate everywhere, the
// head tied whatever tie_word_embeddings says.
TEST(HfConfig, ReadsT5WithItsDefaults) {
  const std::string base = R"({"model_type": "t5", "vocab_size": 100, "d_model": 64,
      "num_layers": 2, "num_heads": 4, "d_ff": 256)";
  const Result<ModelSpec> m = load_hf_config(write_temp("t5_min.json", base + "}"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model_type, ModelType::kT5);
  EXPECT_TRUE(is_encoder_decoder(*m));
  EXPECT_EQ(m->num_decoder_layers, 2);
  EXPECT_EQ(total_layers(*m), 4);
  EXPECT_EQ(m->head_dim, 64);  // d_kv's default, not d_model / num_heads
  EXPECT_EQ(m->relative_buckets, 32);
  EXPECT_EQ(m->position, PositionKind::kRelativeBias);
  EXPECT_EQ(m->mlp, MlpKind::kGelu);
  EXPECT_EQ(m->activation, "relu");
  EXPECT_EQ(m->dropout, (DropoutProbs{.embd = 0.1, .attn = 0.1, .resid = 0.1, .act = 0.1}));
  EXPECT_TRUE(m->tie_word_embeddings);
  const Result<ModelSpec> g = load_hf_config(write_temp("t5_gated.json", base + R"(,
      "feed_forward_proj": "gated-gelu", "num_decoder_layers": 3, "d_kv": 16,
      "tie_word_embeddings": false})"));
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->mlp, MlpKind::kSwiGlu);
  EXPECT_EQ(g->activation, "gelu_new");
  EXPECT_EQ(g->num_decoder_layers, 3);
  EXPECT_EQ(g->q_dim(), 64);
  EXPECT_TRUE(g->tie_word_embeddings);
  const std::pair<std::string, std::string> refused[] = {
      {R"(, "feed_forward_proj": "gated-swishy"})", "feed_forward_proj"},
      {R"(, "is_encoder_decoder": false})", "T5's encoder alone"},
  };
  for (const auto& [extra, expected] : refused) {
    const std::string msg = load_error("t5_refused.json", base + extra);
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
  }
}

// BlenderbotConfig: every size has a default; the decoder's heads and MLP width must be the
// encoder's; dropout on the embeddings and each sublayer, activation_dropout after the GELU; the
// head tied (an untied one is refused).
TEST(HfConfig, ReadsBlenderbotAsAnEncoderDecoder) {
  const std::string base = R"({"model_type": "blenderbot", "d_model": 64, "encoder_layers": 2,
      "decoder_layers": 3, "encoder_attention_heads": 4, "decoder_attention_heads": 4,
      "encoder_ffn_dim": 128, "vocab_size": 100,
      "scale_embedding": true, "activation_dropout": 0.05)";
  const Result<ModelSpec> m =
      load_hf_config(write_temp("bb.json", base + R"(, "decoder_ffn_dim": 128})"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model_type, ModelType::kBlenderbot);
  EXPECT_TRUE(is_encoder_decoder(*m));
  EXPECT_EQ(m->num_layers, 2);
  EXPECT_EQ(m->num_decoder_layers, 3);
  EXPECT_EQ(m->max_position_embeddings, 128);
  EXPECT_TRUE(m->scaled_embedding);
  EXPECT_EQ(m->position, PositionKind::kLearned);
  EXPECT_EQ(m->dropout, (DropoutProbs{.embd = 0.1, .attn = 0, .resid = 0.1, .act = 0.05}));
  EXPECT_TRUE(m->bias.qkv && m->bias.attn_out && m->bias.mlp);
  const std::pair<std::string, std::string> refused[] = {
      {R"(, "decoder_ffn_dim": 256})", "a decoder unlike the encoder"},
      {R"(, "decoder_ffn_dim": 128, "tie_word_embeddings": false})", "an LM head of its own"},
      {R"(, "decoder_ffn_dim": 128, "encoder_layerdrop": 0.1})", "layer drop"},
  };
  for (const auto& [extra, expected] : refused) {
    const std::string msg = load_error("bb_refused.json", base + extra);
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
  }
  // The decoder's learned positions bound the target as the encoder's bound the source.
  const Workload w{.micro_batch = 1, .seq_len = 16, .target_len = 129};
  EXPECT_FALSE(validate_workload(*m, w).is_ok());
}

// BloomConfig: n_layer / num_hidden_layers and n_head / num_attention_heads read alike (both
// given must agree), n_embed for hidden_size, ALiBi, the MLP 4h wide, no dropout by default.
TEST(HfConfig, ReadsBloomUnderEitherKeyName) {
  const Result<ModelSpec> m = load_hf_config(write_temp("bloom.json", R"({"model_type": "bloom",
      "vocab_size": 100, "hidden_size": 64, "n_layer": 3, "n_head": 4})"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->model_type, ModelType::kBloom);
  EXPECT_EQ(m->position, PositionKind::kAlibi);
  EXPECT_EQ(m->num_layers, 3);
  EXPECT_EQ(m->num_heads, 4);
  EXPECT_EQ(m->intermediate_size, 256);
  EXPECT_EQ(m->dropout, DropoutProbs{});
  EXPECT_TRUE(m->tie_word_embeddings);
  EXPECT_TRUE(fused_qkv(*m));
  EXPECT_FALSE(supports_sdpa(*m));
  Result<ModelSpec> alias = load_hf_config(write_temp("bloom_alias.json", R"({"model_type": "bloom",
      "vocab_size": 100, "n_embed": 64, "num_hidden_layers": 3, "num_attention_heads": 4})"));
  ASSERT_TRUE(alias.ok()) << alias.status().message();
  alias->name = alias->hf_repo = m->name;
  EXPECT_EQ(*alias, *m);
  const std::pair<std::string, std::string> refused[] = {
      {R"(, "n_layer": 3, "num_hidden_layers": 4})", "n_layer says 3"},
      {R"(, "apply_residual_connection_post_layernorm": true})", "after the layer norm"},
      {R"(, "pretraining_tp": 4, "slow_but_exact": true})", "pretraining_tp slices"},
      {R"(, "n_head": 5})", "does not divide hidden_size = 64"},
  };
  for (const auto& [extra, expected] : refused) {
    const std::string msg =
        load_error("bloom_refused.json", R"({"model_type": "bloom", "hidden_size": 64)" + extra);
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
    EXPECT_NE(msg.find("bloom_refused.json"), std::string::npos) << msg;
  }
  // A long sequence is no position table's business.
  EXPECT_TRUE(validate_workload(*m, {.micro_batch = 1, .seq_len = 8192}).is_ok());
}

// FalconConfig: Falcon-7B's defaults (71 heads, one key/value head, attention and MLP in
// parallel on one norm, no biases); multi_query false gives every head its own key and value;
// the new decoder architecture (40B, 180B) its groups and two norms; ALiBi and sequential layers
// refused by name.
TEST(HfConfig, ReadsFalconSevenBsLayout) {
  const Result<ModelSpec> d =
      load_hf_config(write_temp("falcon.json", R"({"model_type": "falcon"})"));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->model_type, ModelType::kFalcon);
  EXPECT_EQ(d->hidden_size, 4544);
  EXPECT_EQ(d->num_heads, 71);
  EXPECT_EQ(d->num_kv_heads, 1);
  EXPECT_EQ(d->intermediate_size, 4 * 4544);
  EXPECT_TRUE(d->parallel_residual);
  EXPECT_TRUE(d->parallel_shared_norm);
  EXPECT_EQ(d->bias, LinearBiases{});
  EXPECT_EQ(d->position, PositionKind::kRotary);
  EXPECT_TRUE(fused_qkv(*d));
  const Result<ModelSpec> mha = load_hf_config(write_temp("falcon_mha.json", R"({"model_type":
      "falcon", "hidden_size": 64, "num_attention_heads": 4, "multi_query": false, "bias": true,
      "ffn_hidden_size": 100})"));
  ASSERT_TRUE(mha.ok()) << mha.status().message();
  EXPECT_EQ(mha->num_kv_heads, 4);
  EXPECT_EQ(mha->intermediate_size, 100);
  EXPECT_TRUE(mha->bias.qkv && mha->bias.mlp);
  EXPECT_FALSE(mha->kv_copied_per_head);
  // The new decoder architecture (Falcon-40B's): groups copied out to every head, two norms by
  // default (num_ln_in_parallel_attn null), or one.
  const std::string grouped = R"({"model_type": "falcon", "hidden_size": 64,
      "num_attention_heads": 8, "new_decoder_architecture": true, "num_kv_heads": 2)";
  const Result<ModelSpec> g = load_hf_config(write_temp("falcon_40b.json", grouped + "}"));
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->num_kv_heads, 2);
  EXPECT_TRUE(g->kv_copied_per_head);
  EXPECT_FALSE(g->parallel_shared_norm);
  const Result<ModelSpec> one = load_hf_config(
      write_temp("falcon_40b_one.json", grouped + R"(, "num_ln_in_parallel_attn": 1})"));
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_TRUE(one->parallel_shared_norm);
  const std::pair<std::string, std::string> refused[] = {
      {R"(, "new_decoder_architecture": true, "num_attention_heads": 71, "num_kv_heads": 2})",
       "does not divide num_attention_heads = 71"},
      {R"(, "alibi": true})", "ALiBi variants"},
      {R"(, "parallel_attn": false})", "in sequence"},
  };
  for (const auto& [extra, expected] : refused) {
    const std::string msg = load_error("falcon_refused.json", R"({"model_type": "falcon")" + extra);
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
    EXPECT_NE(msg.find("falcon_refused.json"), std::string::npos) << msg;
  }
}

// DebertaV2Config (deberta-v2-xlarge-mnli's keys): disentangled attention over 2 x
// position_buckets relative positions (c2p and p2c, the list or the "p2c|c2p" string), the table
// normalized, a ConvLayer, the classification head with id2label's labels; what DebertaV2Config
// defaults to (no relative attention, an absolute position table) and the other heads refused.
TEST(HfConfig, ReadsDebertaV2DisentangledAttention) {
  const std::string base = R"({"model_type": "deberta-v2", "hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 96,
      "vocab_size": 100, "relative_attention": true, "share_att_key": true,
      "position_biased_input": false, "position_buckets": 16, "norm_rel_ebd": "layer_norm",
      "conv_kernel_size": 3, "conv_act": "gelu", "max_relative_positions": -1,
      "type_vocab_size": 0, "id2label": {"0": "a", "1": "b", "2": "c"})";
  const Result<ModelSpec> d =
      load_hf_config(write_temp("deberta.json", base + R"(, "pos_att_type": "p2c|c2p"})"));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->model_type, ModelType::kDebertaV2);
  EXPECT_TRUE(is_encoder(*d));
  EXPECT_FALSE(supports_sdpa(*d));
  EXPECT_EQ(d->position, PositionKind::kDisentangled);
  EXPECT_EQ(d->disentangled, (DisentangledSpec{.span = 16,
                                               .c2p = true,
                                               .p2c = true,
                                               .norm_table = true,
                                               .conv_kernel = 3,
                                               .conv_act = "gelu"}));
  EXPECT_EQ(d->head, HeadKind::kSequenceClassification);
  EXPECT_EQ(d->num_labels, 3);
  EXPECT_EQ(d->type_vocab_size, 0);
  EXPECT_DOUBLE_EQ(d->norm_eps, 1e-7);
  const Result<ModelSpec> list =
      load_hf_config(write_temp("deberta_list.json", base + R"(, "pos_att_type": ["c2p"]})"));
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_TRUE(list->disentangled.c2p);
  EXPECT_FALSE(list->disentangled.p2c);
  const std::pair<std::string, std::string> refused[] = {
      {R"({"model_type": "deberta-v2"})", "relative_attention"},
      {base + R"(, "architectures": ["DebertaV2ForMaskedLM"]})", "not modelled yet"},
      {base + R"(, "pos_att_type": "p2p"})", "expected \"c2p\", \"p2c\" or both"},
      {base + R"(, "conv_groups": 2})", "grouped ConvLayer"},
      {R"({"model_type": "deberta-v2", "relative_attention": true, "share_att_key": true,
          "position_biased_input": false})",
       "norm_rel_ebd: the default (absent, \"none\") is not supported"},
      {base + R"(, "attention_head_size": 32})", "expected 16"},
  };
  for (const auto& [text, expected] : refused) {
    const std::string msg = load_error("deberta_refused.json", text);
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
    EXPECT_NE(msg.find("deberta_refused.json"), std::string::npos) << msg;
  }
}

// DeepseekV2Config and DeepseekV3Config: multi-head latent attention (a query and key of
// qk_nope_head_dim + qk_rope_head_dim per head, a value of v_head_dim; q_lora_rank null is
// q_proj), dense first layers of intermediate_size, experts of moe_intermediate_size and
// n_shared_experts of them shared; V3's defaults (a low-rank query, three dense layers,
// renormalized top-k); what the routers cannot run and MLA's expansion refused.
TEST(HfConfig, ReadsDeepSeekLatentAttentionAndExperts) {
  const std::string sizes = R"("vocab_size": 100, "hidden_size": 64, "num_hidden_layers": 4,
      "num_attention_heads": 4, "intermediate_size": 96)";
  const std::string v2 = R"({"model_type": "deepseek_v2", )" + sizes + R"(,
      "num_experts_per_tok": 2, "first_k_dense_replace": 1, "q_lora_rank": null,
      "kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 6,
      "moe_intermediate_size": 24, "n_routed_experts": 8, "n_shared_experts": 2)";
  const Result<ModelSpec> d = load_hf_config(write_temp("deepseek_v2.json", v2 + "}"));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->model_type, ModelType::kDeepseekV2);
  EXPECT_EQ(d->mla, (MlaSpec{.q_lora_rank = 0,
                             .kv_lora_rank = 16,
                             .qk_nope_head_dim = 8,
                             .qk_rope_head_dim = 4,
                             .v_head_dim = 6}));
  EXPECT_EQ(d->head_dim, 12);
  EXPECT_EQ(d->num_kv_heads, 4);
  EXPECT_EQ(d->attn_out_dim(), 24);
  EXPECT_EQ(d->rotary_dim(), 4);
  EXPECT_EQ(d->intermediate_size, 24);
  EXPECT_EQ(d->moe, (MoeSpec{.num_experts = 8,
                             .experts_per_token = 2,
                             .normalize_top_k = false,
                             .shared_expert_size = 48,
                             .dense_layers = 1,
                             .dense_size = 96}));
  EXPECT_FALSE(has_experts(*d, 0));
  EXPECT_TRUE(has_experts(*d, 1));
  const Result<ModelSpec> v3 = load_hf_config(
      write_temp("deepseek_v3.json", R"({"model_type": "deepseek_v3", )" + sizes + "}"));
  ASSERT_TRUE(v3.ok()) << v3.status().message();
  EXPECT_EQ(v3->mla.q_lora_rank, 1536);
  EXPECT_EQ(v3->head_dim, 192);
  EXPECT_EQ(v3->moe, (MoeSpec{.num_experts = 256,
                              .experts_per_token = 8,
                              .normalize_top_k = true,
                              .shared_expert_size = 2048,
                              .dense_layers = 3,
                              .dense_size = 96}));
  // v2 with one value changed.
  auto with = [&v2](const std::string& from, const std::string& to) {
    std::string s = v2 + "}";
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  const std::pair<std::string, std::string> refused[] = {
      {R"({"model_type": "deepseek_v2", )" + sizes + "}", "num_experts_per_tok"},
      {v2 + R"(, "num_key_value_heads": 2})", "a key and value for every head"},
      {v2 + R"(, "topk_method": "noaux_tc"})", "\"noaux_tc\" is not allowed"},
      {v2 + R"(, "mlp_bias": true})", "MLP biases"},
      {with(R"("first_k_dense_replace": 1)", R"("first_k_dense_replace": 5)"),
       "at most num_hidden_layers = 4"},
      {v2 + R"(, "topk_method": "group_limited_greedy", "n_group": 3})", "does not divide"},
      {with(R"("qk_rope_head_dim": 4)", R"("qk_rope_head_dim": 5)"), "an even number"},
  };
  for (const auto& [text, expected] : refused) {
    const std::string msg = load_error("deepseek_refused.json", text);
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
    EXPECT_NE(msg.find("deepseek_refused.json"), std::string::npos) << msg;
  }
}

// BartConfig: Blenderbot's keys with BART's defaults (bart-large's sizes), post-norm layers,
// positions offset by 2; BartModel and BartForConditionalGeneration read, another head refused.
TEST(HfConfig, ReadsBartWithItsDefaultsAndPostNorm) {
  const Result<ModelSpec> d =
      load_hf_config(write_temp("bart_min.json", R"({"model_type": "bart"})"));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->model_type, ModelType::kBart);
  EXPECT_TRUE(is_encoder_decoder(*d));
  EXPECT_EQ(d->vocab_size, 50265);
  EXPECT_EQ(d->hidden_size, 1024);
  EXPECT_EQ(d->num_layers, 12);
  EXPECT_EQ(d->num_decoder_layers, 12);
  EXPECT_EQ(d->num_heads, 16);
  EXPECT_EQ(d->intermediate_size, 4096);
  EXPECT_EQ(d->max_position_embeddings, 1024);
  EXPECT_EQ(d->position_offset, 2);
  EXPECT_TRUE(d->post_norm);
  EXPECT_FALSE(d->scaled_embedding);
  EXPECT_EQ(d->dropout, (DropoutProbs{.embd = 0.1, .attn = 0, .resid = 0.1, .act = 0}));
  Result<ModelSpec> gen = load_hf_config(write_temp("bart_gen.json", R"({"model_type": "bart",
      "architectures": ["BartForConditionalGeneration"]})"));
  ASSERT_TRUE(gen.ok()) << gen.status().message();
  gen->name = gen->hf_repo = d->name;
  EXPECT_EQ(*gen, *d);
  const std::string msg = load_error("bart_cls.json", R"({"model_type": "bart",
      "architectures": ["BartForSequenceClassification"]})");
  EXPECT_NE(msg.find("[\"BartForSequenceClassification\"] is not supported"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("bart_cls.json"), std::string::npos) << msg;
  // 1024 positions: the table's 1026 rows less the offset.
  EXPECT_TRUE(validate_workload(*d, {.micro_batch = 1, .seq_len = 1024}).is_ok());
  EXPECT_FALSE(validate_workload(*d, {.micro_batch = 1, .seq_len = 1025}).is_ok());
}

}  // namespace
}  // namespace zs::models
