#include "models/hf_config_fields.h"

#include "common/units.h"

namespace zs::models::hf {

using json::Json;
using json::ObjectReader;

std::optional<std::int64_t> required_size(ObjectReader& r, std::string_view key, std::int64_t max) {
  if (!r.has(key)) {
    r.report(key, Severity::kError, "missing-key",
             "required key is missing; expected a positive integer");
    return std::nullopt;
  }
  return r.get_int(key, {.min = 1, .max = max});
}

std::array<std::optional<std::int64_t>, 4> required_sizes(ObjectReader& r, const SizeKeys& k) {
  return {required_size(r, k.vocab, kMaxVocabSize), required_size(r, k.hidden, kMaxHiddenSize),
          required_size(r, k.layers, kMaxLayers), required_size(r, k.heads, kMaxHiddenSize)};
}

std::optional<std::int64_t> optional_size(ObjectReader& r, std::string_view key,
                                          std::int64_t fallback, std::int64_t max) {
  const Json* v = r.has(key) ? r.raw(key) : nullptr;
  if (v == nullptr || v->is_null()) return fallback;
  return r.get_int(key, {.min = 1, .max = max});
}

std::optional<std::int64_t> optional_int(ObjectReader& r, std::string_view key,
                                         std::int64_t fallback, std::int64_t min,
                                         std::int64_t max) {
  const Json* v = r.has(key) ? r.raw(key) : nullptr;
  if (v == nullptr || v->is_null()) return fallback;
  return r.get_int(key, {.min = min, .max = max});
}

double optional_number(ObjectReader& r, std::string_view key, double fallback,
                       json::NumberRange range) {
  if (!r.has(key)) return fallback;
  return r.get_number(key, range).value_or(fallback);
}

double probability(ObjectReader& r, std::string_view key, double fallback) {
  const double p = optional_number(r, key, fallback, {.min = 0, .max = 1});
  if (p >= 1) {
    r.report(key, Severity::kError, "out-of-range",
             format_double(p) + " is not allowed; expected a probability in [0, 1)");
  }
  return p;
}

bool optional_bool(ObjectReader& r, std::string_view key, bool fallback) {
  return r.has(key) ? r.get_bool(key).value_or(fallback) : fallback;
}

std::string activation(ObjectReader& r, std::string_view key, std::string_view fallback) {
  if (!r.has(key)) return std::string(fallback);
  return r.get_enum(key, known_activations()).value_or(std::string(fallback));
}

bool check_divides(ObjectReader& r, std::string_view divisor_key, std::int64_t d,
                   std::string_view key, std::int64_t n, std::string why) {
  if (n % d == 0) return true;
  r.report(divisor_key, Severity::kError, "not-a-divisor",
           std::to_string(d) + why + " is not allowed: it does not divide " + std::string(key) +
               " = " + std::to_string(n) + "; expected a divisor of " + std::to_string(n));
  return false;
}

void set_learned_layernorm_model(std::int64_t vocab, std::int64_t h, std::int64_t layers,
                                 std::int64_t heads, std::int64_t inner, std::int64_t positions,
                                 ModelSpec* spec) {
  spec->vocab_size = vocab;
  spec->hidden_size = h;
  spec->num_layers = layers;
  spec->num_heads = heads;
  spec->num_kv_heads = heads;
  spec->head_dim = h / heads;
  spec->intermediate_size = inner;
  spec->max_position_embeddings = positions;
  spec->position = PositionKind::kLearned;
  spec->norm = NormKind::kLayerNorm;
  spec->mlp = MlpKind::kGelu;
}

std::optional<std::string> architecture(ObjectReader& r) {
  const Json* v = r.raw("architectures");
  if (!v->is_array() || v->size() != 1 || !(*v)[0].is_string()) return std::nullopt;
  return (*v)[0].get<std::string>();
}

void refuse_architecture(ObjectReader& r, const std::optional<std::string>& cls,
                         const std::string& expected) {
  r.report("architectures", Severity::kError, "not-modelled",
           (cls ? "[\"" + *cls + "\"]" : std::string("this value")) +
               " is not supported; expected " + expected);
}

void require_bool(ObjectReader& r, std::string_view key, bool allowed, std::string_view what) {
  if (!r.has(key)) return;
  const auto v = r.get_bool(key);
  if (v && *v != allowed) {
    r.report(key, Severity::kError, "not-modelled",
             std::string(*v ? "true" : "false") + " is not supported; expected " +
                 (allowed ? "true" : "false") + " (" + std::string(what) + ")");
  }
}

// `top_key`: GPTNeoXConfig's rotary_pct and rotary_emb_base.
double rope_parameter(json::ObjectReader& r, std::string_view key, double fallback,
                      json::NumberRange range, std::string_view top_key) {
  for (const char* holder : {"rope_scaling", "rope_parameters"}) {
    if (!r.has(holder)) continue;
    const Json* v = r.raw(holder);
    if (v->is_null() || (v->is_object() && v->empty())) continue;
    json::ObjectReader params = r.nested(holder);
    if (params.valid() && params.has(key)) return params.get_number(key, range).value_or(fallback);
    break;
  }
  return optional_number(r, top_key.empty() ? key : top_key, fallback, range);
}

}  // namespace zs::models::hf
