// DeepSeek-V2's and -V3's configuration (transformers 5.16 configuration_deepseek_v2.py
// DeepseekV2Config, configuration_deepseek_v3.py DeepseekV3Config) read into a ModelSpec.
#include <string>

#include "models/hf_config_fields.h"

namespace zs::models::hf {
namespace {

// The router's choice of experts. V2's DeepseekV2TopkRouter knows topk_method "greedy" and
// "group_limited_greedy" (any other leaves its weights unset: a NameError at the first step);
// V3's always picks within topk_group of n_group groups, each group scored by its two best
// experts, and ignores topk_method. Either grouping needs n_group to divide the experts.
void read_routing(json::ObjectReader& r, bool v3, std::int64_t experts) {
  bool grouped = v3;
  if (!v3 && r.has("topk_method") && !r.raw("topk_method")->is_null()) {
    constexpr std::string_view kMethods[] = {"greedy", "group_limited_greedy"};
    const auto method = r.get_enum("topk_method", kMethods);
    grouped = method && *method == "group_limited_greedy";
  }
  if (v3) r.raw("topk_method");  // read by nothing in V3
  const auto groups = optional_size(r, "n_group", v3 ? 8 : 1, kMaxExperts);
  const auto top_groups = optional_size(r, "topk_group", v3 ? 4 : 1, kMaxExperts);
  if (!grouped || !groups || !top_groups) return;
  if (!check_divides(r, "n_group", *groups, "n_routed_experts", experts)) {
    return;
  }
  if (*top_groups > *groups) {
    r.report("topk_group", Severity::kError, "out-of-range",
             std::to_string(*top_groups) +
                 " is not allowed; expected at most n_group = " + std::to_string(*groups));
  }
  if (v3 && experts / *groups < 2) {
    r.report("n_group", Severity::kError, "out-of-range",
             std::to_string(*groups) +
                 " is not allowed: DeepseekV3TopkRouter scores each group by its two best "
                 "experts; expected at most n_routed_experts / 2 = " +
                 std::to_string(experts / 2));
  }
}

}  // namespace

// DeepseekV2Config's and DeepseekV3Config's keys and defaults (V2's first): see
// models/hf_config.h. The keys and values of every head come expanded from the latent
// (DeepseekV2Attention.expand_kv), so num_key_value_heads must equal num_attention_heads:
// eager_attention_forward's repeat_kv would otherwise multiply heads that are all there already.
// transformers does not build DeepSeek-V3's multi-token prediction layers (its
// num_nextn_predict_layers are dropped at load), so zerosim counts none.
void read_deepseek(json::ObjectReader& r, ModelSpec* spec) {
  const bool v3 = spec->model_type == ModelType::kDeepseekV3;
  const auto [vocab, h, layers, heads] = required_sizes(r, kSizeKeys);
  const auto dense = required_size(r, "intermediate_size", kMaxIntermediateSize);
  const auto width =
      optional_size(r, "moe_intermediate_size", v3 ? 2048 : 1407, kMaxIntermediateSize);
  // The attribute_map's alias (V2 num_experts, V3 num_local_experts) when only it is given.
  const char* alias = v3 ? "num_local_experts" : "num_experts";
  const char* experts_key = !r.has("n_routed_experts") && r.has(alias) ? alias : "n_routed_experts";
  const auto experts = optional_size(r, experts_key, v3 ? 256 : 64, kMaxExperts);
  // DeepseekV2Config's num_experts_per_tok defaults to None, which its router cannot use.
  const auto top_k = v3 ? optional_size(r, "num_experts_per_tok", 8, kMaxExperts)
                        : required_size(r, "num_experts_per_tok", kMaxExperts);
  // n_shared_experts 0 would build Linears of no outputs: refused as out of range.
  const auto shared = optional_size(r, "n_shared_experts", v3 ? 1 : 2, kMaxIntermediateSize);
  const auto first_dense = optional_int(r, "first_k_dense_replace", v3 ? 3 : 0, 0, kMaxLayers);
  const auto positions =
      optional_size(r, "max_position_embeddings", v3 ? 4096 : 2048, kMaxPositions);
  // q_lora_rank null: no low rank, q_proj (DeepSeek-V2-Lite).
  const bool q_null = r.has("q_lora_rank") && r.raw("q_lora_rank")->is_null();
  const auto q_rank = q_null ? std::optional<std::int64_t>(0)
                             : optional_int(r, "q_lora_rank", 1536, 0, kMaxHiddenSize);
  const auto kv_rank = optional_size(r, "kv_lora_rank", 512, kMaxHiddenSize);
  const auto nope = optional_size(r, "qk_nope_head_dim", 128, kMaxHiddenSize);
  const auto rope = optional_size(r, "qk_rope_head_dim", 64, kMaxHiddenSize);
  const auto v_dim = optional_size(r, "v_head_dim", 128, kMaxHiddenSize);
  const auto kv_heads = optional_size(r, "num_key_value_heads", 0, kMaxHiddenSize);
  spec->activation = activation(r, "hidden_act", "silu");
  spec->norm_eps = optional_number(r, "rms_norm_eps", 1e-6, {.min = 0, .min_exclusive = true});
  spec->dropout = {.attn = probability(r, "attention_dropout", 0)};
  spec->rope_theta = rope_parameter(r, "rope_theta", 10000.0, {.min = 0, .min_exclusive = true});
  spec->tie_word_embeddings = optional_bool(r, "tie_word_embeddings", false);
  const bool attention_bias = optional_bool(r, "attention_bias", false);
  spec->bias = {.qkv = attention_bias, .attn_out = attention_bias};
  // V2's dense MLP and shared experts are LlamaMLPs (mlp_bias); V3's are Qwen2MoeMLPs (none).
  if (!v3) require_bool(r, "mlp_bias", false, "MLP biases beside bias-free experts");
  // V2's router renormalizes nothing (it deletes norm_topk_prob); V3's renormalizes when true.
  const bool normalize = v3 && optional_bool(r, "norm_topk_prob", true);
  if (!v3) optional_bool(r, "norm_topk_prob", false);
  if (experts) read_routing(r, v3, *experts);
  if (!vocab || !h || !layers || !heads || !dense || !width || !experts || !top_k || !shared ||
      !first_dense || !positions || !q_rank || !kv_rank || !nope || !rope || !v_dim || !kv_heads) {
    return;
  }
  if (*kv_heads != 0 && *kv_heads != *heads) {
    r.report(
        "num_key_value_heads", Severity::kError, "not-modelled",
        std::to_string(*kv_heads) +
            " is not supported; expected null or num_attention_heads = " + std::to_string(*heads) +
            " (multi-head latent attention expands a key and value for every head)");
    return;
  }
  if (*top_k > *experts) {
    r.report("num_experts_per_tok", Severity::kError, "out-of-range",
             std::to_string(*top_k) + " is not allowed; expected at most " + experts_key + " = " +
                 std::to_string(*experts));
    return;
  }
  if (*first_dense > *layers) {
    r.report(
        "first_k_dense_replace", Severity::kError, "out-of-range",
        std::to_string(*first_dense) +
            " is not allowed; expected at most num_hidden_layers = " + std::to_string(*layers));
    return;
  }
  if (*rope % 2 != 0) {
    r.report("qk_rope_head_dim", Severity::kError, "out-of-range",
             std::to_string(*rope) +
                 " is not allowed; expected an even number (RoPE rotates "
                 "pairs)");
    return;
  }
  if (*kv_rank + *rope > kMaxHiddenSize || *heads * (*nope + *v_dim) > kMaxHiddenSize) {
    r.report("kv_lora_rank", Severity::kError, "out-of-range",
             "kv_lora_rank + qk_rope_head_dim = " + std::to_string(*kv_rank + *rope) +
                 " and num_attention_heads x (qk_nope_head_dim + v_head_dim) = " +
                 std::to_string(*heads * (*nope + *v_dim)) +
                 " are not allowed; expected each at most " + std::to_string(kMaxHiddenSize));
    return;
  }
  if (*shared * *width > kMaxIntermediateSize) {
    r.report("n_shared_experts", Severity::kError, "out-of-range",
             std::to_string(*shared) + " shared experts of " + std::to_string(*width) +
                 " are not allowed; expected at most " + std::to_string(kMaxIntermediateSize) +
                 " in all");
    return;
  }
  spec->vocab_size = *vocab;
  spec->hidden_size = *h;
  spec->num_layers = *layers;
  spec->num_heads = *heads;
  spec->num_kv_heads = *heads;
  spec->head_dim = *nope + *rope;
  spec->intermediate_size = *width;
  spec->max_position_embeddings = *positions;
  spec->position = PositionKind::kRotary;
  spec->norm = NormKind::kRmsNorm;
  spec->mlp = MlpKind::kSwiGlu;
  spec->mla = {.q_lora_rank = *q_rank,
               .kv_lora_rank = *kv_rank,
               .qk_nope_head_dim = *nope,
               .qk_rope_head_dim = *rope,
               .v_head_dim = *v_dim};
  spec->moe = {.num_experts = *experts,
               .experts_per_token = *top_k,
               .normalize_top_k = normalize,
               .shared_expert_size = *shared * *width,
               .dense_layers = *first_dense,
               .dense_size = *first_dense > 0 ? *dense : 0};
  if (expert_parameters(*spec) > static_cast<double>(kMaxExpertParameters)) {
    r.report(experts_key, Severity::kError, "out-of-range",
             std::to_string(*experts) + " experts over " + std::to_string(*layers - *first_dense) +
                 " layers make more than " + std::to_string(kMaxExpertParameters) +
                 " (2^52) expert parameters");
  }
}

}  // namespace zs::models::hf
