#include "models/parameters.h"

#include <algorithm>
#include <map>

namespace zs::models {
namespace {

class ParamListBuilder {
 public:
  explicit ParamListBuilder(std::vector<ParamTensor>* out) : out_(out) {}

  // Adds `module`.weight (and `module`.bias of length bias_len when bias_len > 0).
  void add(const std::string& module, int layer, std::vector<std::int64_t> weight_shape,
           std::int64_t bias_len = 0) {
    push(module, "weight", layer, std::move(weight_shape), false);
    if (bias_len > 0) push(module, "bias", layer, {bias_len}, true);
  }

  // Adds `module`.`leaf` (a parameter not named weight: MixtralExperts' gate_up_proj).
  void add_named(const std::string& module, const char* leaf, int layer,
                 std::vector<std::int64_t> shape, bool is_bias = false) {
    push(module, leaf, layer, std::move(shape), is_bias);
  }

  // Adds `module`.`leaf` (weight by default) as an alias of tensor `target_id`.
  void add_tied(const std::string& module, int layer, int target_id, const char* leaf = "weight") {
    ParamTensor alias = (*out_)[static_cast<std::size_t>(target_id)];
    alias.id = static_cast<int>(out_->size());
    alias.name = module + "." + leaf;
    alias.module = module;
    alias.layer = layer;
    alias.tied = true;
    alias.tied_to = target_id;
    out_->push_back(std::move(alias));
  }

  int last_id() const { return static_cast<int>(out_->size()) - 1; }

 private:
  void push(const std::string& module, const char* leaf, int layer, std::vector<std::int64_t> shape,
            bool is_bias) {
    ParamTensor p;
    p.id = static_cast<int>(out_->size());
    p.name = module + "." + leaf;
    p.numel = 1;
    for (std::int64_t d : shape) p.numel *= d;
    ZS_CHECK_MSG(p.numel > 0, p.name.c_str());  // validate(spec): every size is at least 1
    p.shape = std::move(shape);
    p.module = module;
    p.layer = layer;
    p.is_bias = is_bias;
    out_->push_back(std::move(p));
  }

