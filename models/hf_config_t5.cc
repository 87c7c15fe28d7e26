// modeling_t5.py's configuration (transformers 5.16 configuration_t5.py T5Config) read into a
// ModelSpec.
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
  spec->dropout = {.embd = dropout, .attn = dropout, .resid = dropout};
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

}  // namespace zs::models::hf
