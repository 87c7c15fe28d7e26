// modeling_bloom.py's configuration (transformers 5.16 configuration_bloom.py BloomConfig) read
// into a ModelSpec.
#include <string>

#include "models/hf_config_fields.h"

namespace zs::models::hf {
namespace {

// A size BloomConfig's attribute_map lets a file give under either name (n_layer or
// num_hidden_layers, n_head or num_attention_heads); both given must agree.
std::optional<std::int64_t> aliased_size(json::ObjectReader& r, std::string_view key,
                                         std::string_view alias, std::int64_t fallback,
                                         std::int64_t max) {
  if (!r.has(alias)) return optional_size(r, key, fallback, max);
  const auto a = optional_size(r, alias, fallback, max);
  if (!r.has(key)) return a;
  const auto k = optional_size(r, key, fallback, max);
  if (a && k && *a != *k) {
    r.report(alias, Severity::kError, "conflicting-keys",
             std::to_string(*a) + " is not allowed: " + std::string(key) + " says " +
                 std::to_string(*k) + " (BloomConfig reads both into one attribute); expected " +
                 std::to_string(*k) + " or only one of the two");
    return std::nullopt;
  }
  return k;
}

}  // namespace

// BloomConfig's keys and defaults. The MLP is 4 x hidden_size wide (BloomMLP); the position
// limit is informational (ALiBi has no table; 2048 is what BLOOM was trained on). Refused:
// apply_residual_connection_post_layernorm (the residual taken after the norm), slow_but_exact
// with pretraining_tp above 1 (the Linears computed in slices).
void read_bloom(json::ObjectReader& r, ModelSpec* spec) {
  const auto vocab = optional_size(r, "vocab_size", 250880, kMaxVocabSize);
  // BloomConfig.__post_init__: the legacy n_embed, when given, is the hidden size.
  const auto h =
      optional_size(r, r.has("n_embed") ? "n_embed" : "hidden_size", 64, kMaxHiddenSize / 4);
  const auto layers = aliased_size(r, "n_layer", "num_hidden_layers", 2, kMaxLayers);
  const auto heads = aliased_size(r, "n_head", "num_attention_heads", 8, kMaxHiddenSize);
  const auto tp = optional_size(r, "pretraining_tp", 1, 1024);
  spec->norm_eps =
      optional_number(r, "layer_norm_epsilon", 1e-5, {.min = 0, .min_exclusive = true});
  spec->dropout = {.attn = probability(r, "attention_dropout", 0),
                   .resid = probability(r, "hidden_dropout", 0)};
  spec->tie_word_embeddings = optional_bool(r, "tie_word_embeddings", true);
  require_bool(r, "apply_residual_connection_post_layernorm", false,
               "the residual taken after the layer norm is not modelled");
  if (tp && *tp > 1) {
    require_bool(r, "slow_but_exact", false,
                 "Linears computed in pretraining_tp slices are not modelled");
  }
  if (!vocab || !h || !layers || !heads || !tp) return;
  if (!check_divides(r, r.has("n_head") ? "n_head" : "num_attention_heads", *heads, "hidden_size",
                     *h)) {
    return;
  }
  set_learned_layernorm_model(*vocab, *h, *layers, *heads, 4 * *h, 2048, spec);
  spec->position = PositionKind::kAlibi;
  spec->activation = "gelu_new";  // BloomGelu: the tanh approximation, gelu_new's formula
  spec->bias = {.qkv = true, .attn_out = true, .mlp = true};
}

}  // namespace zs::models::hf
