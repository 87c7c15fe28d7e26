// modeling_bert.py's and modeling_roberta.py's configurations (transformers 5.16
// configuration_bert.py BertConfig, configuration_roberta.py RobertaConfig) read into a ModelSpec.
#include <string>

#include "models/hf_config_fields.h"

namespace zs::models::hf {
namespace {

using json::Json;
using json::ObjectReader;

// The heads zerosim models, by the class name config.json's architectures[0] gives after the
// family's prefix ("Bert", "Roberta").
struct Head {
  std::string_view suffix;
  HeadKind kind;
};
constexpr Head kHeads[] = {
    {"ForMaskedLM", HeadKind::kMaskedLm},
    {"ForQuestionAnswering", HeadKind::kQuestionAnswering},
    {"ForSequenceClassification", HeadKind::kSequenceClassification},
};

std::string known_heads(std::string_view prefix) {
  std::string out;
  for (const Head& h : kHeads) {
    out += (out.empty() ? "\"" : ", \"") + std::string(prefix) + std::string(h.suffix) + "\"";
  }
  return out;
}

// architectures[0]; *ForMaskedLM (the pre-training objective, the hub checkpoints' own
// architectures) when absent.
HeadKind head_of(ObjectReader& r, std::string_view prefix) {
  if (!r.has("architectures")) return HeadKind::kMaskedLm;
  const std::optional<std::string> cls = architecture(r);
  for (const Head& h : kHeads) {
    if (cls == std::string(prefix) + std::string(h.suffix)) return h.kind;
  }
  refuse_architecture(r, cls,
                      "a list of one of " + known_heads(prefix) +
                          " (BertForPreTraining's next-sentence head and the causal *ForCausalLM "
                          "and BertLMHeadModel are not modelled)");
  return HeadKind::kMaskedLm;
}

// PretrainedConfig: num_labels is len(id2label) when the file has id2label, else num_labels,
// else 2.
std::optional<std::int64_t> num_labels(ObjectReader& r) {
  if (r.has("id2label")) {
    const Json* v = r.raw("id2label");
    if (v->is_object() && !v->empty()) return static_cast<std::int64_t>(v->size());
  }
  return optional_size(r, "num_labels", 2, 1024);
}

}  // namespace

// BertConfig's and RobertaConfig's keys and defaults (RobertaConfig's differ only in
// vocab_size 50265 and pad_token_id 1; both require hidden_size and the like here, as a checkpoint
// states them). Refused: is_decoder and add_cross_attention (a decoder), a
// position_embedding_type other than absolute (the relative kinds transformers 4 had); for
// RoBERTa a pad_token_id that leaves no position (RobertaEmbeddings numbers the tokens from
// pad_token_id + 1 and has no positions without it).
void read_bert(ObjectReader& r, ModelSpec* spec) {
  const bool roberta = spec->model_type == ModelType::kRoberta;
  const auto [vocab, h, layers, heads] = required_sizes(r, kSizeKeys);
  const auto inner = required_size(r, "intermediate_size", kMaxIntermediateSize);
  const auto positions = optional_size(r, "max_position_embeddings", 512, kMaxPositions);
  const auto types = optional_size(r, "type_vocab_size", 2, 16);
  // RoBERTa's table: rows 0..pad_token_id hold no position.
  std::int64_t offset = 0;
  bool pad_ok = true;
  if (roberta) {
    if (r.has("pad_token_id") && r.raw("pad_token_id")->is_null()) {
      r.report("pad_token_id", Severity::kError, "not-modelled",
               "null is not supported; expected the padding token's id (RobertaEmbeddings "
               "numbers positions from pad_token_id + 1)");
      pad_ok = false;
    } else if (!r.has("pad_token_id")) {
      offset = 2;  // RobertaConfig's pad_token_id 1
    } else if (const auto pad = r.get_int("pad_token_id", {.min = 0, .max = kMaxPositions - 1})) {
      offset = *pad + 1;
    } else {
      pad_ok = false;
    }
  }
  const auto labels = num_labels(r);
  spec->activation = activation(r, "hidden_act", "gelu");
  const double hidden_dropout = probability(r, "hidden_dropout_prob", 0.1);
  spec->dropout = {.embd = hidden_dropout,
                   .attn = probability(r, "attention_probs_dropout_prob", 0.1),
                   .resid = hidden_dropout};
  spec->norm_eps = optional_number(r, "layer_norm_eps", 1e-12, {.min = 0, .min_exclusive = true});
  spec->tie_word_embeddings = optional_bool(r, "tie_word_embeddings", true);
  spec->head = head_of(r, roberta ? "Roberta" : "Bert");
  require_bool(r, "is_decoder", false, "an encoder as a causal decoder is not modelled");
  require_bool(r, "add_cross_attention", false, "an encoder with cross-attention is not modelled");
  if (r.has("position_embedding_type")) {
    const Json* v = r.raw("position_embedding_type");
    if (!v->is_string() || v->get<std::string>() != "absolute") {
      r.report("position_embedding_type", Severity::kError, "not-modelled",
               "this value is not supported; expected \"absolute\" (relative position embeddings "
               "are not modelled)");
    }
  }
  if (!vocab || !h || !layers || !heads || !inner || !positions || !types || !labels || !pad_ok) {
    return;
  }
  if (!check_divides(r, "num_attention_heads", *heads, "hidden_size", *h)) return;
  if (*positions <= offset) {
    r.report("max_position_embeddings", Severity::kError, "out-of-range",
             std::to_string(*positions) +
                 " leaves no position; expected more than pad_token_id + " +
                 "1 = " + std::to_string(offset) + " rows (RoBERTa numbers positions from there)");
    return;
  }
  set_learned_layernorm_model(*vocab, *h, *layers, *heads, *inner, *positions - offset, spec);
  spec->position_offset = offset;
  spec->bias = {.qkv = true, .attn_out = true, .mlp = true};
  spec->post_norm = true;
  spec->type_vocab_size = *types;
  spec->num_labels = *labels;
}

}  // namespace zs::models::hf
