// Reading Hugging Face config.json files into a ModelSpec, and resolving a --model argument.
//
// Supported model_type values and the keys read (others, and HF has many, are ignored):
//   gpt2: vocab_size, n_embd, n_layer, n_head (required); n_positions (1024), n_inner (null = 4h),
//     activation_function ("gelu_new"), resid_pdrop / embd_pdrop / attn_pdrop (0.1),
//     layer_norm_epsilon (1e-5), tie_word_embeddings (true), add_cross_attention (must be false).
//   opt: vocab_size, hidden_size, num_hidden_layers, num_attention_heads, ffn_dim (required);
//     max_position_embeddings (2048), activation_function ("relu"), dropout (0.1),
//     attention_dropout (0), enable_bias (true), tie_word_embeddings (true); refused:
//     do_layer_norm_before false, _remove_final_layer_norm true, layer_norm_elementwise_affine
//     false, layerdrop > 0, word_embed_proj_dim other than null or hidden_size.
//   gpt_neox: vocab_size, hidden_size, num_hidden_layers, num_attention_heads, intermediate_size
//     (required); max_position_embeddings (2048), hidden_act ("gelu"), rotary_pct (0.25) and
//     rotary_emb_base (10000) unless rope_parameters says, use_parallel_residual (true),
//     attention_bias (true), hidden_dropout and attention_dropout (0), layer_norm_eps (1e-5),
//     tie_word_embeddings (false).
//   bert: vocab_size, hidden_size, num_hidden_layers, num_attention_heads, intermediate_size
//     (required); max_position_embeddings (512), type_vocab_size (2), hidden_act ("gelu"),
//     hidden_dropout_prob and attention_probs_dropout_prob (0.1), layer_norm_eps (1e-12),
//     tie_word_embeddings (true), architectures (the head: ["BertForMaskedLM"] when absent,
//     ["BertForQuestionAnswering"], ["BertForSequenceClassification"]), num_labels (2; the
//     length of id2label when it has one); refused: is_decoder and add_cross_attention true, a
//     position_embedding_type other than "absolute", another architecture.
//   roberta: bert's keys and defaults (vocab_size and the like required, a checkpoint states
//     them), the heads Roberta*, and pad_token_id (1): the position table's first
//     pad_token_id + 1 rows precede position 0, so max_position_embeddings (514 in the
//     checkpoints) less them is the longest sequence; refused: pad_token_id null.
//   t5: vocab_size, d_model, num_layers, num_heads, d_ff (required); d_kv (64),
//     num_decoder_layers (null = num_layers), relative_attention_num_buckets (32), dropout_rate
//     (0.1), layer_norm_epsilon (1e-6), feed_forward_proj ("relu"; "gated-ACT" for the gated
//     MLP, "gated-gelu" running gelu_new); is_encoder_decoder must be true; the head is tied to
//     `shared` whatever tie_word_embeddings says (transformers 5 forces it).
//   blenderbot: vocab_size (8008), d_model (2560), encoder_layers (2), decoder_layers (24),
//     encoder_attention_heads and decoder_attention_heads (32, equal), encoder_ffn_dim and
//     decoder_ffn_dim (10240, equal), max_position_embeddings (128), activation_function
//     ("gelu"), dropout (0.1; the embeddings' too), attention_dropout and activation_dropout (0),
//     scale_embedding (false); refused: is_encoder_decoder or tie_word_embeddings false, layer
//     drop above 0.
//   bloom: vocab_size (250880), hidden_size (64; n_embed when given), n_layer or
//     num_hidden_layers (2), n_head or num_attention_heads (8), layer_norm_epsilon (1e-5),
//     hidden_dropout and attention_dropout (0), tie_word_embeddings (true), pretraining_tp (1);
//     the MLP 4 x hidden_size; refused: apply_residual_connection_post_layernorm true,
//     slow_but_exact true with pretraining_tp above 1, n_layer and num_hidden_layers (or n_head
//     and num_attention_heads) that differ.
//   falcon: vocab_size (65024), hidden_size (4544; n_embed when given), num_hidden_layers (32),
//     num_attention_heads (71), max_position_embeddings (2048), ffn_hidden_size (null = 4h),
//     activation ("gelu"), layer_norm_epsilon (1e-5), hidden_dropout (0), bias (false),
//     multi_query (true: one key/value head), rope_theta (10000, from rope_parameters first),
//     tie_word_embeddings (true), new_decoder_architecture (false; true: num_kv_heads groups,
//     null = the heads, dividing them, their keys and values copied to every head, and
//     num_ln_in_parallel_attn norms, null = 2); refused: alibi true, parallel_attn false.
//   deepseek_v2, deepseek_v3: vocab_size, hidden_size, num_hidden_layers, num_attention_heads,
//     intermediate_size (the dense first layers' width) and, for deepseek_v2,
//     num_experts_per_tok (required); moe_intermediate_size (1407; v3 2048), n_routed_experts
//     (64; v3 256; num_experts / num_local_experts when given instead), num_experts_per_tok (v3
//     8), n_shared_experts (2; v3 1), first_k_dense_replace (0; v3 3), max_position_embeddings
//     (2048; v3 4096), q_lora_rank (1536; null = q_proj), kv_lora_rank (512), qk_nope_head_dim
//     (128), qk_rope_head_dim (64), v_head_dim (128), num_key_value_heads (null or the heads),
//     hidden_act ("silu"), rms_norm_eps (1e-6), attention_dropout (0), rope_theta (10000),
//     tie_word_embeddings (false), attention_bias (false), norm_topk_prob (v3 true; v2's router
//     ignores it), topk_method (v2: "greedy" or "group_limited_greedy"), n_group and topk_group
//     (1 and 1; v3 8 and 4; n_group dividing the experts when grouped); refused: v2's mlp_bias
//     true.
//   deberta-v2: vocab_size (128100), hidden_size (1536), num_hidden_layers (24),
//     num_attention_heads (24), intermediate_size (6144), max_position_embeddings (512),
//     position_buckets (-1: none) or max_relative_positions (-1: max_position_embeddings), the
//     relative span, pos_att_type ("c2p", "p2c", a list or "p2c|c2p"), norm_rel_ebd (must
//     contain "layer_norm": the table normalized), conv_kernel_size (0: no ConvLayer) and conv_act
//     ("tanh"), hidden_act ("gelu"), hidden_dropout_prob and attention_probs_dropout_prob (0.1),
//     layer_norm_eps (1e-7), num_labels (2; the length of id2label when it has one); refused:
//     architectures other than ["DebertaV2ForSequenceClassification"], relative_attention or
//     share_att_key false, position_biased_input true, type_vocab_size above 0, conv_groups
//     other than 1, attention_head_size, embedding_size or pooler_hidden_size other than the
//     hidden size's widths.
//   bart: blenderbot's keys with BartConfig's defaults: vocab_size (50265), d_model (1024),
//     encoder_layers and decoder_layers (12), attention heads (16), ffn dims (4096),
//     max_position_embeddings (1024; the table has 2 more rows); architectures
//     ["BartForConditionalGeneration"] or ["BartModel"] (or absent); another is refused.
//   llama, mistral, qwen2, qwen3, mixtral, qwen3_moe, qwen2_moe, phi3, gemma, gemma2,
//     gemma3_text: vocab_size, hidden_size,
//     num_hidden_layers, num_attention_heads, intermediate_size (required; the MoE families'
//     experts are moe_intermediate_size wide); num_key_value_heads, head_dim (null or absent =
//     hidden_size / num_attention_heads; qwen3's 128), max_position_embeddings, rms_norm_eps
//     (1e-6; mixtral's and phi3's 1e-5), rope_theta (10000; mixtral's 1e6; from rope_scaling or
//     rope_parameters first, as transformers 5 resolves it), tie_word_embeddings (false),
//     hidden_act ("silu"), attention_dropout (0); llama: attention_bias, mlp_bias (false); qwen3,
//     qwen3_moe: attention_bias; qwen2_moe: qkv_bias (true); mistral: sliding_window (4096, null
//     = none); the qwen families: use_sliding_window (false) gating sliding_window; the MoE
//     families: their expert counts and widths (read_moe); phi3: resid_pdrop (0),
//     partial_rotary_factor (1; from rope_scaling or rope_parameters first), sliding_window
//     (null), embd_pdrop (read by nothing in transformers 5: a warning when set); the gemma
//     families: head_dim (256), tie_word_embeddings (true), hidden_act (gemma) or
//     hidden_activation (gemma2, gemma3_text; "gelu_pytorch_tanh"), attention_bias (false),
//     sliding_window (4096; none for gemma), final_logit_softcapping (gemma2 30, gemma3_text
//     null), attn_logit_softcapping (gemma2 50; gemma3_text ignores it: a warning),
//     use_bidirectional_attention (must be false). model_type gemma3, the vision-language model,
//     is refused: its text_config, saved as a config.json of its own, is the language model.
// Defaults are those of the HF config classes (configuration_<type>.py), so a file means what
// from_pretrained makes of it. Two of them surprise: an absent num_key_value_heads is 8 for
// mistral and 32 for qwen2 (their __init__ defaults), and num_attention_heads for llama; an
// explicit null is num_attention_heads for all three. max_position_embeddings defaults to 2048
// (llama), 131072 (mistral), 32768 (qwen2).
//
// Every error names the file, line:column, JSON path, the value and what is allowed (the
// ObjectReader format, common/json_fields.h); all errors of a file are reported at once.
#pragma once

#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "common/status.h"
#include "models/model_spec.h"

namespace zs::models {

// Builds a spec from a parsed config.json. The spec's name and hf_repo are the file's
// "_name_or_path" when it has one, else doc.source. On bad content returns kInvalidArgument
// whose message holds one formatted diagnostic per line. Warnings (an integer written as a
// string, comments that HF's json.load would reject) are appended to `warnings` when non-null.
Result<ModelSpec> hf_config_from_document(const json::Document& doc,
                                          Diagnostics* warnings = nullptr);

// Reads and converts the config.json at `path` (kNotFound / kIoError / kParseError when it
// cannot be read or is not JSON).
Result<ModelSpec> load_hf_config(const std::string& path, Diagnostics* warnings = nullptr);

// Resolves a user's --model argument. A zoo name or alias (any case, models/zoo.h) wins, so
// "meta-llama/Llama-2-7b-hf" is the zoo entry; otherwise an argument that contains '/' or ends
// in ".json" is a path to a config.json (a directory means DIR/config.json); anything else is an
// unknown zoo name: kNotFound listing the zoo, with a "did you mean".
Result<ModelSpec> resolve_model(std::string_view arg, Diagnostics* warnings = nullptr);

}  // namespace zs::models