  std::vector<ParamTensor>* out_;
};

// A decoder's final norm `norm` after the last layer (a LayerNorm's with its bias) and the LM
// head: tied to parameter `embed`, or a [V, h] matrix of its own.
void add_final_norm_and_head(const ModelSpec& m, const std::string& norm, int embed,
                             ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size;
  const int top = static_cast<int>(m.num_layers);
  if (m.norm == NormKind::kLayerNorm) {
    b->add(norm, top, {h}, h);
  } else {
    b->add(norm, top, {h});
  }
  if (m.tie_word_embeddings) {
    b->add_tied("lm_head", top, embed);
  } else {
    b->add("lm_head", top, {m.vocab_size, h});
  }
}

// transformers/models/gpt2/modeling_gpt2.py: GPT2LMHeadModel(transformer(wte, wpe, h[i](ln_1,
// attn(c_attn, c_proj), ln_2, mlp(c_fc, c_proj)), ln_f), lm_head). Conv1D weights are [in, out].
void build_gpt2(const ModelSpec& m, ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size, I = m.intermediate_size;
  b->add("transformer.wte", kEmbeddingLayer, {m.vocab_size, h});
  const int wte = b->last_id();
  b->add("transformer.wpe", kEmbeddingLayer, {m.max_position_embeddings, h});
  for (int i = 0; i < m.num_layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i) + ".";
    b->add(p + "ln_1", i, {h}, h);
    b->add(p + "attn.c_attn", i, {h, 3 * h}, m.bias.qkv ? 3 * h : 0);
    b->add(p + "attn.c_proj", i, {h, h}, m.bias.attn_out ? h : 0);
    b->add(p + "ln_2", i, {h}, h);
    b->add(p + "mlp.c_fc", i, {h, I}, m.bias.mlp ? I : 0);
    b->add(p + "mlp.c_proj", i, {I, h}, m.bias.mlp ? h : 0);
  }
  add_final_norm_and_head(m, "transformer.ln_f", wte, b);
}

// transformers/models/gpt_neox/modeling_gpt_neox.py: GPTNeoXForCausalLM(gpt_neox(embed_in,
// layers[i](input_layernorm, post_attention_layernorm, attention(query_key_value, dense),
// mlp(dense_h_to_4h, dense_4h_to_h)), final_layer_norm), lm_head). query_key_value is [3h, h],
// each head's q, k and v rows side by side.
void build_gpt_neox(const ModelSpec& m, ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size, I = m.intermediate_size;
  b->add("gpt_neox.embed_in", kEmbeddingLayer, {m.vocab_size, h});
  const int embed = b->last_id();
  for (int i = 0; i < m.num_layers; ++i) {
    const std::string p = "gpt_neox.layers." + std::to_string(i) + ".";
    b->add(p + "input_layernorm", i, {h}, h);
    b->add(p + "post_attention_layernorm", i, {h}, h);
    b->add(p + "attention.query_key_value", i, {3 * h, h}, m.bias.qkv ? 3 * h : 0);
    b->add(p + "attention.dense", i, {h, h}, m.bias.attn_out ? h : 0);
    b->add(p + "mlp.dense_h_to_4h", i, {I, h}, I);
    b->add(p + "mlp.dense_4h_to_h", i, {h, I}, h);
  }
  add_final_norm_and_head(m, "gpt_neox.final_layer_norm", embed, b);
}

// transformers/models/bloom/modeling_bloom.py: BloomForCausalLM(transformer(word_embeddings,
// word_embeddings_layernorm, h[i](input_layernorm, self_attention(query_key_value, dense),
// post_attention_layernorm, mlp(dense_h_to_4h, dense_4h_to_h)), ln_f), lm_head). Biases
// everywhere; no position table (ALiBi).
void build_bloom(const ModelSpec& m, ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size, I = m.intermediate_size;
  b->add("transformer.word_embeddings", kEmbeddingLayer, {m.vocab_size, h});
  const int embed = b->last_id();
  b->add("transformer.word_embeddings_layernorm", kEmbeddingLayer, {h}, h);
  for (int i = 0; i < m.num_layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i) + ".";
    b->add(p + "input_layernorm", i, {h}, h);
    b->add(p + "self_attention.query_key_value", i, {3 * h, h}, 3 * h);
    b->add(p + "self_attention.dense", i, {h, h}, h);
    b->add(p + "post_attention_layernorm", i, {h}, h);
    b->add(p + "mlp.dense_h_to_4h", i, {I, h}, I);
    b->add(p + "mlp.dense_4h_to_h", i, {h, I}, h);
  }
  add_final_norm_and_head(m, "transformer.ln_f", embed, b);
}

// transformers/models/falcon/modeling_falcon.py: FalconForCausalLM(transformer(word_embeddings,
// h[i](self_attention(query_key_value [q + 2 kv, h], dense), mlp(dense_h_to_4h, dense_4h_to_h),
// input_layernorm, or ln_attn and ln_mlp in the new decoder architecture's two-norm layout: the
// layer registers its norms last), ln_f), lm_head).
void build_falcon(const ModelSpec& m, ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size, I = m.intermediate_size;
  const std::int64_t qkv = m.q_dim() + 2 * m.kv_dim();
  b->add("transformer.word_embeddings", kEmbeddingLayer, {m.vocab_size, h});
  const int embed = b->last_id();
  for (int i = 0; i < m.num_layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i) + ".";
    b->add(p + "self_attention.query_key_value", i, {qkv, h}, m.bias.qkv ? qkv : 0);
    b->add(p + "self_attention.dense", i, {h, h}, m.bias.attn_out ? h : 0);
    b->add(p + "mlp.dense_h_to_4h", i, {I, h}, m.bias.mlp ? I : 0);
    b->add(p + "mlp.dense_4h_to_h", i, {h, I}, m.bias.mlp ? h : 0);
    if (m.parallel_shared_norm) {
      b->add(p + "input_layernorm", i, {h}, h);
    } else {
      b->add(p + "ln_attn", i, {h}, h);
      b->add(p + "ln_mlp", i, {h}, h);
    }
  }
  add_final_norm_and_head(m, "transformer.ln_f", embed, b);
}

