#include "models/model_spec.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "common/units.h"

namespace zs::models {
namespace {

// transformers/activations.py ACT2CLS keys (v4.40+).
constexpr std::string_view kActivations[] = {
    "gelu",          "gelu_10", "gelu_fast",  "gelu_new", "gelu_python", "gelu_pytorch_tanh",
    "gelu_accurate", "laplace", "leaky_relu", "linear",   "mish",        "quick_gelu",
    "relu",          "relu2",   "relu6",      "sigmoid",  "silu",        "swish",
    "tanh"};

// model_type_name's strings in ModelType order.
constexpr std::string_view kModelTypeNames[] = {
    "gpt2",      "llama",     "mistral", "qwen2",       "qwen3",       "mixtral",
    "qwen3_moe", "qwen2_moe", "phi3",    "gemma",       "gemma2",      "gemma3_text",
    "opt",       "gpt_neox",  "bert",    "t5",          "blenderbot",  "roberta",
    "bart",      "bloom",     "falcon",  "deepseek_v2", "deepseek_v3", "deberta-v2"};
// One name per ModelType: a family added to the enum is added here.
static_assert(std::size(kModelTypeNames) == static_cast<std::size_t>(ModelType::kDebertaV2) + 1);

constexpr std::string_view kHeadKindNames[] = {"causal_lm", "masked_lm", "question_answering",
                                               "sequence_classification"};
static_assert(std::size(kHeadKindNames) ==
              static_cast<std::size_t>(HeadKind::kSequenceClassification) + 1);
// BERT's token types (BertConfig type_vocab_size: 2; RoBERTa's 1) and head outputs: far past any
// checkpoint's, small enough that no count built from them overflows.
constexpr std::int64_t kMaxTokenTypes = 16;
constexpr std::int64_t kMaxLabels = 1024;
constexpr std::int64_t kMaxRelativeBuckets = 1024;  // T5's 32

Status field_error(const ModelSpec& spec, std::string_view field, const std::string& value,
                   std::string_view allowed) {
  return Status::invalid_argument("model \"" + spec.name + "\": " + std::string(field) + " = " +
                                  value + " is not allowed; expected " + std::string(allowed));
}

Status structure_error(const ModelSpec& spec, std::string_view what) {
  return Status::invalid_argument("model \"" + spec.name + "\": model_type \"" +
                                  std::string(model_type_name(spec.model_type)) + "\" " +
                                  std::string(what));
}

// The Gemma families' own pieces (the table in model_spec.h): a scaled embedding for all three;
// sandwich norms and logit soft-capping for gemma2 and gemma3_text; attention soft-capping for
// gemma2 alone (Gemma3Attention passes no softcap to its attention function).
Status validate_gemma(const ModelSpec& spec) {
  const bool gemma = is_gemma(spec);
  const bool sandwich =
      spec.model_type == ModelType::kGemma2 || spec.model_type == ModelType::kGemma3Text;
  // Blenderbot's scale_embedding is a config key (true for its checkpoints).
  if (spec.scaled_embedding && !gemma && spec.model_type != ModelType::kBlenderbot &&
      spec.model_type != ModelType::kBart) {
    return structure_error(
        spec, "has no scaled embedding (the gemma families', blenderbot's and bart's)");
  }
  if (gemma && !spec.scaled_embedding) {
    return structure_error(spec, "scales its embedding by sqrt(hidden_size)");
  }
  if (spec.sandwich_norms != sandwich) {
    return structure_error(spec, sandwich ? "normalizes each sublayer's output (sandwich_norms)"
                                          : "has no sandwich norms (gemma2's and gemma3_text's)");
  }
  const std::pair<std::string_view, double> caps[] = {{"attn_softcap", spec.attn_softcap},
                                                      {"logit_softcap", spec.logit_softcap}};
  for (const auto& [field, cap] : caps) {
    if (!(cap >= 0) || !std::isfinite(cap)) {
      return field_error(spec, field, format_double(cap), "0 (none) or a finite cap > 0");
    }
  }
  if (spec.attn_softcap > 0 && spec.model_type != ModelType::kGemma2) {
    return field_error(spec, "attn_softcap", format_double(spec.attn_softcap),
                       "0 (attention soft-capping is gemma2's)");
  }
  if (spec.logit_softcap > 0 && !sandwich) {
    return field_error(spec, "logit_softcap", format_double(spec.logit_softcap),
                       "0 (logit soft-capping is gemma2's and gemma3_text's)");
  }
  return Status::ok();
}

// DeBERTa-v2's pieces past BERT's (model_spec.h DisentangledSpec): no token types, the
// classification head.
Status validate_deberta(const ModelSpec& spec) {
  const DisentangledSpec& d = spec.disentangled;
  if (d.span < 1 || d.span > kMaxPositions) {
    return field_error(spec, "disentangled.span", std::to_string(d.span),
                       "an integer from 1 to " + std::to_string(kMaxPositions));
  }
  if (!d.norm_table) {
    return structure_error(spec,
                           "normalizes its relative-position table (norm_rel_ebd "
                           "\"layer_norm\")");
  }
  if (d.conv_kernel < 0 || d.conv_kernel > 64) {
    return field_error(spec, "disentangled.conv_kernel", std::to_string(d.conv_kernel),
                       "0 (no ConvLayer) or an integer from 1 to 64");
  }
  const auto acts = known_activations();
  if (std::find(acts.begin(), acts.end(), d.conv_act) == acts.end()) {
    return field_error(spec, "disentangled.conv_act", "\"" + d.conv_act + "\"",
                       "an activation HF's ACT2FN knows");
  }
  if (spec.type_vocab_size != 0) {
    return field_error(spec, "type_vocab_size", std::to_string(spec.type_vocab_size),
                       "0 (deberta-v2 is modelled without token types)");
  }
  if (spec.head != HeadKind::kSequenceClassification) {
    return field_error(spec, "head", std::string(head_kind_name(spec.head)),
                       "sequence_classification (DebertaV2ForSequenceClassification)");
  }
  if (spec.num_labels < 1 || spec.num_labels > kMaxLabels) {
    return field_error(spec, "num_labels", std::to_string(spec.num_labels),
                       "an integer from 1 to " + std::to_string(kMaxLabels));
  }
  return Status::ok();
}

// BERT's and RoBERTa's pieces (the table in model_spec.h): learned positions, LayerNorm after each
// residual add, a two-matrix MLP, every head splitting hidden_size, token types and an encoder's
// head; no other family has post_norm, token types or another head than the causal LM's.
Status validate_encoder(const ModelSpec& spec) {
  if (!is_encoder(spec)) {
    if (spec.post_norm && spec.model_type != ModelType::kBart) {
      return structure_error(spec,
                             "normalizes before each sublayer (post_norm is bert's and roberta's)");
    }
    if (spec.type_vocab_size != 0) {
      return field_error(spec, "type_vocab_size", std::to_string(spec.type_vocab_size),
                         "0 (token types are bert's and roberta's)");
    }
    if (spec.head != HeadKind::kCausalLm) {
      return field_error(spec, "head", std::string(head_kind_name(spec.head)),
                         "causal_lm (a decoder is trained as a causal LM)");
    }
    return Status::ok();
  }
  const bool deberta = spec.model_type == ModelType::kDebertaV2;
  const PositionKind positions = deberta ? PositionKind::kDisentangled : PositionKind::kLearned;
  if (spec.position != positions || spec.norm != NormKind::kLayerNorm ||
      spec.mlp != MlpKind::kGelu || !spec.post_norm) {
    return structure_error(spec, std::string(deberta ? "has disentangled" : "has learned") +
                                     " positions, LayerNorm after each residual add (post_norm) "
                                     "and a two-matrix MLP");
  }
  if (deberta) return validate_deberta(spec);
  if (spec.num_kv_heads != spec.num_heads || spec.q_dim() != spec.hidden_size) {
    return structure_error(spec, "has num_heads heads of hidden_size / num_heads for q, k and v");
  }
  if (spec.qk_norm || spec.moe.enabled() || spec.parallel_residual ||
      spec.partial_rotary_factor != 1.0) {
    return structure_error(spec,
                           "has no q/k norms, no experts, no parallel residual and no rotary "
                           "embedding");
  }
  if (spec.type_vocab_size < 1 || spec.type_vocab_size > kMaxTokenTypes) {
    return field_error(spec, "type_vocab_size", std::to_string(spec.type_vocab_size),
                       "an integer from 1 to " + std::to_string(kMaxTokenTypes));
  }
  if (spec.head == HeadKind::kCausalLm) {
    return field_error(spec, "head", "causal_lm",
                       "masked_lm, question_answering or sequence_classification (an encoder's "
                       "heads)");
  }
  if (spec.num_labels < 1 || spec.num_labels > kMaxLabels) {
    return field_error(spec, "num_labels", std::to_string(spec.num_labels),
                       "an integer from 1 to " + std::to_string(kMaxLabels));
  }
  return Status::ok();
}

// T5's pieces (the table in model_spec.h); no other family has decoder layers or relative
// positions.
Status validate_encoder_decoder(const ModelSpec& spec) {
  if (!is_encoder_decoder(spec)) {
    if (spec.num_decoder_layers != 0) {
      return field_error(spec, "num_decoder_layers", std::to_string(spec.num_decoder_layers),
                         "0 (decoder layers are an encoder-decoder's, t5's)");
    }
    if (spec.position == PositionKind::kRelativeBias) {
      return structure_error(spec, "has no relative-position bias (t5's)");
    }
    return Status::ok();
  }
  const bool t5 = spec.model_type == ModelType::kT5;
  if (t5 && (spec.position != PositionKind::kRelativeBias || spec.norm != NormKind::kRmsNorm)) {
    return structure_error(spec, "has relative-position bias and RMSNorm (T5LayerNorm)");
  }
  if (!t5 && (spec.position != PositionKind::kLearned || spec.norm != NormKind::kLayerNorm ||
              spec.mlp != MlpKind::kGelu)) {
    return structure_error(spec, "has learned positions, LayerNorm and a two-matrix MLP");
  }
  if (spec.num_decoder_layers < 1 || spec.num_decoder_layers > kMaxLayers) {
    return field_error(spec, "num_decoder_layers", std::to_string(spec.num_decoder_layers),
                       "an integer from 1 to " + std::to_string(kMaxLayers));
  }
  if (!t5 && spec.relative_buckets != 0) {
    return field_error(spec, "relative_buckets", std::to_string(spec.relative_buckets),
                       "0 (relative positions are t5's)");
  }
  if (t5 && (spec.relative_buckets < 1 || spec.relative_buckets > kMaxRelativeBuckets)) {
    return field_error(spec, "relative_buckets", std::to_string(spec.relative_buckets),
                       "an integer from 1 to " + std::to_string(kMaxRelativeBuckets));
  }
  if (spec.num_kv_heads != spec.num_heads || !spec.tie_word_embeddings) {
    return structure_error(spec, "has no GQA and its LM head tied to `shared`");
  }
  if (t5 && (spec.bias.qkv || spec.bias.attn_out || spec.bias.mlp)) {
    return structure_error(spec, "has no linear biases");
  }
  if (spec.qk_norm || spec.moe.enabled() || spec.parallel_residual ||
      spec.partial_rotary_factor != 1.0 || spec.type_vocab_size != 0 ||
      spec.head != HeadKind::kCausalLm) {
    return structure_error(spec,
                           "has no q/k norms, experts, parallel residual, rotary embedding or "
                           "token types, and a causal-LM head over its decoder");
  }
  const bool bart = spec.model_type == ModelType::kBart;
  if (spec.post_norm != bart) {
    return structure_error(spec, bart ? "normalizes after each residual add (post_norm)"
                                      : "normalizes before each sublayer (post_norm is bart's)");
  }
  return Status::ok();
}

// OPT's and BART's offset of 2 (OPTLearnedPositionalEmbedding, BartLearnedPositionalEmbedding),
// RoBERTa's of pad_token_id + 1, none for
// the others.
Status validate_position_offset(const ModelSpec& spec) {
  const std::int64_t o = spec.position_offset;
  const bool two = spec.model_type == ModelType::kOpt || spec.model_type == ModelType::kBart;
  if (two && o != 2) {
    return field_error(spec, "position_offset", std::to_string(o),
                       "2 (OPT's and BART's LearnedPositionalEmbedding offset)");
  }
  if (spec.model_type == ModelType::kRoberta && (o < 1 || o > kMaxPositions)) {
    return field_error(
        spec, "position_offset", std::to_string(o),
        "an integer from 1 to " + std::to_string(kMaxPositions) + " (RoBERTa's pad_token_id + 1)");
  }
  if (!two && spec.model_type != ModelType::kRoberta && o != 0) {
    return field_error(spec, "position_offset", std::to_string(o),
                       "0 (an offset position table is opt's, bart's and roberta's)");
  }
  return Status::ok();
}

// DeepSeek's multi-head latent attention and dense first layers (model_spec.h MlaSpec, MoeSpec).
Status validate_deepseek(const ModelSpec& spec) {
  const bool deepseek = is_deepseek(spec);
  if (spec.mla.enabled() != deepseek) {
    return structure_error(spec, deepseek
                                     ? "has multi-head latent attention (mla.kv_lora_rank >= 1)"
                                     : "has no latent attention (mla is deepseek's)");
  }
  if ((spec.moe.dense_layers != 0 || spec.moe.dense_size != 0) && !deepseek) {
    return structure_error(spec, "has no dense first layers (moe.dense_layers is deepseek's)");
  }
  if (!deepseek) return Status::ok();
  const MlaSpec& a = spec.mla;
  const std::pair<std::string_view, std::int64_t> dims[] = {
      {"mla.kv_lora_rank", a.kv_lora_rank},
      {"mla.qk_nope_head_dim", a.qk_nope_head_dim},
      {"mla.qk_rope_head_dim", a.qk_rope_head_dim},
      {"mla.v_head_dim", a.v_head_dim}};
  for (const auto& [field, v] : dims) {
    if (v < 1 || v > kMaxHiddenSize) {
      return field_error(spec, field, std::to_string(v),
                         "an integer from 1 to " + std::to_string(kMaxHiddenSize));
    }
  }
  if (a.q_lora_rank < 0 || a.q_lora_rank > kMaxHiddenSize) {
    return field_error(spec, "mla.q_lora_rank", std::to_string(a.q_lora_rank),
                       "0 (q_proj) or an integer from 1 to " + std::to_string(kMaxHiddenSize));
  }
  // Every latent and head width within kMaxHiddenSize keeps kv_b_proj's elements (heads x
  // (dn + dv) x kvr) and every count built on them inside 64-bit integers.
  const std::int64_t heads = spec.num_heads;
  if (a.kv_lora_rank + a.qk_rope_head_dim > kMaxHiddenSize ||
      heads * (a.qk_nope_head_dim + a.v_head_dim) > kMaxHiddenSize) {
    return structure_error(spec, "has at most " + std::to_string(kMaxHiddenSize) +
                                     " latent features (mla.kv_lora_rank + mla.qk_rope_head_dim) "
                                     "and at most as many key and value features over its heads");
  }
  if (a.qk_rope_head_dim % 2 != 0) {
    return field_error(spec, "mla.qk_rope_head_dim", std::to_string(a.qk_rope_head_dim),
                       "an even number (RoPE rotates pairs)");
  }
  if (spec.head_dim != a.qk_nope_head_dim + a.qk_rope_head_dim ||
      spec.num_kv_heads != spec.num_heads) {
    return structure_error(spec,
                           "has head_dim = mla.qk_nope_head_dim + mla.qk_rope_head_dim and a key "
                           "and value for every head (num_kv_heads = num_heads)");
  }
  if (spec.moe.dense_layers < 0 || spec.moe.dense_layers > spec.num_layers) {
    return field_error(spec, "moe.dense_layers", std::to_string(spec.moe.dense_layers),
                       "an integer from 0 to num_layers = " + std::to_string(spec.num_layers));
  }
  const bool dense = spec.moe.dense_layers > 0;
  if (dense ? spec.moe.dense_size < 1 || spec.moe.dense_size > kMaxIntermediateSize
            : spec.moe.dense_size != 0) {
    return field_error(spec, "moe.dense_size", std::to_string(spec.moe.dense_size),
                       dense ? "an integer from 1 to " + std::to_string(kMaxIntermediateSize)
                             : std::string("0 (there are no dense layers)"));
  }
  if (spec.moe.shared_expert_gate) {
    return structure_error(spec, "adds its shared experts without a gate");
  }
  return Status::ok();
}

// The module structure each model_type's HF implementation has (the table in model_spec.h).
Status validate_structure(const ModelSpec& spec) {
  ZS_RETURN_IF_ERROR(validate_deepseek(spec));
  if (spec.disentangled != DisentangledSpec{} && spec.model_type != ModelType::kDebertaV2) {
    return structure_error(spec, "has no disentangled attention (deberta-v2's)");
  }
  ZS_RETURN_IF_ERROR(validate_position_offset(spec));
  ZS_RETURN_IF_ERROR(validate_gemma(spec));
  ZS_RETURN_IF_ERROR(validate_encoder(spec));
  ZS_RETURN_IF_ERROR(validate_encoder_decoder(spec));
  const bool falcon = spec.model_type == ModelType::kFalcon;
  if (spec.kv_copied_per_head && !falcon) {
    return structure_error(spec,
                           "keeps its keys and values at num_kv_heads (kv_copied_per_head "
                           "is falcon's)");
  }
  if (spec.parallel_shared_norm && (!spec.parallel_residual || !falcon)) {
    return structure_error(spec,
                           "has no norm shared by a parallel attention and MLP "
                           "(parallel_shared_norm is falcon's, with parallel_residual)");
  }
  if (is_encoder(spec) || is_encoder_decoder(spec)) return Status::ok();
  const bool neox = spec.model_type == ModelType::kGptNeox;
  if (spec.partial_rotary_factor != 1.0 && !neox && spec.model_type != ModelType::kPhi3) {
    return field_error(spec, "partial_rotary_factor", format_double(spec.partial_rotary_factor),
                       "1 (a partial rotary embedding is phi3's and gpt_neox's)");
  }
  if (spec.parallel_residual && !neox && !falcon) {
    return structure_error(spec,
                           "runs its attention and MLP in sequence (parallel_residual is "
                           "gpt_neox's and falcon's)");
  }
  if (falcon) {
    // modeling_falcon.py (Falcon-7B's layout): rotary positions, LayerNorm, query_key_value of
    // the query heads and one key/value head (multi_query) or of every head, dense_h_to_4h and
    // dense_4h_to_h.
    // Falcon-7B's multi-query layout has one key/value head or one per query head; the new
    // decoder architecture any number of groups.
    const bool kv_ok =
        spec.kv_copied_per_head || spec.num_kv_heads == 1 || spec.num_kv_heads == spec.num_heads;
    if (spec.position != PositionKind::kRotary || spec.norm != NormKind::kLayerNorm ||
        spec.mlp != MlpKind::kGelu || spec.q_dim() != spec.hidden_size || !kv_ok ||
        !spec.parallel_residual) {
      return structure_error(spec,
                             "has rotary positions, LayerNorm, a two-matrix MLP beside the "
                             "attention (parallel_residual) and num_heads heads of hidden_size / "
                             "num_heads with one key/value head or one per query head (or, "
                             "kv_copied_per_head, any number of groups)");
    }
    if (spec.qk_norm || spec.moe.enabled() || spec.dropout.embd > 0) {
      return structure_error(spec, "has no q/k norms, no experts and no embedding dropout");
    }
    return Status::ok();
  }
  const bool alibi = spec.position == PositionKind::kAlibi;
  if (alibi != (spec.model_type == ModelType::kBloom)) {
    return structure_error(spec, alibi ? "has no ALiBi (bloom's)" : "has ALiBi positions");
  }
  if (alibi) {
    // modeling_bloom.py: LayerNorm, query_key_value over every head, dense_h_to_4h and
    // dense_4h_to_h of 4 x hidden_size.
    if (spec.norm != NormKind::kLayerNorm || spec.mlp != MlpKind::kGelu ||
        spec.num_kv_heads != spec.num_heads || spec.q_dim() != spec.hidden_size ||
        spec.intermediate_size != 4 * spec.hidden_size) {
      return structure_error(spec,
                             "has LayerNorm, num_heads heads of hidden_size / num_heads for q, k "
                             "and v, and a two-matrix MLP of 4 x hidden_size");
    }
    if (spec.qk_norm || spec.moe.enabled() || spec.dropout.embd > 0) {
      return structure_error(spec, "has no q/k norms, no experts and no embedding dropout");
    }
    return Status::ok();
  }
  if (spec.model_type == ModelType::kGptNeox) {
    // modeling_gpt_neox.py: rotary positions, LayerNorm, dense_h_to_4h and dense_4h_to_h, one
    // query_key_value over every head.
    if (spec.position != PositionKind::kRotary || spec.norm != NormKind::kLayerNorm ||
        spec.mlp != MlpKind::kGelu || spec.num_kv_heads != spec.num_heads ||
        spec.q_dim() != spec.hidden_size) {
      return structure_error(spec,
                             "has rotary positions, LayerNorm, a two-matrix MLP and num_heads "
                             "heads of hidden_size / num_heads for q, k and v");
    }
    if (spec.qk_norm || spec.moe.enabled()) {
      return structure_error(spec, "has no q/k norms and no experts");
    }
    return Status::ok();
  }
  if (spec.model_type == ModelType::kGpt2 || spec.model_type == ModelType::kOpt) {
    if (spec.position != PositionKind::kLearned || spec.norm != NormKind::kLayerNorm ||
        spec.mlp != MlpKind::kGelu) {
      return structure_error(
          spec, "has learned positions, LayerNorm and a two-matrix MLP (MlpKind::kGelu)");
    }
    if (spec.model_type == ModelType::kOpt && spec.dropout.embd > 0) {
      return structure_error(spec, "has no embedding dropout");
    }
    if (spec.num_kv_heads != spec.num_heads || spec.q_dim() != spec.hidden_size) {
      return structure_error(spec,
                             "has num_kv_heads == num_heads and num_heads * head_dim == "
                             "hidden_size; got num_heads " +
                                 std::to_string(spec.num_heads) + ", num_kv_heads " +
                                 std::to_string(spec.num_kv_heads) + ", head_dim " +
                                 std::to_string(spec.head_dim) + ", hidden_size " +
                                 std::to_string(spec.hidden_size));
    }
    return Status::ok();
  }
  if (spec.position != PositionKind::kRotary || spec.norm != NormKind::kRmsNorm ||
      spec.mlp != MlpKind::kSwiGlu) {
    return structure_error(spec, "has rotary positions, RMSNorm and a SwiGLU MLP");
  }
  const bool qk_norm = spec.model_type == ModelType::kQwen3 ||
                       spec.model_type == ModelType::kQwen3Moe ||
                       spec.model_type == ModelType::kGemma3Text;
  if (spec.qk_norm != qk_norm) {
    return structure_error(spec, spec.qk_norm ? "has no q/k norms (qk_norm is qwen3's, qwen3_moe's "
                                                "and gemma3_text's)"
                                              : "has q/k norms (qk_norm)");
  }
  if (spec.model_type == ModelType::kPhi3) {
    // modeling_phi3.py: qkv_proj, o_proj, gate_up_proj and down_proj are bias=False; Phi3Model
    // has no embedding dropout (Phi3Config's embd_pdrop is read by nothing).
    if (spec.bias.qkv || spec.bias.attn_out || spec.bias.mlp) {
      return structure_error(spec, "has no linear biases");
    }
    if (spec.dropout.embd > 0) return structure_error(spec, "has no embedding dropout");
  }
  const bool moe = spec.model_type == ModelType::kMixtral ||
                   spec.model_type == ModelType::kQwen3Moe ||
                   spec.model_type == ModelType::kQwen2Moe || is_deepseek(spec);
  if (spec.moe.enabled() != moe) {
    return structure_error(spec, moe ? "has experts (moe.num_experts >= 1)"
                                     : "has a dense MLP (experts are the MoE families')");
  }
  if (moe) {
    if (spec.moe.num_experts > kMaxExperts) {
      return field_error(spec, "moe.num_experts", std::to_string(spec.moe.num_experts),
                         "an integer from 1 to " + std::to_string(kMaxExperts));
    }
    if (spec.moe.experts_per_token < 1 || spec.moe.experts_per_token > spec.moe.num_experts) {
      return field_error(
          spec, "moe.experts_per_token", std::to_string(spec.moe.experts_per_token),
          "an integer from 1 to moe.num_experts = " + std::to_string(spec.moe.num_experts));
    }
    if (spec.bias.mlp) return structure_error(spec, "has no MLP biases (its experts have none)");
    const bool qwen2 = spec.model_type == ModelType::kQwen2Moe;
    if ((spec.moe.shared_expert_size > 0) != qwen2 && !is_deepseek(spec)) {
      return structure_error(spec, qwen2 ? "has a shared expert (moe.shared_expert_size >= 1)"
                                         : "has no shared expert (qwen2_moe's and deepseek's)");
    }
    if (spec.moe.shared_expert_gate != qwen2) {
      return structure_error(spec, qwen2 ? "gates its shared expert (moe.shared_expert_gate)"
                                         : "has no shared expert gate (qwen2_moe's)");
    }
    if (spec.moe.shared_expert_size < 0) {
      return field_error(spec, "moe.shared_expert_size",
                         std::to_string(spec.moe.shared_expert_size),
                         "0 or an integer up to " + std::to_string(kMaxIntermediateSize));
    }
    if (spec.moe.shared_expert_size > kMaxIntermediateSize) {
      return field_error(spec, "moe.shared_expert_size",
                         std::to_string(spec.moe.shared_expert_size),
                         "an integer from 1 to " + std::to_string(kMaxIntermediateSize));
    }
    if (expert_parameters(spec) > static_cast<double>(kMaxExpertParameters)) {
      return field_error(spec, "moe.num_experts", std::to_string(spec.moe.num_experts),
                         "at most " + std::to_string(kMaxExpertParameters) +
                             " expert parameters in all (num_experts x 3 x hidden_size x "
                             "intermediate_size x the layers with experts)");
    }
  }
  return Status::ok();
}

}  // namespace

double expert_parameters(const ModelSpec& spec) {
  return static_cast<double>(spec.moe.num_experts) * 3 * static_cast<double>(spec.hidden_size) *
         static_cast<double>(spec.intermediate_size) *
         static_cast<double>(spec.num_layers - spec.moe.dense_layers);
}

bool has_experts(const ModelSpec& spec, std::int64_t layer) {
  return spec.moe.enabled() && layer >= spec.moe.dense_layers;
}

bool is_deepseek(const ModelSpec& spec) {
  return spec.model_type == ModelType::kDeepseekV2 || spec.model_type == ModelType::kDeepseekV3;
}

std::string_view model_type_name(ModelType t) {
  const auto i = static_cast<std::size_t>(t);
  ZS_CHECK(i < std::size(kModelTypeNames));
  return kModelTypeNames[i];
}

std::span<const std::string_view> model_type_names() { return kModelTypeNames; }

bool fused_qkv(const ModelSpec& spec) {
  return spec.model_type == ModelType::kGpt2 || spec.model_type == ModelType::kPhi3 ||
         spec.model_type == ModelType::kGptNeox || spec.model_type == ModelType::kBloom ||
         spec.model_type == ModelType::kFalcon;
}

bool supports_sdpa(const ModelSpec& spec) {
  return spec.model_type != ModelType::kBloom && spec.model_type != ModelType::kDebertaV2;
}

bool fused_gate_up(const ModelSpec& spec) { return spec.model_type == ModelType::kPhi3; }

bool is_gemma(const ModelSpec& spec) {
  return spec.model_type == ModelType::kGemma || spec.model_type == ModelType::kGemma2 ||
         spec.model_type == ModelType::kGemma3Text;
}

bool is_encoder(const ModelSpec& spec) {
  return spec.model_type == ModelType::kBert || spec.model_type == ModelType::kRoberta ||
         spec.model_type == ModelType::kDebertaV2;
}

bool is_encoder_decoder(const ModelSpec& spec) {
  return spec.model_type == ModelType::kT5 || spec.model_type == ModelType::kBlenderbot ||
         spec.model_type == ModelType::kBart;
}

std::int64_t total_layers(const ModelSpec& spec) {
  return spec.num_layers + spec.num_decoder_layers;
}

std::string_view head_kind_name(HeadKind k) {
  const auto i = static_cast<std::size_t>(k);
  ZS_CHECK(i < std::size(kHeadKindNames));
  return kHeadKindNames[i];
}

std::string_view norm_kind_name(NormKind k) {
  return k == NormKind::kLayerNorm ? "layernorm" : "rmsnorm";
}

std::string_view mlp_kind_name(MlpKind k) { return k == MlpKind::kGelu ? "gelu" : "swiglu"; }

std::span<const std::string_view> known_activations() { return kActivations; }

Status validate(const ModelSpec& spec) {
  struct Size {
    std::string_view field;
    std::int64_t value;
    std::int64_t max;
  };
  const Size sizes[] = {{"vocab_size", spec.vocab_size, kMaxVocabSize},
                        {"hidden_size", spec.hidden_size, kMaxHiddenSize},
                        {"num_layers", spec.num_layers, kMaxLayers},
                        {"num_heads", spec.num_heads, kMaxHiddenSize},
                        {"num_kv_heads", spec.num_kv_heads, kMaxHiddenSize},
                        {"head_dim", spec.head_dim, kMaxHiddenSize},
                        {"intermediate_size", spec.intermediate_size, kMaxIntermediateSize},
                        {"max_position_embeddings", spec.max_position_embeddings, kMaxPositions}};
  for (const Size& s : sizes) {
    if (s.value <= 0 || s.value > s.max) {
      return field_error(spec, s.field, std::to_string(s.value),
                         "an integer from 1 to " + std::to_string(s.max));
    }
  }
  if (spec.q_dim() > kMaxHiddenSize) {
    return field_error(spec, "num_heads * head_dim", std::to_string(spec.q_dim()),
                       "at most " + std::to_string(kMaxHiddenSize));
  }
  if (spec.num_heads % spec.num_kv_heads != 0) {
    return field_error(spec, "num_kv_heads", std::to_string(spec.num_kv_heads),
                       "a divisor of num_heads = " + std::to_string(spec.num_heads));
  }
  const std::pair<std::string_view, double> probs[] = {{"dropout.embd", spec.dropout.embd},
                                                       {"dropout.attn", spec.dropout.attn},
                                                       {"dropout.resid", spec.dropout.resid},
                                                       {"dropout.act", spec.dropout.act}};
  for (const auto& [field, p] : probs) {
    if (!(p >= 0 && p < 1)) return field_error(spec, field, format_double(p), "a number in [0, 1)");
  }
  if (!(spec.norm_eps > 0)) {
    return field_error(spec, "norm_eps", format_double(spec.norm_eps), "a number > 0");
  }
  if (!(spec.partial_rotary_factor > 0 && spec.partial_rotary_factor <= 1)) {
    return field_error(spec, "partial_rotary_factor", format_double(spec.partial_rotary_factor),
                       "a number in (0, 1]");
  }
  if (spec.partial_rotary_factor < 1 && (spec.rotary_dim() < 2 || spec.rotary_dim() % 2 != 0)) {
    return field_error(spec, "partial_rotary_factor", format_double(spec.partial_rotary_factor),
                       "a share of head_dim = " + std::to_string(spec.head_dim) +
                           " that leaves an even number of rotated dimensions, at least 2 (got " +
                           std::to_string(spec.rotary_dim()) + ")");
  }
  if (spec.sliding_window < 0) {
    return field_error(spec, "sliding_window", std::to_string(spec.sliding_window),
                       "0 (none) or a positive window");
  }
  return validate_structure(spec);
}

}  // namespace zs::models
