// modeling_bert.py's and modeling_roberta.py's configurations (transformers 5.16
// configuration_bert.py BertConfig, configuration_roberta.py RobertaConfig) read into a ModelSpec.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

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

// hidden_act ("gelu"), hidden_dropout_prob (the embeddings' and each residual's) and
// attention_probs_dropout_prob (0.1 each), layer_norm_eps (`eps`): BertConfig's and
// DebertaV2Config's names.
void read_activation_dropout_eps(ObjectReader& r, double eps, ModelSpec* spec) {
  spec->activation = activation(r, "hidden_act", "gelu");
  const double hidden_dropout = probability(r, "hidden_dropout_prob", 0.1);
  spec->dropout = {.embd = hidden_dropout,
                   .attn = probability(r, "attention_probs_dropout_prob", 0.1),
                   .resid = hidden_dropout};
  spec->norm_eps = optional_number(r, "layer_norm_eps", eps, {.min = 0, .min_exclusive = true});
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
  read_activation_dropout_eps(r, 1e-12, spec);
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

// DebertaV2Config's keys and defaults (modeling_deberta_v2.py reads several more through
// getattr: position_buckets, norm_rel_ebd, share_att_key, conv_kernel_size, conv_act,
// conv_groups, attention_head_size, embedding_size, pooler_hidden_size). pos_att_type is a list
// or "p2c|c2p". Refused: another head than DebertaV2ForSequenceClassification (the masked-LM and
// other heads are not modelled yet), relative_attention false, share_att_key false (separate
// pos_key_proj/pos_query_proj), position_biased_input true or type_vocab_size > 0 (an absolute
// position or token-type table), an embedding_size, attention_head_size or pooler_hidden_size
// other than the hidden size's, conv_groups other than 1, a pos_att_type other than c2p and p2c.
void read_deberta(ObjectReader& r, ModelSpec* spec) {
  const auto vocab = optional_size(r, "vocab_size", 128100, kMaxVocabSize);
  const auto h = optional_size(r, "hidden_size", 1536, kMaxHiddenSize);
  const auto layers = optional_size(r, "num_hidden_layers", 24, kMaxLayers);
  const auto heads = optional_size(r, "num_attention_heads", 24, kMaxHiddenSize);
  const auto inner = optional_size(r, "intermediate_size", 6144, kMaxIntermediateSize);
  const auto positions = optional_size(r, "max_position_embeddings", 512, kMaxPositions);
  const auto buckets = optional_int(r, "position_buckets", -1, -1, kMaxPositions);
  const auto max_relative = optional_int(r, "max_relative_positions", -1, -1, kMaxPositions);
  const auto kernel = optional_int(r, "conv_kernel_size", 0, 0, 64);
  const auto labels = num_labels(r);
  read_activation_dropout_eps(r, 1e-7, spec);
  activation(r, "pooler_hidden_act", "gelu");  // costed as the pooler's tanh
  probability(r, "pooler_dropout", 0);         // on b x h: not counted, as BERT's classifier's
  spec->disentangled.conv_act = activation(r, "conv_act", "tanh");
  spec->head = HeadKind::kSequenceClassification;
  if (r.has("architectures")) {
    const std::optional<std::string> cls = architecture(r);
    if (cls != "DebertaV2ForSequenceClassification") {
      refuse_architecture(r, cls,
                          "[\"DebertaV2ForSequenceClassification\"] (DeBERTa-v2's masked-LM and "
                          "other heads are not modelled yet)");
    }
  }
  // DebertaV2Config's defaults (relative_attention false, share_att_key false, an absolute
  // position table) are not the checkpoints' and not modelled: a file must state the three.
  const std::pair<const char*, bool> needed[] = {
      {"relative_attention", true}, {"share_att_key", true}, {"position_biased_input", false}};
  for (const auto& [key, want] : needed) {
    if (optional_bool(r, key, !want) != want) {
      r.report(key, Severity::kError, "not-modelled",
               std::string(r.has(key) ? "this value" : "the default (absent)") +
                   " is not supported; expected " + (want ? "true" : "false") +
                   " (zerosim models DeBERTa-v2's checkpoints: relative attention through "
                   "query_proj and key_proj, no absolute position table)");
    }
  }
  if (optional_int(r, "type_vocab_size", 0, 0, 16).value_or(0) != 0) {
    r.report("type_vocab_size", Severity::kError, "not-modelled",
             "token types are not supported for deberta-v2; expected 0");
  }
  if (optional_size(r, "conv_groups", 1, kMaxHiddenSize).value_or(1) != 1) {
    r.report("conv_groups", Severity::kError, "not-modelled",
             "a grouped ConvLayer is not supported; expected 1");
  }
  bool c2p = false, p2c = false;
  if (r.has("pos_att_type") && !r.raw("pos_att_type")->is_null()) {
    const Json* v = r.raw("pos_att_type");
    std::vector<std::string> kinds;
    if (v->is_string()) {
      std::string s = v->get<std::string>();
      for (std::size_t start = 0; start <= s.size();) {
        const std::size_t bar = std::min(s.find('|', start), s.size());
        kinds.push_back(s.substr(start, bar - start));
        start = bar + 1;
      }
    } else if (v->is_array()) {
      for (const Json& k : *v) kinds.push_back(k.is_string() ? k.get<std::string>() : "?");
    } else {
      kinds.push_back("?");
    }
    for (std::string k : kinds) {
      k.erase(0, k.find_first_not_of(' '));
      k.erase(k.find_last_not_of(' ') + 1);
      for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (k == "c2p") {
        c2p = true;
      } else if (k == "p2c") {
        p2c = true;
      } else {
        r.report("pos_att_type", Severity::kError, "not-modelled",
                 json::render_value(*v) +
                     " is not supported; expected \"c2p\", \"p2c\" or both (a list or "
                     "\"p2c|c2p\")");
        break;
      }
    }
  }
  // DebertaV2Encoder's norm_rel_ebd ("none" by default): the checkpoints' "layer_norm"
  // normalizes the table; a table used as it is is not modelled.
  const Json* norm_rel = r.has("norm_rel_ebd") ? r.raw("norm_rel_ebd") : nullptr;
  const bool norm_table = norm_rel != nullptr && norm_rel->is_string() &&
                          norm_rel->get<std::string>().find("layer_norm") != std::string::npos;
  if (!norm_table) {
    r.report("norm_rel_ebd", Severity::kError, "not-modelled",
             std::string(norm_rel != nullptr ? json::render_value(*norm_rel)
                                             : "the default (absent, \"none\")") +
                 " is not supported; expected \"layer_norm\" (a relative-position table used "
                 "without its LayerNorm is not modelled)");
  }
  if (!vocab || !h || !layers || !heads || !inner || !positions || !buckets || !max_relative ||
      !kernel || !labels) {
    return;
  }
  if (!check_divides(r, "num_attention_heads", *heads, "hidden_size", *h)) return;
  for (const char* key : {"attention_head_size", "embedding_size", "pooler_hidden_size"}) {
    const std::int64_t want = std::string_view(key) == "attention_head_size" ? *h / *heads : *h;
    if (optional_size(r, key, want, kMaxHiddenSize).value_or(want) != want) {
      r.report(key, Severity::kError, "not-modelled",
               "this value is not supported; expected " + std::to_string(want) +
                   " (zerosim models DeBERTa-v2 at its hidden size's widths)");
      return;
    }
  }
  set_learned_layernorm_model(*vocab, *h, *layers, *heads, *inner, *positions, spec);
  spec->position = PositionKind::kDisentangled;
  spec->bias = {.qkv = true, .attn_out = true, .mlp = true};
  spec->post_norm = true;
  spec->type_vocab_size = 0;
  spec->num_labels = *labels;
  spec->tie_word_embeddings = false;
  // DisentangledSelfAttention: att_span = position_buckets when > 0, else max_relative_positions
  // (max_position_embeddings when < 1).
  spec->disentangled.span = *buckets > 0        ? *buckets
                            : *max_relative > 0 ? *max_relative
                                                : *positions;
  spec->disentangled.c2p = c2p;
  spec->disentangled.p2c = p2c;
  spec->disentangled.norm_table = norm_table;
  spec->disentangled.conv_kernel = *kernel;
}

}  // namespace zs::models::hf