// transformers/models/opt/modeling_opt.py: OPTForCausalLM(model.decoder(embed_tokens,
// embed_positions [max_positions + 2, h], final_layer_norm, layers[i](self_attn(k_proj, v_proj,
// q_proj, out_proj), self_attn_layer_norm, fc1, fc2, final_layer_norm)), lm_head). The decoder
// registers its final norm before its layers.
void build_opt(const ModelSpec& m, ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size, I = m.intermediate_size;
  b->add("model.decoder.embed_tokens", kEmbeddingLayer, {m.vocab_size, h});
  const int embed = b->last_id();
  b->add("model.decoder.embed_positions", kEmbeddingLayer,
         {m.max_position_embeddings + m.position_offset, h});
  const int top = static_cast<int>(m.num_layers);
  b->add("model.decoder.final_layer_norm", top, {h}, h);
  for (int i = 0; i < m.num_layers; ++i) {
    const std::string p = "model.decoder.layers." + std::to_string(i) + ".";
    for (const char* proj : {"k_proj", "v_proj", "q_proj"}) {
      b->add(p + "self_attn." + proj, i, {h, h}, m.bias.qkv ? h : 0);
    }
    b->add(p + "self_attn.out_proj", i, {h, h}, m.bias.attn_out ? h : 0);
    b->add(p + "self_attn_layer_norm", i, {h}, h);
    b->add(p + "fc1", i, {I, h}, m.bias.mlp ? I : 0);
    b->add(p + "fc2", i, {h, I}, m.bias.mlp ? h : 0);
    b->add(p + "final_layer_norm", i, {h}, h);
  }
  if (m.tie_word_embeddings) {
    b->add_tied("lm_head", top, embed);
  } else {
    b->add("lm_head", top, {m.vocab_size, h});
  }
}

// DeepSeek's multi-head latent attention (modeling_deepseek_v2.py DeepseekV2Attention.__init__):
// q_proj, or q_a_proj, q_a_layernorm and q_b_proj; kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj,
// o_proj. attention_bias gives q_a_proj, kv_a_proj_with_mqa and o_proj a bias.
void add_mla(const ModelSpec& m, const std::string& p, int i, ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size, q = m.q_dim(), qr = m.mla.q_lora_rank;
  const std::int64_t kvr = m.mla.kv_lora_rank, dr = m.mla.qk_rope_head_dim;
  const std::int64_t kv_b = m.num_heads * (m.mla.qk_nope_head_dim + m.mla.v_head_dim);
  const bool bias = m.bias.qkv;
  if (qr == 0) {
    b->add(p + "self_attn.q_proj", i, {q, h});
  } else {
    b->add(p + "self_attn.q_a_proj", i, {qr, h}, bias ? qr : 0);
    b->add(p + "self_attn.q_a_layernorm", i, {qr});
    b->add(p + "self_attn.q_b_proj", i, {q, qr});
  }
  b->add(p + "self_attn.kv_a_proj_with_mqa", i, {kvr + dr, h}, bias ? kvr + dr : 0);
  b->add(p + "self_attn.kv_a_layernorm", i, {kvr});
  b->add(p + "self_attn.kv_b_proj", i, {kv_b, kvr});
  b->add(p + "self_attn.o_proj", i, {h, m.attn_out_dim()}, m.bias.attn_out ? h : 0);
}

