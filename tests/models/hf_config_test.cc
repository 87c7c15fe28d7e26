#include "models/hf_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "models/parameters.h"
#include "models/zoo.h"

namespace zs::models {
namespace {

namespace fs = std::filesystem;

std::string shipped(std::string_view file) {
  return std::string(ZS_SOURCE_DIR) + "/models/hf_configs/" + std::string(file);
}

// Writes `text` to a fresh file under the test's temp directory; returns its path.
std::string write_temp(const std::string& name, std::string_view text) {
  const fs::path dir = fs::path(::testing::TempDir()) / "zs_models_hf_config_test";
  fs::create_directories(dir);
  const fs::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

// Loads `text` as a config.json and returns the error message (empty if it loaded).
std::string load_error(const std::string& name, std::string_view text) {
  const Result<ModelSpec> r = load_hf_config(write_temp(name, text));
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

TEST(HfConfig, ShippedConfigsMatchTheZoo) {
  const std::pair<std::string_view, std::string_view> files[] = {
      {"gpt2.json", "gpt2"},
      {"Llama-2-7b-hf.json", "llama2-7b"},
      {"Llama-2-70b-hf.json", "llama2-70b"},
      {"Meta-Llama-3-8B.json", "llama3-8b"},
      {"Mistral-7B-v0.1.json", "mistral-7b"},
      {"Qwen2-7B.json", "qwen2-7b"},
      {"Qwen3-8B.json", "qwen3-8b"},
      {"Mixtral-8x7B.json", "mixtral-8x7b"},
      {"Qwen3-30B-A3B.json", "qwen3-30b-a3b"},
      {"Qwen1.5-MoE-A2.7B.json", "qwen1.5-moe-a2.7b"},
      {"Phi-3-mini-4k-instruct.json", "phi-3-mini"},
      {"phi-4.json", "phi-4"},
      {"gemma-2-9b.json", "gemma-2-9b"},
      {"gemma-3-1b-pt.json", "gemma-3-1b"},
      {"gemma-3-12b-pt-text.json", "gemma-3-12b"},
      {"opt-1.3b.json", "opt-1.3b"},
      {"opt-6.7b.json", "opt-6.7b"},
      {"pythia-6.9b.json", "pythia-6.9b"},
      {"gpt-neox-20b.json", "gpt-neox-20b"}};
  for (const auto& [file, zoo_name] : files) {
    Diagnostics warnings;
    const Result<ModelSpec> loaded = load_hf_config(shipped(file), &warnings);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    EXPECT_TRUE(warnings.items().empty()) << file;
    const ModelSpec& a = *loaded;
    const ModelSpec b = zoo_model(zoo_name).value();
    EXPECT_EQ(parameter_count(a), parameter_count(b)) << file;
    EXPECT_EQ(a.model_type, b.model_type) << file;
    EXPECT_EQ(a.vocab_size, b.vocab_size) << file;
    EXPECT_EQ(a.hidden_size, b.hidden_size) << file;
    EXPECT_EQ(a.num_layers, b.num_layers) << file;
    EXPECT_EQ(a.num_heads, b.num_heads) << file;
    EXPECT_EQ(a.num_kv_heads, b.num_kv_heads) << file;
    EXPECT_EQ(a.head_dim, b.head_dim) << file;
    EXPECT_EQ(a.intermediate_size, b.intermediate_size) << file;
    EXPECT_EQ(a.max_position_embeddings, b.max_position_embeddings) << file;
    EXPECT_EQ(a.tie_word_embeddings, b.tie_word_embeddings) << file;
    EXPECT_EQ(a.sliding_window, b.sliding_window) << file;
    EXPECT_EQ(a.rope_theta, b.rope_theta) << file;
    EXPECT_EQ(a.norm_eps, b.norm_eps) << file;
    EXPECT_EQ(a.activation, b.activation) << file;
    EXPECT_EQ(a.bias.qkv, b.bias.qkv) << file;
    EXPECT_EQ(a.bias.attn_out, b.bias.attn_out) << file;
    EXPECT_EQ(a.bias.mlp, b.bias.mlp) << file;
    EXPECT_EQ(a.dropout.embd, b.dropout.embd) << file;
    EXPECT_EQ(a.dropout.attn, b.dropout.attn) << file;
    EXPECT_EQ(a.dropout.resid, b.dropout.resid) << file;
    EXPECT_EQ(a.moe, b.moe) << file;
    EXPECT_EQ(a.qk_norm, b.qk_norm) << file;
    EXPECT_EQ(a.partial_rotary_factor, b.partial_rotary_factor) << file;
    EXPECT_EQ(a.scaled_embedding, b.scaled_embedding) << file;
    EXPECT_EQ(a.sandwich_norms, b.sandwich_norms) << file;
    EXPECT_EQ(a.attn_softcap, b.attn_softcap) << file;
    EXPECT_EQ(a.logit_softcap, b.logit_softcap) << file;
    EXPECT_EQ(a.parallel_residual, b.parallel_residual) << file;
    EXPECT_EQ(a.checkpoint_dtype, b.checkpoint_dtype) << file;
  }
  EXPECT_EQ(load_hf_config(shipped("Llama-2-7b-hf.json"))->name, "meta-llama/Llama-2-7b-hf");
}

TEST(HfConfig, AbsentKeysTakeTheHfClassDefaults) {
  const Result<ModelSpec> gpt2 = load_hf_config(write_temp(
      "gpt2_min.json",
      R"({"model_type": "gpt2", "vocab_size": 100, "n_embd": 64, "n_layer": 2, "n_head": 4,
          "n_inner": null})"));
  ASSERT_TRUE(gpt2.ok()) << gpt2.status().message();
  EXPECT_EQ(gpt2->intermediate_size, 256);
  EXPECT_EQ(gpt2->max_position_embeddings, 1024);
  EXPECT_TRUE(gpt2->tie_word_embeddings);
  EXPECT_EQ(gpt2->dropout.attn, 0.1);
  EXPECT_EQ(gpt2->activation, "gelu_new");

  auto kv_heads = [](std::string_view type, std::string_view extra) {
    const std::string text = R"({"model_type": ")" + std::string(type) +
                             R"(", "vocab_size": 100, "hidden_size": 512, "num_hidden_layers": 2,
        "num_attention_heads": 64, "intermediate_size": 1024)" +
                             std::string(extra) + "}";
    const Result<ModelSpec> r = load_hf_config(write_temp(std::string(type) + "_kv.json", text));
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->num_kv_heads : -1;
  };
  EXPECT_EQ(kv_heads("llama", ""), 64);
  EXPECT_EQ(kv_heads("mistral", ""), 8);  // MistralConfig(num_key_value_heads=8)
  EXPECT_EQ(kv_heads("qwen2", ""), 32);   // Qwen2Config(num_key_value_heads=32)
  EXPECT_EQ(kv_heads("qwen2", R"(, "num_key_value_heads": null)"), 64);

  const Result<ModelSpec> hd = load_hf_config(write_temp(
      "head_dim.json",
      R"({"model_type": "mistral", "vocab_size": 100, "hidden_size": 5120, "num_hidden_layers": 2,
          "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
          "intermediate_size": 1024, "sliding_window": null, "attention_bias": true})"));
  ASSERT_TRUE(hd.ok()) << hd.status().message();
  EXPECT_EQ(hd->head_dim, 128);  // Mistral-Nemo style: 32 x 128 != 5120
  EXPECT_EQ(hd->q_dim(), 4096);
  EXPECT_EQ(hd->sliding_window, 0);
  EXPECT_FALSE(hd->bias.qkv);  // attention_bias is a llama key; Mistral ignores it

  // Qwen3Config: head_dim 128 whatever hidden_size / num_attention_heads is, 32 KV heads,
  // attention_bias on q/k/v and o_proj, and the q/k norms always.
  const Result<ModelSpec> q3 = load_hf_config(write_temp(
      "qwen3_min.json",
      R"({"model_type": "qwen3", "vocab_size": 100, "hidden_size": 1024, "num_hidden_layers": 2,
          "num_attention_heads": 16, "num_key_value_heads": 8, "intermediate_size": 3072,
          "attention_bias": true, "sliding_window": 4096})"));
  ASSERT_TRUE(q3.ok()) << q3.status().message();
  EXPECT_EQ(q3->head_dim, 128);
  EXPECT_EQ(q3->q_dim(), 2048);
  EXPECT_EQ(q3->num_kv_heads, 8);
  EXPECT_TRUE(q3->qk_norm);
  EXPECT_TRUE(q3->bias.qkv && q3->bias.attn_out);
  EXPECT_FALSE(q3->bias.mlp);
  EXPECT_EQ(q3->sliding_window, 0);      // use_sliding_window defaults to false
  EXPECT_EQ(kv_heads("qwen3", ""), 32);  // Qwen3Config(num_key_value_heads=32)
}

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

TEST(HfConfig, TheCheckpointDtypeComesFromTorchDtypeOrDtype) {
  auto dtype_of = [](const std::string& name, std::string_view extra) {
    const std::string text =
        R"({"model_type": "gpt2", "vocab_size": 100, "n_embd": 64, "n_layer": 2, "n_head": 4)" +
        std::string(extra) + "}";
    const Result<ModelSpec> r = load_hf_config(write_temp(name, text));
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->checkpoint_dtype : "?";
  };
  EXPECT_EQ(dtype_of("d0.json", ""), "");
  EXPECT_EQ(dtype_of("d1.json", R"(, "torch_dtype": "float16")"), "fp16");
  EXPECT_EQ(dtype_of("d2.json", R"(, "dtype": "bfloat16")"), "bf16");
  EXPECT_EQ(dtype_of("d3.json", R"(, "torch_dtype": "float32")"), "fp32");
  EXPECT_EQ(dtype_of("d4.json", R"(, "torch_dtype": "int8")"), "");
  EXPECT_EQ(dtype_of("d5.json", R"(, "torch_dtype": null)"), "");
  const Result<ModelSpec> llama = load_hf_config(shipped("Llama-2-7b-hf.json"));
  ASSERT_TRUE(llama.ok());
  EXPECT_EQ(llama->checkpoint_dtype, "fp16");
}

TEST(HfConfig, AHubIdIsReadFromTheLocalCacheOrNamesWhereToPutIt) {
  const fs::path cache = fs::path(::testing::TempDir()) / ("zs_hub_" + std::to_string(getpid()));
  setenv("HF_HUB_CACHE", cache.c_str(), 1);
  const Result<ModelSpec> missing = resolve_model("meta-llama/Meta-Llama-3.1-8B");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  const std::string m = missing.status().message();
  EXPECT_NE(m.find("not in the local cache"), std::string::npos) << m;
  EXPECT_NE(m.find((cache / "models--meta-llama--Meta-Llama-3.1-8B").string()), std::string::npos)
      << m;
  EXPECT_NE(m.find("huggingface-cli download meta-llama/Meta-Llama-3.1-8B config.json"),
            std::string::npos)
      << m;
  // Cached as huggingface_hub lays it out: refs/main names the snapshot.
  const fs::path repo = cache / "models--meta-llama--Meta-Llama-3.1-8B";
  fs::create_directories(repo / "refs");
  fs::create_directories(repo / "snapshots" / "abc123");
  std::ofstream(repo / "refs" / "main") << "abc123";
  std::ofstream(repo / "snapshots" / "abc123" / "config.json")
      << R"({"model_type": "gpt2", "vocab_size": 256, "n_embd": 64, "n_layer": 2, "n_head": 4,
             "n_positions": 64})";
  const Result<ModelSpec> cached = resolve_model("meta-llama/Meta-Llama-3.1-8B");
  ASSERT_TRUE(cached.ok()) << cached.status().message();
  EXPECT_EQ(parameter_count(*cached), 120'576);
  unsetenv("HF_HUB_CACHE");
  fs::remove_all(cache);
}

TEST(HfConfig, ResolveModelTakesZooNamesFilesAndDirectories) {
  EXPECT_EQ(resolve_model("GPT2-medium")->name, "gpt2-medium");
  EXPECT_EQ(resolve_model("meta-llama/Llama-2-7b-hf")->hf_repo, "meta-llama/Llama-2-7b-hf");
  EXPECT_EQ(parameter_count(resolve_model(shipped("Qwen2-7B.json")).value()), 7'615'616'512);

  const std::string path = write_temp("config.json", R"({"model_type": "gpt2", "vocab_size": 256,
      "n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 64})");
  const Result<ModelSpec> dir = resolve_model(fs::path(path).parent_path().string());
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  EXPECT_EQ(parameter_count(*dir), 120'576);  // tiny-gpt's shape

  const Result<ModelSpec> missing = resolve_model("no/such/config.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no/such/config.json"), std::string::npos);

  const Result<ModelSpec> typo = resolve_model("gtp2");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().code(), StatusCode::kNotFound);
  EXPECT_NE(typo.status().message().find("did you mean \"gpt2\""), std::string::npos);
}

// A llama config.json with `key`'s value replaced by `value` (or the key dropped when empty).
std::string llama_with(std::string_view key, std::string_view value) {
  const std::pair<std::string_view, std::string_view> keys[] = {
      {"model_type", "\"llama\""},    {"vocab_size", "32000"},
      {"hidden_size", "4096"},        {"num_hidden_layers", "32"},
      {"num_attention_heads", "32"},  {"num_key_value_heads", "8"},
      {"intermediate_size", "11008"}, {"tie_word_embeddings", "false"},
      {"rms_norm_eps", "1e-05"},      {"hidden_act", "\"silu\""}};
  std::string text = "{";
  for (const auto& [k, v] : keys) {
    if (k == key && value.empty()) continue;
    if (text.size() > 1) text += ",\n  ";
    text += "\"" + std::string(k) + "\": " + std::string(k == key ? value : v);
  }
  return text + "}";
}

std::string gpt2_with(std::string_view extra) {
  return R"({"model_type": "gpt2", "vocab_size": 50257, "n_embd": 768, "n_layer": 12,)" +
         std::string(extra) + "}";
}

// Each invalid file: the message names the file, the JSON path and the offending value.
TEST(HfConfig, InvalidFilesNameThePathAndTheValue) {
  struct Case {
    std::string file;
    std::string text;
    std::vector<std::string> expected;  // substrings of the message
  };
  const std::vector<Case> cases = {
      {"no_type.json", llama_with("model_type", ""), {": model_type: ", "missing", "\"qwen2\""}},
      // A family zerosim does not model yet is named as such, with no near-miss suggestion
      // ("deepseek_v2" is not a misspelt anything).
      {"bert.json",
       llama_with("model_type", "\"bert\""),
       {": model_type: ", "\"bert\" (an encoder) is not modelled yet", "\"gpt2\", \"llama\"",
        "\"gemma3_text\", \"opt\" and \"gpt_neox\""}},
      {"deepseek_v2.json",
       llama_with("model_type", "\"deepseek_v2\""),
       {"error[unmodelled-model]",
        "\"deepseek_v2\" (a mixture of experts with multi-head latent attention) is not "
        "modelled yet"}},
      {"typo.json",
       llama_with("model_type", "\"lama\""),
       {": model_type: ", "\"lama\" is not allowed", "did you mean \"llama\""}},
      {"string_size.json",
       llama_with("hidden_size", "\"4096x\""),
       {":3:", ": hidden_size: ", "\"4096x\""}},
      {"zero_layers.json",
       llama_with("num_hidden_layers", "0"),
       {": num_hidden_layers: ", "0 is not allowed", "[1, 10000]"}},
      // Bounds past every published model keep counts in 64-bit integers (1e6 layers took
      // 3.5 GB in `check`).
      {"million_layers.json",
       llama_with("num_hidden_layers", "1000000"),
       {": num_hidden_layers: ", "1000000 is not allowed", "[1, 10000]"}},
      {"huge_vocab.json",
       llama_with("vocab_size", "8589934592"),
       {": vocab_size: ", "8589934592 is not allowed", "16777216"}},
      {"huge_hidden.json",
       llama_with("hidden_size", "4194304"),
       {": hidden_size: ", "4194304 is not allowed"}},
      // transformers' strict config classes reject a number written as a string.
      {"string_hidden.json",
       llama_with("hidden_size", "\"4096\""),
       {": hidden_size: ", "expected an integer", "got string \"4096\""}},
      {"string_eps.json",
       llama_with("rms_norm_eps", "\"1e-5\""),
       {": rms_norm_eps: ", "expected a number", "got string"}},
      {"no_ffn.json", llama_with("intermediate_size", ""), {": intermediate_size: ", "missing"}},
      {"kv_heads.json",
       llama_with("num_key_value_heads", "5"),
       {": num_key_value_heads: ", "5 is not allowed", "num_attention_heads = 32"}},
      {"heads.json",
       llama_with("num_attention_heads", "30"),
       {": num_attention_heads: ", "30 is not allowed", "hidden_size = 4096"}},
      {"tie.json",
       llama_with("tie_word_embeddings", "\"yes\""),
       {": tie_word_embeddings: ", "\"yes\"", "true or false"}},
      {"eps.json", llama_with("rms_norm_eps", "0"), {": rms_norm_eps: ", "0 is not allowed"}},
      {"act.json",
       llama_with("hidden_act", "\"swishy\""),
       {": hidden_act: ", "\"swishy\"", "did you mean \"swish\""}},
      {"gpt2_heads.json", gpt2_with(R"("n_head": 10)"), {": n_head: ", "10 is not allowed"}},
      {"gpt2_inner.json",
       gpt2_with(R"("n_head": 12, "n_inner": 3072.5)"),
       {": n_inner: ", "3072.5", "expected an integer"}},
      {"gpt2_dropout.json",
       gpt2_with(R"("n_head": 12, "resid_pdrop": 1.5)"),
       {": resid_pdrop: ", "1.5 is not allowed"}},
      {"gpt2_cross.json",
       gpt2_with(R"("n_head": 12, "add_cross_attention": true)"),
       {": add_cross_attention: ", "true is not supported"}},
      {"qwen2_kv_default.json",
       R"({"model_type": "qwen2", "vocab_size": 100, "hidden_size": 3584,
           "num_hidden_layers": 2, "num_attention_heads": 28, "intermediate_size": 100})",
       {": num_key_value_heads: ", "32 (absent, so the qwen2 default)", "= 28"}},
      {"array.json", "[1, 2]", {"expected an object, got array"}},
  };
  EXPECT_EQ(load_error("gemma.json", llama_with("model_type", "\"gemma\"")).find("mean"),
            std::string::npos);
  for (const Case& c : cases) {
    const std::string msg = load_error(c.file, c.text);
    ASSERT_FALSE(msg.empty()) << c.file << " loaded";
    EXPECT_NE(msg.find(c.file), std::string::npos) << msg;
    for (const std::string& part : c.expected) {
      EXPECT_NE(msg.find(part), std::string::npos) << c.file << ": no \"" << part << "\" in\n"
                                                   << msg;
    }
  }
}

