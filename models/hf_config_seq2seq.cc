// The encoder-decoders' configurations read into a ModelSpec: modeling_t5.py's (transformers
// 5.16 configuration_t5.py T5Config), modeling_blenderbot.py's (BlenderbotConfig) and
// modeling_bart.py's (BartConfig).
#include <string>

#include "models/hf_config_fields.h"

namespace zs::models::hf {

using json::Json;
using json::ObjectReader;

// T5Config's keys and defaults. feed_forward_proj "ACT" is T5DenseActDense with ACT, "gated-ACT"
// T5DenseGatedActDense ("gated-gelu" runs gelu_new). The LM head is tied to `shared` whatever
// tie_word_embeddings says (T5Config.__post_init__ forces it; the flag only decides whether the
// decoder's output is scaled). n_positions is not read: the relative-position bias has no
// length limit.
void read_t5(ObjectReader& r, ModelSpec* spec) {
  const auto vocab = required_size(r, "vocab_size", kMaxVocabSize);
  const auto h = required_size(r, "d_model", kMaxHiddenSize);
  const auto layers = required_size(r, "num_layers", kMaxLayers);
  const auto heads = required_size(r, "num_heads", kMaxHiddenSize);
  const auto ff = required_size(r, "d_ff", kMaxIntermediateSize);
  const auto d_kv = optional_size(r, "d_kv", 64, kMaxHiddenSize);
  const auto decoder_layers = optional_size(r, "num_decoder_layers", 0, kMaxLayers);
  const auto buckets = optional_size(r, "relative_attention_num_buckets", 32, 1024);
  const double dropout = probability(r, "dropout_rate", 0.1);
  spec->dropout = {.embd = dropout, .attn = dropout, .resid = dropout, .act = dropout};
  spec->norm_eps =
      optional_number(r, "layer_norm_epsilon", 1e-6, {.min = 0, .min_exclusive = true});
  require_bool(r, "is_encoder_decoder", true,
               "T5's encoder alone or decoder alone is not modelled");
  std::string proj = "relu";
  if (r.has("feed_forward_proj")) {
    const Json* v = r.raw("feed_forward_proj");
    proj = v->is_string() ? v->get<std::string>() : "";
  }
  const bool gated = proj.starts_with("gated-");
  std::string act = gated ? proj.substr(6) : proj;
  if (proj == "gated-gelu") act = "gelu_new";  // T5Config.__post_init__, for old checkpoints
  bool known = false;
  for (std::string_view a : known_activations()) known = known || a == act;
  if (!known) {
    r.report("feed_forward_proj", Severity::kError, "not-allowed",
             "this value is not allowed; expected \"ACT\" or \"gated-ACT\" with ACT an activation "
             "transformers knows (\"relu\", \"gated-gelu\", ...)");
  }
  if (!vocab || !h || !layers || !heads || !ff || !d_kv || !decoder_layers || !buckets || !known) {
    return;
  }
  if (*heads * *d_kv > kMaxHiddenSize) {
    r.report(
        "num_heads", Severity::kError, "out-of-range",
        std::to_string(*heads) + " heads of d_kv " + std::to_string(*d_kv) +
            " are not allowed; expected num_heads * d_kv <= " + std::to_string(kMaxHiddenSize));
    return;
  }
  spec->vocab_size = *vocab;
  spec->hidden_size = *h;
  spec->num_layers = *layers;
  spec->num_decoder_layers = *decoder_layers > 0 ? *decoder_layers : *layers;
  spec->num_heads = *heads;
  spec->num_kv_heads = *heads;
  spec->head_dim = *d_kv;
  spec->intermediate_size = *ff;
  spec->max_position_embeddings = 512;  // informational: relative positions have no table
  spec->relative_buckets = *buckets;
  spec->position = PositionKind::kRelativeBias;
  spec->norm = NormKind::kRmsNorm;
  spec->mlp = gated ? MlpKind::kSwiGlu : MlpKind::kGelu;
  spec->activation = act;
  spec->bias = {};
  spec->tie_word_embeddings = true;
}

// BlenderbotConfig's and BartConfig's keys and defaults (spec->model_type says which). The
// encoder's and decoder's attention heads and MLP widths must agree (every checkpoint's do);
// layer drop is refused. BART: the architectures zerosim models are BartForConditionalGeneration
// and BartModel (the hub's bart-base and bart-large, fine-tuned as the former); a classification
// or question-answering head is refused.
void read_blenderbot(ObjectReader& r, ModelSpec* spec) {
  const bool bart = spec->model_type == ModelType::kBart;
  const auto vocab = optional_size(r, "vocab_size", bart ? 50265 : 8008, kMaxVocabSize);
  const auto h = optional_size(r, "d_model", bart ? 1024 : 2560, kMaxHiddenSize);
  const auto layers = optional_size(r, "encoder_layers", bart ? 12 : 2, kMaxLayers);
  const auto decoder_layers = optional_size(r, "decoder_layers", bart ? 12 : 24, kMaxLayers);
  const std::int64_t default_heads = bart ? 16 : 32, default_ffn = bart ? 4096 : 10240;
  const auto heads = optional_size(r, "encoder_attention_heads", default_heads, kMaxHiddenSize);
  const auto decoder_heads =
      optional_size(r, "decoder_attention_heads", default_heads, kMaxHiddenSize);
  const auto ffn = optional_size(r, "encoder_ffn_dim", default_ffn, kMaxIntermediateSize);
  const auto decoder_ffn = optional_size(r, "decoder_ffn_dim", default_ffn, kMaxIntermediateSize);
  // BartLearnedPositionalEmbedding holds max_position_embeddings + 2 rows.
  const auto positions = optional_size(r, "max_position_embeddings", bart ? 1024 : 128,
                                       bart ? kMaxPositions - 2 : kMaxPositions);
  if (bart && r.has("architectures")) {
    const std::optional<std::string> cls = architecture(r);
    if (cls != "BartForConditionalGeneration" && cls != "BartModel") {
      refuse_architecture(r, cls,
                          "[\"BartForConditionalGeneration\"] or [\"BartModel\"] (BART's "
                          "classification and question-answering heads are not modelled)");
    }
  }
  spec->activation = activation(r, "activation_function", "gelu");
  spec->dropout = {.attn = probability(r, "attention_dropout", 0),
                   .resid = probability(r, "dropout", 0.1),
                   .act = probability(r, "activation_dropout", 0)};
  spec->dropout.embd = spec->dropout.resid;  // the stacks drop out their embeddings with it
  spec->scaled_embedding = optional_bool(r, "scale_embedding", false);
  require_bool(r, "is_encoder_decoder", true, "the decoder alone is not modelled");
  require_bool(r, "tie_word_embeddings", true, "an LM head of its own is not modelled");
  for (const char* key : {"encoder_layerdrop", "decoder_layerdrop"}) {
    if (optional_number(r, key, 0, {.min = 0, .max = 1}) > 0) {
      r.report(key, Severity::kError, "not-modelled",
               "a layer drop probability above 0 is not supported; expected 0 (zerosim runs "
               "every layer every step)");
    }
  }
  if (!vocab || !h || !layers || !decoder_layers || !heads || !decoder_heads || !ffn ||
      !decoder_ffn || !positions) {
    return;
  }
  if (*decoder_heads != *heads || *decoder_ffn != *ffn) {
    r.report(*decoder_heads != *heads ? "decoder_attention_heads" : "decoder_ffn_dim",
             Severity::kError, "not-modelled",
             "a decoder unlike the encoder is not supported; expected the encoder's value (" +
                 std::to_string(*decoder_heads != *heads ? *heads : *ffn) + ")");
    return;
  }
  if (!check_divides(r, "encoder_attention_heads", *heads, "d_model", *h)) return;
  set_learned_layernorm_model(*vocab, *h, *layers, *heads, *ffn, *positions, spec);
  spec->num_decoder_layers = *decoder_layers;
  spec->bias = {.qkv = true, .attn_out = true, .mlp = true};
  spec->tie_word_embeddings = true;
  if (bart) {
    spec->post_norm = true;
    spec->position_offset = 2;
  }
}

}  // namespace zs::models::hf