// transformers/models/llama/modeling_llama.py (Mistral and Qwen2 are the same modules; Phi-3's
// fuses q/k/v and gate/up into one Linear each; Qwen3
// adds self_attn.q_norm and k_norm after o_proj, modeling_qwen3.py Qwen3Attention; Mixtral's mlp
// is a sparse MoE block):
// LlamaForCausalLM(model(embed_tokens, layers[i](self_attn(q_proj, k_proj, v_proj, o_proj),
// mlp(gate_proj, up_proj, down_proj), input_layernorm, post_attention_layernorm), norm),
// lm_head). Registration order puts the norms after attention and MLP.
void build_llama(const ModelSpec& m, ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size, I = m.intermediate_size, q = m.q_dim(), kv = m.kv_dim();
  b->add("model.embed_tokens", kEmbeddingLayer, {m.vocab_size, h});
  const int embed = b->last_id();
  for (int i = 0; i < m.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    if (m.model_type == ModelType::kPhi3) {
      // modeling_phi3.py: Phi3Attention registers o_proj before qkv_proj; Phi3MLP gate_up_proj
      // [2I, h] (gate rows first), down_proj; no biases.
      b->add(p + "self_attn.o_proj", i, {h, q});
      b->add(p + "self_attn.qkv_proj", i, {q + 2 * kv, h});
      b->add(p + "mlp.gate_up_proj", i, {2 * I, h});
      b->add(p + "mlp.down_proj", i, {h, I});
      b->add(p + "input_layernorm", i, {h});
      b->add(p + "post_attention_layernorm", i, {h});
      continue;
    }
    if (m.mla.enabled()) {
      add_mla(m, p, i, b);
    } else {
      b->add(p + "self_attn.q_proj", i, {q, h}, m.bias.qkv ? q : 0);
      b->add(p + "self_attn.k_proj", i, {kv, h}, m.bias.qkv ? kv : 0);
      b->add(p + "self_attn.v_proj", i, {kv, h}, m.bias.qkv ? kv : 0);
      b->add(p + "self_attn.o_proj", i, {h, q}, m.bias.attn_out ? h : 0);
    }
    if (m.qk_norm) {
      b->add(p + "self_attn.q_norm", i, {m.head_dim});
      b->add(p + "self_attn.k_norm", i, {m.head_dim});
    }
    if (is_deepseek(m) && has_experts(m, i)) {
      // modeling_deepseek_v2.py DeepseekV2Moe (V3's alike): experts (Qwen2MoeExperts), gate
      // (DeepseekV2TopkRouter.weight [E, h]), shared_experts (an MLP of the shared width).
      const std::int64_t E = m.moe.num_experts, S = m.moe.shared_expert_size;
      b->add_named(p + "mlp.experts", "gate_up_proj", i, {E, 2 * I, h});
      b->add_named(p + "mlp.experts", "down_proj", i, {E, h, I});
      b->add(p + "mlp.gate", i, {E, h});
      if (S > 0) {
        b->add(p + "mlp.shared_experts.gate_proj", i, {S, h});
        b->add(p + "mlp.shared_experts.up_proj", i, {S, h});
        b->add(p + "mlp.shared_experts.down_proj", i, {h, S});
      }
    } else if (is_deepseek(m)) {  // a dense first layer: DeepseekV2MLP
      const std::int64_t D = m.moe.dense_size;
      b->add(p + "mlp.gate_proj", i, {D, h});
      b->add(p + "mlp.up_proj", i, {D, h});
      b->add(p + "mlp.down_proj", i, {h, D});
    } else if (m.moe.enabled()) {
      // modeling_mixtral.py MixtralSparseMoeBlock(gate: MixtralTopKRouter.weight [E, h],
      // experts: MixtralExperts.gate_up_proj [E, 2I, h], down_proj [E, h, I]);
      // modeling_qwen3_moe.py Qwen3MoeSparseMoeBlock registers its experts before its gate;
      // modeling_qwen2_moe.py Qwen2MoeSparseMoeBlock its gate, experts, shared_expert
      // (Qwen2MoeMLP) and shared_expert_gate (Linear h -> 1).
      const std::int64_t E = m.moe.num_experts;
      const bool gate_first = m.model_type != ModelType::kQwen3Moe;
      if (gate_first) b->add(p + "mlp.gate", i, {E, h});
      b->add_named(p + "mlp.experts", "gate_up_proj", i, {E, 2 * I, h});
      b->add_named(p + "mlp.experts", "down_proj", i, {E, h, I});
      if (!gate_first) b->add(p + "mlp.gate", i, {E, h});
      if (const std::int64_t S = m.moe.shared_expert_size; S > 0) {
        b->add(p + "mlp.shared_expert.gate_proj", i, {S, h});
        b->add(p + "mlp.shared_expert.up_proj", i, {S, h});
        b->add(p + "mlp.shared_expert.down_proj", i, {h, S});
        b->add(p + "mlp.shared_expert_gate", i, {1, h});
      }
    } else {
      b->add(p + "mlp.gate_proj", i, {I, h}, m.bias.mlp ? I : 0);
      b->add(p + "mlp.up_proj", i, {I, h}, m.bias.mlp ? I : 0);
      b->add(p + "mlp.down_proj", i, {h, I}, m.bias.mlp ? h : 0);
    }
    b->add(p + "input_layernorm", i, {h});
    b->add(p + "post_attention_layernorm", i, {h});
    if (m.sandwich_norms) {  // modeling_gemma2.py Gemma2DecoderLayer (Gemma 3's alike)
      b->add(p + "pre_feedforward_layernorm", i, {h});
      b->add(p + "post_feedforward_layernorm", i, {h});
    }
  }
  add_final_norm_and_head(m, "model.norm", embed, b);
}