TEST(HfConfig, ReportsEveryErrorOfAFileAtOnce) {
  const std::string msg =
      load_error("two_errors.json", gpt2_with(R"("n_head": 0, "attn_pdrop": -0.1)"));
  EXPECT_NE(msg.find(": n_head: "), std::string::npos) << msg;
  EXPECT_NE(msg.find(": attn_pdrop: "), std::string::npos) << msg;
  EXPECT_NE(msg.find('\n'), std::string::npos) << msg;
}

TEST(HfConfig, MalformedJsonIsAParseErrorWithAPosition) {
  const Result<ModelSpec> r = load_hf_config(write_temp("broken.json", "{\"model_type\": }"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kParseError);
  EXPECT_NE(r.status().message().find("broken.json:1:"), std::string::npos) << r.status().message();
}

TEST(HfConfig, WarnsAboutWhatJsonLoadWouldReject) {
  Diagnostics warnings;
  const Result<ModelSpec> r = load_hf_config(
      write_temp("commented.json", "// copied from the hub\n" + gpt2_with(R"("n_head": 12)")),
      &warnings);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->num_heads, 12);
  EXPECT_NE(warnings.find("not-strict-json"), nullptr);
}

TEST(HfConfig, ReadsRopeThetaWithTheHfDefault) {
  const std::pair<std::string_view, double> files[] = {
      {"Llama-2-7b-hf.json", 10000.0},  // no rope_theta key: LlamaConfig's default
      {"Meta-Llama-3-8B.json", 500000.0},
      {"Mistral-7B-v0.1.json", 10000.0},
      {"Qwen2-7B.json", 1000000.0},
      {"phi-4.json", 250000.0}};
  for (const auto& [file, theta] : files) {
    const Result<ModelSpec> spec = load_hf_config(shipped(file));
    ASSERT_TRUE(spec.ok()) << spec.status().message();
    EXPECT_EQ(spec->rope_theta, theta) << file;
  }
  const std::string msg =
      load_error("theta.json", R"({"model_type": "llama", "vocab_size": 100, "hidden_size": 64,
          "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
          "rope_theta": 0})");
  EXPECT_NE(msg.find(": rope_theta: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("0 is not allowed"), std::string::npos) << msg;
}

}  // namespace
}  // namespace zs::models
