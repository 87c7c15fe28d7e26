#include "models/hf_config.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>

#include "common/json_fields.h"
#include "common/text.h"
#include "common/units.h"
#include "models/hf_config_fields.h"

namespace zs::models {
namespace {

using hf::activation;
using hf::check_divides;
using hf::kGpt2SizeKeys;
using hf::kSizeKeys;
using hf::optional_bool;
using hf::optional_number;
using hf::optional_size;
using hf::probability;
using hf::require_bool;
using hf::required_size;
using hf::required_sizes;
using hf::rope_parameter;
using hf::set_learned_layernorm_model;
using json::Json;
using json::ObjectReader;

// "gpt2", "llama" and "mistral" or similar: every modelled model_type, quoted.
std::string known_types(std::string_view last_separator) {
  const auto names = model_type_names();
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? last_separator : ", ";
    out += "\"" + std::string(names[i]) + "\"";
  }
  return out;
}

// Hugging Face model types people train with DeepSpeed that zerosim does not model yet, and what
// sets each apart. A near-miss suggestion would be wrong for these ("gemma" is not a misspelt
// "llama": its embedding is scaled by sqrt(hidden) and its norms multiply by 1 + w), so they are
// named as not modelled instead.
struct Unmodelled {
  std::string_view type;
  std::string_view what;
};
constexpr Unmodelled kUnmodelled[] = {
    {"gemma3",
     "Gemma 3's vision-language model, Gemma3ForConditionalGeneration; its text_config, saved as "
     "a config.json of its own (model_type gemma3_text), is the language model alone"},
    {"mbart", "BART with a LayerNorm before each sublayer and after each stack"},
};

void read_gpt2(ObjectReader& r, ModelSpec* spec) {
  const auto [vocab, h, layers, heads] = required_sizes(r, kGpt2SizeKeys);
  const auto positions = optional_size(r, "n_positions", 1024, kMaxPositions);
  spec->activation = activation(r, "activation_function", "gelu_new");
  spec->dropout = {.embd = probability(r, "embd_pdrop", 0.1),
                   .attn = probability(r, "attn_pdrop", 0.1),
                   .resid = probability(r, "resid_pdrop", 0.1)};
  spec->norm_eps =
      optional_number(r, "layer_norm_epsilon", 1e-5, {.min = 0, .min_exclusive = true});
  spec->tie_word_embeddings = optional_bool(r, "tie_word_embeddings", true);
  if (optional_bool(r, "add_cross_attention", false)) {
    r.report("add_cross_attention", Severity::kError, "unsupported",
             "true is not supported; expected false (zerosim models decoder-only training)");
  }
  const auto inner = optional_size(r, "n_inner", 0, kMaxIntermediateSize);  // null or absent: 4h
  if (!vocab || !h || !layers || !heads || !positions || !inner) return;
  if (!check_divides(r, "n_head", *heads, "n_embd", *h)) return;
  set_learned_layernorm_model(*vocab, *h, *layers, *heads, *inner > 0 ? *inner : 4 * *h, *positions,
                              spec);
  spec->bias = {.qkv = true, .attn_out = true, .mlp = true};
}

// modeling_opt.py OPTForCausalLM: learned positions (max_position_embeddings + 2 rows),
// pre-LayerNorm layers, q/k/v/out_proj and fc1/fc2 with biases (enable_bias), dropout after the
// attention and after fc2 (OPTDecoder applies none to the embeddings in transformers 5), the LM
// head tied. What OPT-350m and a few others differ by is refused: post-LayerNorm layers
// (do_layer_norm_before false), project_in/project_out (word_embed_proj_dim != hidden_size),
// LayerNorms without weights, layer drop.
void read_opt(ObjectReader& r, ModelSpec* spec) {
  const auto [vocab, h, layers, heads] = required_sizes(r, kSizeKeys);
  const auto ffn = required_size(r, "ffn_dim", kMaxIntermediateSize);
  const auto positions = optional_size(r, "max_position_embeddings", 2048, kMaxPositions - 2);
  const auto proj = optional_size(r, "word_embed_proj_dim", 0, kMaxHiddenSize);
  spec->activation = activation(r, "activation_function", "relu");
  spec->dropout = {.attn = probability(r, "attention_dropout", 0),
                   .resid = probability(r, "dropout", 0.1)};
  const bool bias = optional_bool(r, "enable_bias", true);
  spec->bias = {.qkv = bias, .attn_out = bias, .mlp = bias};
  spec->tie_word_embeddings = optional_bool(r, "tie_word_embeddings", true);
  require_bool(r, "do_layer_norm_before", true,
               "OPT-350m's post-LayerNorm layers are not modelled");
  require_bool(r, "_remove_final_layer_norm", false, "a model without its final LayerNorm");
  require_bool(r, "layer_norm_elementwise_affine", true, "LayerNorms without weights");
  if (optional_number(r, "layerdrop", 0, {.min = 0, .max = 1}) > 0) {
    r.report("layerdrop", Severity::kError, "not-modelled",
             "a layer drop probability above 0 is not supported; expected 0 (zerosim runs every "
             "layer every step)");
  }
  if (!vocab || !h || !layers || !heads || !ffn || !positions || !proj) return;
  if (*proj != 0 && *proj != *h) {
    r.report("word_embed_proj_dim", Severity::kError, "not-modelled",
             std::to_string(*proj) + " is not supported; expected null or hidden_size = " +
                 std::to_string(*h) + " (project_in and project_out are not modelled)");
    return;
  }
  if (!check_divides(r, "num_attention_heads", *heads, "hidden_size", *h)) return;
  set_learned_layernorm_model(*vocab, *h, *layers, *heads, *ffn, *positions, spec);
  spec->position_offset = 2;
}

// The HF config defaults that differ between the SwiGLU families.
struct FamilyDefaults {
  std::int64_t kv_heads;  // 0 = num_attention_heads
  std::int64_t max_positions;
  std::int64_t head_dim;  // 0 = hidden_size / num_attention_heads
};
FamilyDefaults family_defaults(ModelType type) {
  switch (type) {
    case ModelType::kMistral:
      return {8, 4096 * 32, 0};
    case ModelType::kQwen2:
      return {32, 32768, 0};
    case ModelType::kQwen3:
      // configuration_qwen3.py: num_key_value_heads 32 (None: the heads), head_dim 128.
      return {32, 32768, 128};
    case ModelType::kMixtral:  // configuration_mixtral.py
      return {8, 4096 * 32, 0};
    case ModelType::kQwen3Moe:
      // configuration_qwen3_moe.py: num_key_value_heads 4; no head_dim attribute, so
      // Qwen3MoeAttention takes hidden_size / num_attention_heads.
      return {4, 32768, 0};
    case ModelType::kQwen2Moe:  // configuration_qwen2_moe.py: num_key_value_heads 16
      return {16, 32768, 0};
    case ModelType::kGemma:  // configuration_gemma.py
      return {16, 8192, 256};
    case ModelType::kGemma2:  // configuration_gemma2.py
      return {4, 8192, 256};
    case ModelType::kGemma3Text:  // configuration_gemma3.py Gemma3TextConfig
      return {4, 131072, 256};
    case ModelType::kPhi3:
      // configuration_phi3.py: num_key_value_heads None (the heads), max_position_embeddings
      // 4096; Phi3Attention takes getattr(config, "head_dim", hidden_size // heads).
      return {0, 4096, 0};
    default:
      return {0, 2048, 0};
  }
}

// Mistral's and Mixtral's sliding_window, or Qwen2's and Qwen3's when use_sliding_window is true;
// null means none (MixtralConfig's default; MistralConfig's is 4096).
std::int64_t sliding_window(ObjectReader& r, ModelType type) {
  if (type == ModelType::kLlama || type == ModelType::kGemma) return 0;
  // MixtralConfig's and Phi3Config's default is None.
  if ((type == ModelType::kMixtral || type == ModelType::kPhi3) && !r.has("sliding_window")) {
    return 0;
  }
  const bool use_flag = type == ModelType::kQwen2 || type == ModelType::kQwen3 ||
                        type == ModelType::kQwen3Moe || type == ModelType::kQwen2Moe;
  if (use_flag && !optional_bool(r, "use_sliding_window", false)) return 0;
  if (r.has("sliding_window") && r.raw("sliding_window")->is_null()) return 0;
  return optional_size(r, "sliding_window", 4096, kMaxPositions).value_or(0);
}

// MixtralConfig's experts: num_local_experts 8, num_experts_per_tok 2 by default, the top-k
// weights always renormalised. Qwen3MoeConfig's: num_experts 128, num_experts_per_tok 8,
// renormalised when norm_topk_prob (false by default); Qwen2MoeConfig's num_experts 60,
// num_experts_per_tok 4, norm_topk_prob false and a shared expert of
// shared_expert_intermediate_size 5632. Both have every layer sparse unless
// decoder_sparse_step or mlp_only_layers make some dense (not modelled: an error). The router's
// jitter (Mixtral's training-time multiply of the block's input by uniform noise) and the
// auxiliary load-balancing loss (output_router_logits) add elementwise work over t·h and t·E
// that zerosim does not price: each is a warning when on.
void read_moe(ObjectReader& r, ModelType type, ModelSpec* spec) {
  const bool mixtral = type == ModelType::kMixtral;
  const char* experts_key = mixtral ? "num_local_experts" : "num_experts";
  const bool qwen2 = type == ModelType::kQwen2Moe;
  const auto experts = optional_size(r, experts_key, mixtral ? 8 : qwen2 ? 60 : 128, kMaxExperts);
  const auto top_k = optional_size(r, "num_experts_per_tok",
                                   mixtral ? 2
                                   : qwen2 ? 4
                                           : 8,
                                   kMaxExperts);
  const auto shared =
      qwen2 ? optional_size(r, "shared_expert_intermediate_size", 5632, kMaxIntermediateSize)
            : std::optional<std::int64_t>(0);
  const bool normalize = mixtral || optional_bool(r, "norm_topk_prob", false);
  if (!mixtral) {
    const auto step = optional_size(r, "decoder_sparse_step", 1, kMaxLayers);
    if (step && *step != 1) {
      r.report("decoder_sparse_step", Severity::kError, "not-modelled",
               std::to_string(*step) +
                   " is not supported; expected 1 (every layer a MoE block: zerosim does not "
                   "model a mix of dense and sparse layers yet)");
    }
    if (r.has("mlp_only_layers")) {
      const Json* v = r.raw("mlp_only_layers");
      if (!v->is_null() && !(v->is_array() && v->empty())) {
        r.report("mlp_only_layers", Severity::kError, "not-modelled",
                 v->dump() +
                     " is not supported; expected [] (every layer a MoE block: zerosim does "
                     "not model a mix of dense and sparse layers yet)");
      }
    }
  }
  if (optional_number(r, "router_jitter_noise", 0, {.min = 0}) > 0) {
    r.report("router_jitter_noise", Severity::kWarning, "not-modelled",
             "the router's input jitter (one elementwise multiply over t x h per layer and pass) "
             "is not priced");
  }
  if (optional_bool(r, "output_router_logits", false)) {
    r.report("output_router_logits", Severity::kWarning, "not-modelled",
             "the auxiliary load-balancing loss over every layer's router logits (t x E) is not "
             "priced");
  }
  if (!experts || !top_k || !shared) return;
  if (*top_k > *experts) {
    r.report("num_experts_per_tok", Severity::kError, "out-of-range",
             std::to_string(*top_k) + " is not allowed; expected at most " + experts_key + " = " +
                 std::to_string(*experts));
    return;
  }
  spec->moe = {.num_experts = *experts,
               .experts_per_token = *top_k,
               .normalize_top_k = normalize,
               .shared_expert_size = *shared,
               .shared_expert_gate = qwen2};
}

// modeling_phi3.py: every Linear is bias=False (attention_bias, which Phi-4's config.json states,
// is read by nothing); Phi3DecoderLayer's resid_attn_dropout and resid_mlp_dropout take
// resid_pdrop; Phi3Model applies no embedding dropout, so embd_pdrop changes nothing; RoPE
// rotates the first partial_rotary_factor of each head (apply_rotary_pos_emb's q_rot, q_pass).
void read_phi3(ObjectReader& r, ModelSpec* spec) {
  spec->bias = {};
  spec->dropout.resid = probability(r, "resid_pdrop", 0);
  if (probability(r, "embd_pdrop", 0) > 0) {
    r.report("embd_pdrop", Severity::kWarning, "no-effect",
             "Phi3Model applies no embedding dropout (transformers 5.16 modeling_phi3.py); "
             "zerosim models none");
  }
  spec->partial_rotary_factor =
      rope_parameter(r, "partial_rotary_factor", 1.0, {.min = 0, .max = 1, .min_exclusive = true});
}

// modeling_gemma.py, modeling_gemma2.py, modeling_gemma3.py: the embedding scaled by
// sqrt(hidden_size), q/k/v and o_proj taking attention_bias, the LM head tied by default; Gemma 2
// and 3 normalize each sublayer's output too, and soft-cap the logits (final_logit_softcapping:
// Gemma2Config's 30, Gemma3TextConfig's None); Gemma 2 the attention scores
// (attn_logit_softcapping, 50), which Gemma3Attention does not pass on; Gemma 3 norms each
// head's query and key. A null cap is none.
void read_gemma(ObjectReader& r, ModelType type, ModelSpec* spec) {
  const bool gemma2 = type == ModelType::kGemma2, gemma3 = type == ModelType::kGemma3Text;
  const bool attention_bias = optional_bool(r, "attention_bias", false);
  spec->bias = {.qkv = attention_bias, .attn_out = attention_bias};
  spec->scaled_embedding = true;
  spec->sandwich_norms = gemma2 || gemma3;
  spec->qk_norm = gemma3;
  auto cap = [&r](const char* key, double fallback) {
    if (r.has(key) && r.raw(key)->is_null()) return 0.0;
    return optional_number(r, key, fallback, {.min = 0, .min_exclusive = true});
  };
  if (gemma2 || gemma3) spec->logit_softcap = cap("final_logit_softcapping", gemma2 ? 30.0 : 0.0);
  if (gemma2) spec->attn_softcap = cap("attn_logit_softcapping", 50.0);
  if (gemma3 && cap("attn_logit_softcapping", 0.0) > 0) {
    r.report("attn_logit_softcapping", Severity::kWarning, "no-effect",
             "Gemma3Attention applies no attention soft-capping (transformers 5.16 "
             "modeling_gemma3.py); zerosim models none");
  }
  // GemmaConfig's and Gemma2Config's default is None, which a saved config writes as null.
  const bool null_bidirectional =
      r.has("use_bidirectional_attention") && r.raw("use_bidirectional_attention")->is_null();
  if (!null_bidirectional && optional_bool(r, "use_bidirectional_attention", false)) {
    r.report("use_bidirectional_attention", Severity::kError, "not-modelled",
             "true is not supported; expected false or null (zerosim models causal language "
             "models)");
  }
}

// modeling_gpt_neox.py GPTNeoXForCausalLM: embed_in, emb_dropout, layers of LayerNorms, one
// query_key_value (attention_bias), dense, and a GELU MLP with biases, in parallel by default
// (use_parallel_residual), final_layer_norm, an untied lm_head. GPTNeoXConfig takes the rotated
// share from rotary_pct (0.25) and RoPE's base from rotary_emb_base (10000) when rope_parameters
// does not say; hidden_dropout drops out the embeddings and both branches' outputs.
void read_gpt_neox(ObjectReader& r, ModelSpec* spec) {
  const auto [vocab, h, layers, heads] = required_sizes(r, kSizeKeys);
  const auto inner = required_size(r, "intermediate_size", kMaxIntermediateSize);
  const auto positions = optional_size(r, "max_position_embeddings", 2048, kMaxPositions);
  spec->activation = activation(r, "hidden_act", "gelu");
  const double hidden_dropout = probability(r, "hidden_dropout", 0);
  spec->dropout = {.embd = hidden_dropout,
                   .attn = probability(r, "attention_dropout", 0),
                   .resid = hidden_dropout};
  const bool attention_bias = optional_bool(r, "attention_bias", true);
  spec->bias = {.qkv = attention_bias, .attn_out = attention_bias, .mlp = true};
  spec->norm_eps = optional_number(r, "layer_norm_eps", 1e-5, {.min = 0, .min_exclusive = true});
  spec->tie_word_embeddings = optional_bool(r, "tie_word_embeddings", false);
  spec->parallel_residual = optional_bool(r, "use_parallel_residual", true);
  spec->partial_rotary_factor = rope_parameter(
      r, "partial_rotary_factor", 0.25, {.min = 0, .max = 1, .min_exclusive = true}, "rotary_pct");
  spec->rope_theta = rope_parameter(r, "rope_theta", 10000.0, {.min = 0, .min_exclusive = true},
                                    "rotary_emb_base");
  if (!vocab || !h || !layers || !heads || !inner || !positions) return;
  if (!check_divides(r, "num_attention_heads", *heads, "hidden_size", *h)) return;
  set_learned_layernorm_model(*vocab, *h, *layers, *heads, *inner, *positions, spec);
  spec->position = PositionKind::kRotary;
}

// modeling_falcon.py FalconForCausalLM: parallel_attn (attention and MLP side by side; in
// Falcon-7B's layout on one input_layernorm's output), multi_query (one key/value head; every
// head's own without it), rotary positions, query_key_value and dense without biases unless
// bias, the MLP ffn_hidden_size (4h) wide, hidden_dropout before the residual add.
// attention_dropout is read by nothing on the rotary path (neither the eager softmax nor SDPA,
// dropout_p 0.0). new_decoder_architecture (Falcon-40B's and -180B's): num_kv_heads groups of
// query heads in query_key_value (multi_query ignored), their keys and values copied out to every
// head, and num_ln_in_parallel_attn norms (null: 2, ln_attn and ln_mlp; 1: input_layernorm).
// Refused: alibi, parallel_attn false.
void read_falcon(ObjectReader& r, ModelSpec* spec) {
  const auto vocab = optional_size(r, "vocab_size", 65024, kMaxVocabSize);
  const auto h =
      optional_size(r, r.has("n_embed") ? "n_embed" : "hidden_size", 4544, kMaxHiddenSize);
  const auto layers = optional_size(r, "num_hidden_layers", 32, kMaxLayers);
  const auto heads = optional_size(r, "num_attention_heads", 71, kMaxHiddenSize);
  const auto positions = optional_size(r, "max_position_embeddings", 2048, kMaxPositions);
  const auto ffn = optional_size(r, "ffn_hidden_size", 0, kMaxIntermediateSize);
  spec->activation = activation(r, "activation", "gelu");
  spec->norm_eps =
      optional_number(r, "layer_norm_epsilon", 1e-5, {.min = 0, .min_exclusive = true});
  probability(r, "attention_dropout", 0);
  spec->dropout = {.resid = probability(r, "hidden_dropout", 0)};
  spec->tie_word_embeddings = optional_bool(r, "tie_word_embeddings", true);
  const bool bias = optional_bool(r, "bias", false);
  spec->bias = {.qkv = bias, .attn_out = bias, .mlp = bias};
  const bool multi_query = optional_bool(r, "multi_query", true);
  spec->rope_theta = rope_parameter(r, "rope_theta", 10000.0, {.min = 0, .min_exclusive = true});
  const bool grouped = optional_bool(r, "new_decoder_architecture", false);
  // FalconConfig: num_kv_heads null is num_attention_heads; FalconDecoderLayer: a null
  // num_ln_in_parallel_attn is 2 in the new architecture.
  const auto groups = optional_size(r, "num_kv_heads", 0, kMaxHiddenSize);
  const auto norms = optional_size(r, "num_ln_in_parallel_attn", grouped ? 2 : 1, 2);
  require_bool(r, "alibi", false, "Falcon's ALiBi variants are not modelled");
  require_bool(r, "parallel_attn", true,
               "Falcon with attention and MLP in sequence is not modelled");
  if (!vocab || !h || !layers || !heads || !positions || !ffn || !groups || !norms) return;
  if (!check_divides(r, "num_attention_heads", *heads, "hidden_size", *h)) return;
  const std::int64_t kv = *groups > 0 ? *groups : *heads;
  if (grouped && !check_divides(r, "num_kv_heads", kv, "num_attention_heads", *heads)) return;
  set_learned_layernorm_model(*vocab, *h, *layers, *heads, *ffn > 0 ? *ffn : 4 * *h, *positions,
                              spec);
  spec->position = PositionKind::kRotary;
  spec->num_kv_heads = grouped ? kv : multi_query ? 1 : *heads;
  spec->kv_copied_per_head = grouped;
  spec->parallel_residual = true;
  // Falcon-7B's layout has one norm whatever num_ln_in_parallel_attn says.
  spec->parallel_shared_norm = !grouped || *norms == 1;
}

void read_llama_family(ObjectReader& r, ModelType type, ModelSpec* spec) {
  const FamilyDefaults defaults = family_defaults(type);
  const auto [vocab, h, layers, heads] = required_sizes(r, kSizeKeys);
  // Qwen3-MoE's and Qwen2-MoE's experts are moe_intermediate_size wide; their intermediate_size
  // is the dense MLP's, which no layer has when every layer is sparse.
  const bool qwen3_moe = type == ModelType::kQwen3Moe, qwen2_moe = type == ModelType::kQwen2Moe;
  const auto inner =
      qwen3_moe || qwen2_moe
          ? optional_size(r, "moe_intermediate_size", qwen3_moe ? 768 : 1408, kMaxIntermediateSize)
          : required_size(r, "intermediate_size", kMaxIntermediateSize);
  if (qwen3_moe || qwen2_moe) {
    optional_size(r, "intermediate_size", qwen3_moe ? 6144 : 5632, kMaxIntermediateSize);
  }
  const auto positions =
      optional_size(r, "max_position_embeddings", defaults.max_positions, kMaxPositions);
  // Gemma2Config and Gemma3TextConfig name the MLP's activation hidden_activation.
  const bool gemma = is_gemma(*spec);
  spec->activation =
      activation(r, gemma && type != ModelType::kGemma ? "hidden_activation" : "hidden_act",
                 gemma ? "gelu_pytorch_tanh" : "silu");
  spec->dropout = {.attn = probability(r, "attention_dropout", 0)};
  // MixtralConfig's defaults: rms_norm_eps 1e-5, rope theta 1e6; Phi3Config's 1e-5 and 10000;
  // the others' 1e-6 and 10000.
  const bool mixtral = type == ModelType::kMixtral, phi3 = type == ModelType::kPhi3;
  spec->norm_eps = optional_number(r, "rms_norm_eps", mixtral || phi3 ? 1e-5 : 1e-6,
                                   {.min = 0, .min_exclusive = true});
  // Gemma3TextConfig's full-attention layers' rope_theta is 1e6 (its sliding layers' 10000).
  const bool million = mixtral || type == ModelType::kGemma3Text;
  spec->rope_theta =
      rope_parameter(r, "rope_theta", million ? 1e6 : 10000.0, {.min = 0, .min_exclusive = true});
  spec->tie_word_embeddings = optional_bool(r, "tie_word_embeddings", gemma);
  spec->sliding_window = sliding_window(r, type);
  if (type == ModelType::kLlama) {
    const bool attention_bias = optional_bool(r, "attention_bias", false);
    spec->bias = {.qkv = attention_bias,
                  .attn_out = attention_bias,
                  .mlp = optional_bool(r, "mlp_bias", false)};
  } else if (type == ModelType::kQwen3 || qwen3_moe) {
    // Qwen3Attention (Qwen3MoeAttention alike): q/k/v and o_proj take attention_bias; the MLP
    // and the experts have none.
    const bool attention_bias = optional_bool(r, "attention_bias", false);
    spec->bias = {.qkv = attention_bias, .attn_out = attention_bias};
    spec->qk_norm = true;
  } else if (qwen2_moe) {
    // Qwen2MoeAttention: q/k/v take qkv_bias (true by default), o_proj none.
    spec->bias = {.qkv = optional_bool(r, "qkv_bias", true)};
  } else if (phi3) {
    read_phi3(r, spec);
  } else if (gemma) {
    read_gemma(r, type, spec);
  } else {
    spec->bias = {.qkv = type == ModelType::kQwen2};  // Qwen2Attention: q/k/v bias=True
  }
  if (mixtral || qwen3_moe || qwen2_moe) read_moe(r, type, spec);
  // 0 stands for num_attention_heads (an explicit null, or llama's absent key) and for a
  // derived head_dim.
  const bool kv_given = r.has("num_key_value_heads");
  const auto kv_raw =
      kv_given ? optional_size(r, "num_key_value_heads", 0, kMaxHiddenSize) : defaults.kv_heads;
  const auto head_dim_raw = optional_size(r, "head_dim", defaults.head_dim, kMaxHiddenSize);
  if (!vocab || !h || !layers || !heads || !inner || !positions || !kv_raw || !head_dim_raw) {
    return;
  }
  const std::int64_t kv = *kv_raw > 0 ? *kv_raw : *heads;
  if (*head_dim_raw == 0 && !check_divides(r, "num_attention_heads", *heads, "hidden_size", *h)) {
    return;
  }
  const std::string why =
      kv_given ? "" : " (absent, so the " + std::string(model_type_name(type)) + " default)";
  if (!check_divides(r, "num_key_value_heads", kv, "num_attention_heads", *heads, why)) return;
  spec->vocab_size = *vocab;
  spec->hidden_size = *h;
  spec->num_layers = *layers;
  spec->num_heads = *heads;
  spec->num_kv_heads = kv;
  spec->head_dim = *head_dim_raw > 0 ? *head_dim_raw : *h / *heads;
  spec->intermediate_size = *inner;
  spec->max_position_embeddings = *positions;
  spec->position = PositionKind::kRotary;
  spec->norm = NormKind::kRmsNorm;
  spec->mlp = MlpKind::kSwiGlu;
  if (spec->moe.enabled() && expert_parameters(*spec) > static_cast<double>(kMaxExpertParameters)) {
    char total[32];
    std::snprintf(total, sizeof total, "%.3g", expert_parameters(*spec));
    const char* key = type == ModelType::kMixtral ? "num_local_experts" : "num_experts";
    r.report(key, Severity::kError, "out-of-range",
             std::to_string(spec->moe.num_experts) + " experts of 3 x " + std::to_string(*h) +
                 " x " + std::to_string(*inner) + " over " + std::to_string(*layers) +
                 " layers make " + total + " parameters; expected at most " +
                 std::to_string(kMaxExpertParameters) + " (2^52) in all");
  }
}

// config.json's torch_dtype (transformers 5 writes dtype), in zerosim's names; "" when absent
// or not one of the three training dtypes.
std::string checkpoint_dtype(ObjectReader& r) {
  for (const char* key : {"dtype", "torch_dtype"}) {
    if (!r.has(key)) continue;
    const Json* v = r.raw(key);
    if (!v->is_string()) continue;
    const std::string& s = v->get_ref<const std::string&>();
    if (s == "float32") return "fp32";
    if (s == "bfloat16") return "bf16";
    if (s == "float16") return "fp16";
  }
  return "";
}

void read_config(const json::Document& doc, ObjectReader& r, ModelSpec* spec) {
  spec->name = doc.source;
  if (r.has("_name_or_path")) {
    const Json* n = r.raw("_name_or_path");
    if (n->is_string() && !n->get_ref<const std::string&>().empty()) {
      spec->name = n->get<std::string>();
    }
  }
  spec->hf_repo = spec->name;
  spec->checkpoint_dtype = checkpoint_dtype(r);
  if (!r.has("model_type")) {
    r.report("model_type", Severity::kError, "missing-key",
             "required key is missing; expected one of " + known_types(", "));
    return;
  }
  if (const Json* v = r.raw("model_type"); v->is_string()) {
    const std::string& name = v->get_ref<const std::string&>();
    for (const Unmodelled& u : kUnmodelled) {
      if (name != u.type) continue;
      r.report("model_type", Severity::kError, "unmodelled-model",
               "\"" + name + "\" (" + std::string(u.what) +
                   ") is not modelled yet; zerosim models " + known_types(" and ") +
                   ", and would mispredict it as any of them");
      return;
    }
  }
  const auto type = r.get_enum("model_type", model_type_names());
  if (!type) return;
  const auto names = model_type_names();
  spec->model_type =
      static_cast<ModelType>(std::find(names.begin(), names.end(), *type) - names.begin());
  if (spec->model_type == ModelType::kGpt2) {
    read_gpt2(r, spec);
  } else if (spec->model_type == ModelType::kOpt) {
    read_opt(r, spec);
  } else if (spec->model_type == ModelType::kGptNeox) {
    read_gpt_neox(r, spec);
  } else if (spec->model_type == ModelType::kDebertaV2) {
    hf::read_deberta(r, spec);
  } else if (is_encoder(*spec)) {
    hf::read_bert(r, spec);
  } else if (spec->model_type == ModelType::kT5) {
    hf::read_t5(r, spec);
  } else if (spec->model_type == ModelType::kBloom) {
    hf::read_bloom(r, spec);
  } else if (spec->model_type == ModelType::kFalcon) {
    read_falcon(r, spec);
  } else if (is_deepseek(*spec)) {
    hf::read_deepseek(r, spec);
  } else if (spec->model_type == ModelType::kBlenderbot || spec->model_type == ModelType::kBart) {
    hf::read_blenderbot(r, spec);
  } else {
    read_llama_family(r, spec->model_type, spec);
  }
}

void warn_relaxations(const json::Document& doc, Diagnostics* warnings) {
  const json::Relaxations& rx = doc.relaxations;
  if (rx.comments.empty() && rx.trailing_commas.empty()) return;
  const SourcePos pos = rx.comments.empty() ? rx.trailing_commas.front() : rx.comments.front();
  warnings->add({Severity::kWarning, "not-strict-json", "", pos,
                 "the file has comments or trailing commas; zerosim accepts them, but "
                 "transformers reads config.json with json.load, which rejects them",
                 ""});
}

}  // namespace

Result<ModelSpec> hf_config_from_document(const json::Document& doc, Diagnostics* warnings) {
  Diagnostics diags;
  ObjectReader r(doc, doc.root, "", &diags);
  // transformers' config classes are strict dataclasses (5.4 on: `Field 'hidden_size' expected
  // int, got str`); before that, LlamaConfig.__init__'s hidden_size // num_attention_heads raised
  // a TypeError on a string.
  r.set_strict(
      "transformers' config classes reject a number written as a string, and a float "
      "where they expect an int");
  ModelSpec spec;
  if (r.valid()) read_config(doc, r, &spec);
  if (diags.has_errors()) return errors_to_status(diags, doc.source);
  if (warnings != nullptr) {
    for (const Diagnostic& d : diags.items()) warnings->add(d);
    warn_relaxations(doc, warnings);
  }
  // The reader checks every field validate() does; this is a backstop, not a second opinion.
  ZS_RETURN_IF_ERROR(validate(spec).with_context(doc.source));
  return spec;
}

Result<ModelSpec> load_hf_config(const std::string& path, Diagnostics* warnings) {
  ZS_ASSIGN_OR_RETURN(const json::Document doc, json::parse_file(path));
  return hf_config_from_document(doc, warnings);
}

}  // namespace zs::models