// BertLayer's parameters (RobertaLayer's and DebertaV2Layer's alike) under `base`.encoder.layer.i,
// the attention's projections named query, key, value + `proj` ("_proj": DeBERTa-v2's).
void add_bert_layers(const ModelSpec& m, const std::string& base, const std::string& proj,
                     ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size, I = m.intermediate_size;
  for (int i = 0; i < m.num_layers; ++i) {
    const std::string p = base + ".encoder.layer." + std::to_string(i) + ".";
    for (const char* name : {"query", "key", "value"}) {
      b->add(p + "attention.self." + name + proj, i, {h, h}, h);
    }
    b->add(p + "attention.output.dense", i, {h, h}, h);
    b->add(p + "attention.output.LayerNorm", i, {h}, h);
    b->add(p + "intermediate.dense", i, {I, h}, I);
    b->add(p + "output.dense", i, {h, I}, h);
    b->add(p + "output.LayerNorm", i, {h}, h);
  }
}

// transformers/models/deberta_v2/modeling_deberta_v2.py: DebertaV2ForSequenceClassification(
// deberta(embeddings(word_embeddings, LayerNorm), encoder(layer[i](attention(self(query_proj,
// key_proj, value_proj), output(dense, LayerNorm)), intermediate.dense, output(dense,
// LayerNorm)), rel_embeddings [2 span, h], LayerNorm (norm_rel_ebd), conv(conv [h, h, k],
// LayerNorm))), pooler.dense (ContextPooler), classifier). The table and its norm are outside the
// layers; the ConvLayer runs after layer 0, whose index its parameters take.
void build_deberta(const ModelSpec& m, ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size;
  b->add("deberta.embeddings.word_embeddings", kEmbeddingLayer, {m.vocab_size, h});
  b->add("deberta.embeddings.LayerNorm", kEmbeddingLayer, {h}, h);
  add_bert_layers(m, "deberta", "_proj", b);
  const DisentangledSpec& d = m.disentangled;
  b->add("deberta.encoder.rel_embeddings", kEmbeddingLayer, {2 * d.span, h});
  if (d.norm_table) b->add("deberta.encoder.LayerNorm", kEmbeddingLayer, {h}, h);
  if (d.conv_kernel > 0) {
    b->add("deberta.encoder.conv.conv", 0, {h, h, d.conv_kernel}, h);
    b->add("deberta.encoder.conv.LayerNorm", 0, {h}, h);
  }
  const int top = static_cast<int>(m.num_layers);
  b->add("pooler.dense", top, {h, h}, h);
  b->add("classifier", top, {m.num_labels, h}, m.num_labels);
}

