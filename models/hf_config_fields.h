// Internal to models/: the readers of config.json fields that every family's reader shares
// (models/hf_config.cc, hf_config_bert.cc, hf_config_bloom.cc, hf_config_seq2seq.cc). Each reports
// a bad value through the ObjectReader (file, line:column, JSON path, the value and what is
// allowed) and returns what the caller goes on with: std::nullopt for a size it cannot use, the
// fallback otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/json_fields.h"
#include "models/model_spec.h"

namespace zs::models::hf {

// A required size from 1 to `max` (model_spec.h kMax*).
std::optional<std::int64_t> required_size(json::ObjectReader& r, std::string_view key,
                                          std::int64_t max);

// The keys of the four sizes every family requires: GPT2Config's names, and every other
// family's.
struct SizeKeys {
  const char *vocab, *hidden, *layers, *heads;
};
inline constexpr SizeKeys kGpt2SizeKeys{"vocab_size", "n_embd", "n_layer", "n_head"};
inline constexpr SizeKeys kSizeKeys{"vocab_size", "hidden_size", "num_hidden_layers",
                                    "num_attention_heads"};

// The vocabulary, hidden size, layers and heads, each required, read in that order (a file
// missing several reports them in it).
std::array<std::optional<std::int64_t>, 4> required_sizes(json::ObjectReader& r, const SizeKeys& k);

// An optional size from 1 to `max`: `fallback` when absent or null.
std::optional<std::int64_t> optional_size(json::ObjectReader& r, std::string_view key,
                                          std::int64_t fallback, std::int64_t max);

// An integer from `min` to `max` (a count from 0, or a setting whose values below 1 mean none):
// `fallback` when absent or null.
std::optional<std::int64_t> optional_int(json::ObjectReader& r, std::string_view key,
                                         std::int64_t fallback, std::int64_t min, std::int64_t max);

// A number in `range`: `fallback` when absent or bad (a bad one is reported).
double optional_number(json::ObjectReader& r, std::string_view key, double fallback,
                       json::NumberRange range);

// A RoPE parameter as transformers 5 resolves it: from a non-empty rope_scaling object, else from
// rope_parameters; a key that object lacks comes from the top level (`top_key` when it is not
// `key`), else `fallback` (modeling_rope_utils.py convert_rope_params_to_dict).
double rope_parameter(json::ObjectReader& r, std::string_view key, double fallback,
                      json::NumberRange range, std::string_view top_key = "");

// A dropout probability in [0, 1).
double probability(json::ObjectReader& r, std::string_view key, double fallback);

bool optional_bool(json::ObjectReader& r, std::string_view key, bool fallback);

// An activation name HF's ACT2FN knows (known_activations()).
std::string activation(json::ObjectReader& r, std::string_view key, std::string_view fallback);

// Reports that `divisor_key` (value d) does not divide `key` (value n); true when it does.
// `why` says where d came from when the file does not have `divisor_key`.
bool check_divides(json::ObjectReader& r, std::string_view divisor_key, std::int64_t d,
                   std::string_view key, std::int64_t n, std::string why = "");

// GPT-2's, OPT's and BERT's layout: learned positions, LayerNorm, a two-matrix MLP, heads
// splitting h (GPT-NeoX's too, but for its rotary positions).
void set_learned_layernorm_model(std::int64_t vocab, std::int64_t h, std::int64_t layers,
                                 std::int64_t heads, std::int64_t inner, std::int64_t positions,
                                 ModelSpec* spec);

// config.json's architectures[0] when the key holds a list of one string; std::nullopt for any
// other value. Call only where r.has("architectures").
std::optional<std::string> architecture(json::ObjectReader& r);

// Reports architectures as not modelled: `cls` (architecture()'s answer; std::nullopt reads
// "this value") "is not supported; expected " `expected`.
void refuse_architecture(json::ObjectReader& r, const std::optional<std::string>& cls,
                         const std::string& expected);

// Reports `key` unless it is absent or `allowed` (a bool), naming what zerosim does not model.
void require_bool(json::ObjectReader& r, std::string_view key, bool allowed, std::string_view what);

// modeling_bert.py and modeling_roberta.py (model_type bert, roberta; spec->model_type says
// which): see models/hf_config.h for the keys read.
void read_bert(json::ObjectReader& r, ModelSpec* spec);
// modeling_deberta_v2.py (model_type deberta-v2, DebertaV2ForSequenceClassification): see
// models/hf_config.h for the keys read.
void read_deberta(json::ObjectReader& r, ModelSpec* spec);
// modeling_bloom.py (model_type bloom): see models/hf_config.h for the keys read.
void read_bloom(json::ObjectReader& r, ModelSpec* spec);
// modeling_deepseek_v2.py and modeling_deepseek_v3.py (model_type deepseek_v2, deepseek_v3;
// spec->model_type says which): see models/hf_config.h for the keys read.
void read_deepseek(json::ObjectReader& r, ModelSpec* spec);
// modeling_t5.py (model_type t5): see models/hf_config.h for the keys read.
void read_t5(json::ObjectReader& r, ModelSpec* spec);
// modeling_blenderbot.py and modeling_bart.py (model_type blenderbot, bart; spec->model_type
// says which): see models/hf_config.h for the keys read.
void read_blenderbot(json::ObjectReader& r, ModelSpec* spec);

}  // namespace zs::models::hf