// transformers/models/bert/modeling_bert.py: Bert*(bert(embeddings(word_embeddings,
// position_embeddings, token_type_embeddings, LayerNorm), encoder.layer[i](attention(self(query,
// key, value), output(dense, LayerNorm)), intermediate.dense, output(dense, LayerNorm)),
// pooler.dense only for sequence classification), head). The masked-LM head registers
// cls.predictions.bias [V] before its transform (dense, LayerNorm) and its decoder, whose weight
// is the word table (unless tie_word_embeddings is false) and whose bias is that vector
// (BertForMaskedLM._tied_weights_keys).
// transformers/models/roberta/modeling_roberta.py: the same under roberta.*, its embeddings
// registering word_embeddings, token_type_embeddings, LayerNorm, then position_embeddings
// (max_position_embeddings + position_offset rows); the masked-LM head lm_head(bias, dense,
// layer_norm, decoder), the classification head classifier(dense, out_proj), no pooler.
void build_bert(const ModelSpec& m, ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size, V = m.vocab_size;
  const bool roberta = m.model_type == ModelType::kRoberta;
  const std::string base = roberta ? "roberta" : "bert";
  const std::string e = base + ".embeddings.";
  b->add(e + "word_embeddings", kEmbeddingLayer, {V, h});
  const int word = b->last_id();
  const std::vector<std::int64_t> positions = {m.max_position_embeddings + m.position_offset, h};
  if (!roberta) b->add(e + "position_embeddings", kEmbeddingLayer, positions);
  b->add(e + "token_type_embeddings", kEmbeddingLayer, {m.type_vocab_size, h});
  b->add(e + "LayerNorm", kEmbeddingLayer, {h}, h);
  if (roberta) b->add(e + "position_embeddings", kEmbeddingLayer, positions);
  add_bert_layers(m, base, "", b);
  const int top = static_cast<int>(m.num_layers);
  switch (m.head) {
    case HeadKind::kMaskedLm: {
      const std::string head = roberta ? "lm_head" : "cls.predictions";
      b->add_named(head, "bias", top, {V}, /*is_bias=*/true);
      const int bias = b->last_id();
      b->add(head + (roberta ? ".dense" : ".transform.dense"), top, {h, h}, h);
      b->add(head + (roberta ? ".layer_norm" : ".transform.LayerNorm"), top, {h}, h);
      if (m.tie_word_embeddings) {
        b->add_tied(head + ".decoder", top, word);
      } else {
        b->add(head + ".decoder", top, {V, h});
      }
      b->add_tied(head + ".decoder", top, bias, "bias");
      break;
    }
    case HeadKind::kQuestionAnswering:
      b->add("qa_outputs", top, {m.num_labels, h}, m.num_labels);
      break;
    case HeadKind::kSequenceClassification:
      b->add(roberta ? "classifier.dense" : "bert.pooler.dense", top, {h, h}, h);
      b->add(roberta ? "classifier.out_proj" : "classifier", top, {m.num_labels, h}, m.num_labels);
      break;
    case HeadKind::kCausalLm:
      ZS_UNREACHABLE();
  }
}

// transformers/models/t5/modeling_t5.py: T5ForConditionalGeneration(shared, encoder(embed_tokens
// = shared, block[i](layer[0](SelfAttention(q, k, v, o, relative_attention_bias [buckets, heads]
// in block 0 only), layer_norm), layer[1](DenseReluDense(wi, wo) or DenseGatedActDense(wi_0,
// wi_1, wo), layer_norm)), final_layer_norm), decoder(embed_tokens = shared, block[i] with
// layer[1] the EncDecAttention(q, k, v, o) and its layer_norm, layer[2] the MLP,
// final_layer_norm), lm_head = shared (T5Config forces tie_word_embeddings in transformers 5)).
// No biases; the embedding aliases sit where named_parameters(remove_duplicate=False) lists them.
void build_t5(const ModelSpec& m, ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size, I = m.intermediate_size, q = m.q_dim();
  b->add("shared", kEmbeddingLayer, {m.vocab_size, h});
  const int shared = b->last_id();
  auto stack = [&](const std::string& name, int first_layer, std::int64_t layers) {
    b->add_tied(name + ".embed_tokens", kEmbeddingLayer, shared);
    const bool decoder = name == "decoder";
    for (int i = 0; i < layers; ++i) {
      const int layer = first_layer + i;
      const std::string p = name + ".block." + std::to_string(i) + ".layer.";
      auto attention = [&](const std::string& a, bool relative) {
        for (const char* proj : {"q", "k", "v"}) b->add(a + proj, layer, {q, h});
        b->add(a + "o", layer, {h, q});
        if (relative)
          b->add(a + "relative_attention_bias", layer, {m.relative_buckets, m.num_heads});
      };
      attention(p + "0.SelfAttention.", i == 0);
      b->add(p + "0.layer_norm", layer, {h});
      if (decoder) {
        attention(p + "1.EncDecAttention.", false);
        b->add(p + "1.layer_norm", layer, {h});
      }
      const std::string ff = p + (decoder ? "2" : "1");
      if (m.mlp == MlpKind::kSwiGlu) {
        b->add(ff + ".DenseReluDense.wi_0", layer, {I, h});
        b->add(ff + ".DenseReluDense.wi_1", layer, {I, h});
      } else {
        b->add(ff + ".DenseReluDense.wi", layer, {I, h});
      }
      b->add(ff + ".DenseReluDense.wo", layer, {h, I});
      b->add(ff + ".layer_norm", layer, {h});
    }
  };
  stack("encoder", 0, m.num_layers);
  b->add("encoder.final_layer_norm", kEmbeddingLayer, {h});
  stack("decoder", static_cast<int>(m.num_layers), m.num_decoder_layers);
  const int top = static_cast<int>(total_layers(m));
  b->add("decoder.final_layer_norm", top, {h});
  b->add_tied("lm_head", top, shared);
}

// transformers/models/blenderbot/modeling_blenderbot.py: BlenderbotForConditionalGeneration(
// model(shared, encoder(embed_tokens = shared, embed_positions [max_positions, h],
// layers[i](self_attn(k_proj, v_proj, q_proj, out_proj), self_attn_layer_norm, fc1, fc2,
// final_layer_norm), layer_norm), decoder(the same, each layer with encoder_attn and its
// encoder_attn_layer_norm after self_attn_layer_norm)), lm_head = shared). Biases everywhere;
// final_logits_bias is a buffer. modeling_bart.py's BartForConditionalGeneration: the same, each
// stack's embed_positions [max_positions + 2, h] and its layernorm_embedding (registered after
// the layers) where Blenderbot has a final layer_norm.
void build_blenderbot(const ModelSpec& m, ParamListBuilder* b) {
  const std::int64_t h = m.hidden_size, I = m.intermediate_size;
  const bool bart = m.model_type == ModelType::kBart;
  b->add("model.shared", kEmbeddingLayer, {m.vocab_size, h});
  const int shared = b->last_id();
  auto stack = [&](const std::string& name, int first_layer, std::int64_t layers) {
    const bool decoder = name == "model.decoder";
    b->add_tied(name + ".embed_tokens", kEmbeddingLayer, shared);
    b->add(name + ".embed_positions", kEmbeddingLayer,
           {m.max_position_embeddings + m.position_offset, h});
    auto attention = [&](const std::string& a, int layer) {
      for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"}) {
        b->add(a + proj, layer, {h, h}, h);
      }
    };
    for (int i = 0; i < layers; ++i) {
      const int layer = first_layer + i;
      const std::string p = name + ".layers." + std::to_string(i) + ".";
      attention(p + "self_attn.", layer);
      b->add(p + "self_attn_layer_norm", layer, {h}, h);
      if (decoder) {
        attention(p + "encoder_attn.", layer);
        b->add(p + "encoder_attn_layer_norm", layer, {h}, h);
      }
      b->add(p + "fc1", layer, {I, h}, I);
      b->add(p + "fc2", layer, {h, I}, h);
      b->add(p + "final_layer_norm", layer, {h}, h);
    }
  };
  const char* norm = bart ? ".layernorm_embedding" : ".layer_norm";
  stack("model.encoder", 0, m.num_layers);
  b->add(std::string("model.encoder") + norm, kEmbeddingLayer, {h}, h);
  stack("model.decoder", static_cast<int>(m.num_layers), m.num_decoder_layers);
  const int top = static_cast<int>(total_layers(m));
  b->add(std::string("model.decoder") + norm, bart ? kEmbeddingLayer : top, {h}, h);
  b->add_tied("lm_head", top, shared);
}

}  // namespace

std::vector<ParamTensor> parameter_tensors(const ModelSpec& spec) {
  ZS_CHECK_MSG(validate(spec).is_ok(), spec.name.c_str());
  std::vector<ParamTensor> out;
  ParamListBuilder b(&out);
  if (spec.model_type == ModelType::kGpt2) {
    build_gpt2(spec, &b);
  } else if (spec.model_type == ModelType::kOpt) {
    build_opt(spec, &b);
  } else if (spec.model_type == ModelType::kGptNeox) {
    build_gpt_neox(spec, &b);
  } else if (spec.model_type == ModelType::kBloom) {
    build_bloom(spec, &b);
  } else if (spec.model_type == ModelType::kFalcon) {
    build_falcon(spec, &b);
  } else if (spec.model_type == ModelType::kDebertaV2) {
    build_deberta(spec, &b);
  } else if (is_encoder(spec)) {
    build_bert(spec, &b);
  } else if (spec.model_type == ModelType::kT5) {
    build_t5(spec, &b);
  } else if (spec.model_type == ModelType::kBlenderbot || spec.model_type == ModelType::kBart) {
    build_blenderbot(spec, &b);
  } else {
    build_llama(spec, &b);
  }
  return out;
}

std::int64_t parameter_count(const ModelSpec& spec) {
  std::int64_t n = 0;
  for (const ParamTensor& p : parameter_tensors(spec)) {
    if (!p.tied) n += p.numel;
  }
  return n;
}

std::int64_t matmul_parameter_count(const ModelSpec& spec) {
  std::int64_t n = 0;
  for (const ParamTensor& p : parameter_tensors(spec)) {
    // Linear weights are the 2-D tensors outside the embedding layer; the LM head counts even
    // when it is an alias (its table is multiplied, and counted nowhere else).
    if (p.shape.size() == 2 && p.layer != kEmbeddingLayer) n += p.numel;
    // An expert tensor [E, ., .]: k of the E experts multiply each token. DeBERTa's Conv1d weight
    // [h, h, k] is multiplied whole.
    if (p.shape.size() == 3) {
      n += spec.moe.enabled() ? p.numel / spec.moe.num_experts * spec.moe.experts_per_token
                              : p.numel;
    }
  }
  return n;
}

std::int64_t largest_module_params(const ModelSpec& spec) {
  std::map<std::string, std::int64_t> per_module;
  for (const ParamTensor& p : parameter_tensors(spec)) per_module[p.module] += p.numel;
  std::int64_t largest = 0;
  for (const auto& [module, numel] : per_module) largest = std::max(largest, numel);
  return largest;
}

std::int64_t layer_parameter_count(const std::vector<ParamTensor>& params, int layer) {
  std::int64_t n = 0;
  for (const ParamTensor& p : params) {
    if (p.layer == layer && !p.tied) n += p.numel;
  }
  return n;
}

}  // namespace zs::models
