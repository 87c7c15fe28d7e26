#include "plan/module_tree.h"

namespace zs::plan {
namespace {

constexpr const char* kLinear = "torch.nn.modules.linear.Linear";
constexpr const char* kEmbedding = "torch.nn.modules.sparse.Embedding";
constexpr const char* kDropout = "torch.nn.modules.dropout.Dropout";

ModuleNode leaf(std::string name, std::string cls, bool grad_output = true) {
  return ModuleNode{std::move(name), std::move(cls), {}, grad_output};
}

// transformers/activations.py ACT2FN's classes for the names zerosim's families use; another
// name gets no class (a parameter-free module: as a leaf it would change nothing).
std::string activation_class(const std::string& act) {
  if (act == "gelu_new") return "transformers.activations.NewGELUActivation";
  if (act == "gelu") return "transformers.activations.GELUActivation";
  if (act == "silu" || act == "swish") return "transformers.activations.SiLUActivation";
  if (act == "gelu_pytorch_tanh") return "transformers.activations.GELUTanh";
  if (act == "relu") return "torch.nn.modules.activation.ReLU";
  return "";
}

// transformers 5.16 GPT2LMHeadModel: GPT2Model.forward runs wte, wpe, drop, the blocks and
// ln_f; GPT2Attention calls attn_dropout only in eager attention (SDPA takes dropout_p).
ModuleNode gpt2_tree(int layers, bool eager, const std::string& act) {
  const std::string g = "transformers.models.gpt2.modeling_gpt2.";
  const std::string conv = "transformers.pytorch_utils.Conv1D";
  const std::string ln = "torch.nn.modules.normalization.LayerNorm";
  ModuleNode model{"transformer",
                   g + "GPT2Model",
                   {leaf("transformer.wte", kEmbedding), leaf("transformer.wpe", kEmbedding),
                    leaf("transformer.drop", kDropout)}};
  for (int i = 0; i < layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    ModuleNode attn{p + ".attn", g + "GPT2Attention", {leaf(p + ".attn.c_attn", conv)}};
    if (eager) attn.children.push_back(leaf(p + ".attn.attn_dropout", kDropout));
    attn.children.push_back(leaf(p + ".attn.c_proj", conv));
    attn.children.push_back(leaf(p + ".attn.resid_dropout", kDropout));
    ModuleNode mlp{p + ".mlp",
                   g + "GPT2MLP",
                   {leaf(p + ".mlp.c_fc", conv), leaf(p + ".mlp.act", activation_class(act)),
                    leaf(p + ".mlp.c_proj", conv), leaf(p + ".mlp.dropout", kDropout)}};
    model.children.push_back(ModuleNode{
        p,
        g + "GPT2Block",
        {leaf(p + ".ln_1", ln), std::move(attn), leaf(p + ".ln_2", ln), std::move(mlp)}});
  }
  model.children.push_back(leaf("transformer.ln_f", ln));
  return ModuleNode{"", g + "GPT2LMHeadModel", {std::move(model), leaf("lm_head", kLinear)}};
}

// transformers 5.16 GPTNeoXForCausalLM: GPTNeoXModel.forward runs embed_in, emb_dropout, the
// rotary embedding, the layers (input_layernorm, attention(query_key_value, dense),
// post_attention_dropout, post_attention_layernorm, mlp(dense_h_to_4h, act, dense_4h_to_h),
// post_mlp_dropout; the same order in sequence) and final_layer_norm.
ModuleNode gpt_neox_tree(const models::ModelSpec& spec) {
  const std::string g = "transformers.models.gpt_neox.modeling_gpt_neox.GPTNeoX";
  const std::string ln = "torch.nn.modules.normalization.LayerNorm";
  ModuleNode model{"gpt_neox",
                   g + "Model",
                   {leaf("gpt_neox.embed_in", kEmbedding), leaf("gpt_neox.emb_dropout", kDropout),
                    leaf("gpt_neox.rotary_emb", g + "RotaryEmbedding", false)}};
  for (int i = 0; i < spec.num_layers; ++i) {
    const std::string p = "gpt_neox.layers." + std::to_string(i);
    model.children.push_back(ModuleNode{
        p,
        g + "Layer",
        {leaf(p + ".input_layernorm", ln),
         ModuleNode{p + ".attention",
                    g + "Attention",
                    {leaf(p + ".attention.query_key_value", kLinear),
                     leaf(p + ".attention.dense", kLinear)}},
         leaf(p + ".post_attention_dropout", kDropout), leaf(p + ".post_attention_layernorm", ln),
         ModuleNode{p + ".mlp",
                    g + "MLP",
                    {leaf(p + ".mlp.dense_h_to_4h", kLinear),
                     leaf(p + ".mlp.act", activation_class(spec.activation)),
                     leaf(p + ".mlp.dense_4h_to_h", kLinear)}},
         leaf(p + ".post_mlp_dropout", kDropout)}});
  }
  model.children.push_back(leaf("gpt_neox.final_layer_norm", ln));
  return ModuleNode{"", g + "ForCausalLM", {std::move(model), leaf("lm_head", kLinear)}};
}

// transformers 5.16 BloomForCausalLM: BloomModel.forward runs word_embeddings,
// word_embeddings_layernorm, the blocks (input_layernorm, self_attention(query_key_value,
// attention_dropout, dense), post_attention_layernorm, mlp(dense_h_to_4h, gelu_impl,
// dense_4h_to_h); dropout_add is functional) and ln_f.
ModuleNode bloom_tree(const models::ModelSpec& spec) {
  const std::string g = "transformers.models.bloom.modeling_bloom.Bloom";
  const std::string ln = "torch.nn.modules.normalization.LayerNorm";
  ModuleNode model{"transformer",
                   g + "Model",
                   {leaf("transformer.word_embeddings", kEmbedding),
                    leaf("transformer.word_embeddings_layernorm", ln)}};
  for (int i = 0; i < spec.num_layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    model.children.push_back(ModuleNode{
        p,
        g + "Block",
        {leaf(p + ".input_layernorm", ln),
         ModuleNode{p + ".self_attention",
                    g + "Attention",
                    {leaf(p + ".self_attention.query_key_value", kLinear),
                     leaf(p + ".self_attention.attention_dropout", kDropout),
                     leaf(p + ".self_attention.dense", kLinear)}},
         leaf(p + ".post_attention_layernorm", ln),
         ModuleNode{
             p + ".mlp",
             g + "MLP",
             {leaf(p + ".mlp.dense_h_to_4h", kLinear), leaf(p + ".mlp.gelu_impl", g + "Gelu"),
              leaf(p + ".mlp.dense_4h_to_h", kLinear)}}}});
  }
  model.children.push_back(leaf("transformer.ln_f", ln));
  return ModuleNode{"", g + "ForCausalLM", {std::move(model), leaf("lm_head", kLinear)}};
}

// transformers 5.16 FalconForCausalLM: FalconModel.forward runs word_embeddings, the rotary
// embedding, the layers (input_layernorm, or ln_attn and ln_mlp, self_attention(
// query_key_value, dense; its attention_dropout is not called on the rotary path), mlp(
// dense_h_to_4h, act, dense_4h_to_h)) and ln_f.
ModuleNode falcon_tree(const models::ModelSpec& spec) {
  const std::string g = "transformers.models.falcon.modeling_falcon.Falcon";
  const std::string ln = "torch.nn.modules.normalization.LayerNorm";
  ModuleNode model{"transformer",
                   g + "Model",
                   {leaf("transformer.word_embeddings", kEmbedding),
                    leaf("transformer.rotary_emb", g + "RotaryEmbedding", false)}};
  for (int i = 0; i < spec.num_layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    // The new decoder architecture's two-norm layout calls ln_attn and ln_mlp first.
    ModuleNode layer{p, g + "DecoderLayer", {}};
    if (spec.parallel_shared_norm) {
      layer.children.push_back(leaf(p + ".input_layernorm", ln));
    } else {
      layer.children.push_back(leaf(p + ".ln_attn", ln));
      layer.children.push_back(leaf(p + ".ln_mlp", ln));
    }
    layer.children.push_back(ModuleNode{p + ".self_attention",
                                        g + "Attention",
                                        {leaf(p + ".self_attention.query_key_value", g + "Linear"),
                                         leaf(p + ".self_attention.dense", g + "Linear")}});
    layer.children.push_back(ModuleNode{p + ".mlp",
                                        g + "MLP",
                                        {leaf(p + ".mlp.dense_h_to_4h", g + "Linear"),
                                         leaf(p + ".mlp.act", activation_class(spec.activation)),
                                         leaf(p + ".mlp.dense_4h_to_h", g + "Linear")}});
    model.children.push_back(std::move(layer));
  }
  model.children.push_back(leaf("transformer.ln_f", ln));
  return ModuleNode{"", g + "ForCausalLM", {std::move(model), leaf("lm_head", kLinear)}};
}

// transformers 5.16 OPTForCausalLM: OPTDecoder.forward runs embed_tokens, embed_positions, the
// layers (self_attn_layer_norm, self_attn calling q_proj, k_proj, v_proj, out_proj, then
// final_layer_norm, fc1, activation_fn, fc2) and final_layer_norm.
ModuleNode opt_tree(const models::ModelSpec& spec) {
  const std::string o = "transformers.models.opt.modeling_opt.";
  const std::string ln = "torch.nn.modules.normalization.LayerNorm";
  ModuleNode decoder{"model.decoder",
                     o + "OPTDecoder",
                     {leaf("model.decoder.embed_tokens", kEmbedding),
                      leaf("model.decoder.embed_positions", o + "OPTLearnedPositionalEmbedding")}};
  for (int i = 0; i < spec.num_layers; ++i) {
    const std::string p = "model.decoder.layers." + std::to_string(i);
    ModuleNode attn{p + ".self_attn", o + "OPTAttention", {}};
    for (const char* proj : {".q_proj", ".k_proj", ".v_proj", ".out_proj"}) {
      attn.children.push_back(leaf(p + ".self_attn" + proj, kLinear));
    }
    decoder.children.push_back(ModuleNode{
        p,
        o + "OPTDecoderLayer",
        {leaf(p + ".self_attn_layer_norm", ln), std::move(attn), leaf(p + ".final_layer_norm", ln),
         leaf(p + ".fc1", kLinear), leaf(p + ".activation_fn", activation_class(spec.activation)),
         leaf(p + ".fc2", kLinear)}});
  }
  decoder.children.push_back(leaf("model.decoder.final_layer_norm", ln));
  ModuleNode model{"model", o + "OPTModel", {std::move(decoder)}};
  return ModuleNode{"", o + "OPTForCausalLM", {std::move(model), leaf("lm_head", kLinear)}};
}

// transformers 5.16 BertForMaskedLM / BertForQuestionAnswering / BertForSequenceClassification:
// BertEmbeddings.forward runs word_embeddings, token_type_embeddings, position_embeddings,
// LayerNorm and dropout; each BertLayer its attention (self: query, key, value, the attention
// function taking the dropout's probability, not calling the module; output: dense, dropout,
// LayerNorm), intermediate (dense, intermediate_act_fn) and output (dense, dropout, LayerNorm);
// then the pooler (dense, activation) for classification, and the head: cls.predictions
// (transform: dense, transform_act_fn, LayerNorm; decoder), qa_outputs, or dropout and
// classifier. RobertaFor* (modeling_roberta.py): the same modules under roberta.*, the masked-LM
// head lm_head (dense, gelu as a function, layer_norm, decoder), the classification head
// classifier (dropout, dense, tanh as a function, dropout again, out_proj), no pooler.
// BertLayer `p` (RobertaLayer, DebertaV2Layer: class names `cls` + "Layer", ...): attention
// (its self-attention `self`, then output: dense, dropout, LayerNorm), intermediate (dense, its
// activation `act`), output (dense, dropout, LayerNorm).
ModuleNode bert_layer(const std::string& p, const std::string& cls, ModuleNode self,
                      const std::string& act) {
  const std::string ln = "torch.nn.modules.normalization.LayerNorm";
  ModuleNode self_out{p + ".attention.output",
                      cls + "SelfOutput",
                      {leaf(p + ".attention.output.dense", kLinear),
                       leaf(p + ".attention.output.dropout", kDropout),
                       leaf(p + ".attention.output.LayerNorm", ln)}};
  return ModuleNode{
      p,
      cls + "Layer",
      {ModuleNode{p + ".attention", cls + "Attention", {std::move(self), std::move(self_out)}},
       ModuleNode{p + ".intermediate",
                  cls + "Intermediate",
                  {leaf(p + ".intermediate.dense", kLinear),
                   leaf(p + ".intermediate.intermediate_act_fn", act)}},
       ModuleNode{p + ".output",
                  cls + "Output",
                  {leaf(p + ".output.dense", kLinear), leaf(p + ".output.dropout", kDropout),
                   leaf(p + ".output.LayerNorm", ln)}}}};
}

// DebertaV2ForSequenceClassification (modeling_deberta_v2.py): DebertaV2Model.forward runs the
// embeddings (word_embeddings, LayerNorm, dropout) and the encoder, whose forward normalizes the
// relative-position table first (encoder.LayerNorm on rel_embeddings.weight: the Embedding
// module itself is never called; it stands first here so that its weight has a module), then the
// layers, the ConvLayer (conv, dropout, LayerNorm) after layer 0. DisentangledSelfAttention calls
// query_proj, key_proj, value_proj, pos_dropout, query_proj and key_proj again on the table (the
// second calls are not nodes of their own), dropout. Then pooler (ContextPooler: dropout, dense),
// dropout and classifier.
ModuleNode deberta_tree(const models::ModelSpec& spec) {
  const std::string c = "transformers.models.deberta_v2.modeling_deberta_v2.";
  const std::string ln = "torch.nn.modules.normalization.LayerNorm";
  const std::string act = activation_class(spec.activation);
  const std::string e = "deberta.embeddings", x = "deberta.encoder";
  ModuleNode encoder{x,
                     c + "DebertaV2Encoder",
                     {leaf(x + ".rel_embeddings", kEmbedding), leaf(x + ".LayerNorm", ln)}};
  for (int i = 0; i < spec.num_layers; ++i) {
    const std::string p = x + ".layer." + std::to_string(i), s = p + ".attention.self.";
    ModuleNode self{p + ".attention.self",
                    c + "DisentangledSelfAttention",
                    {leaf(s + "query_proj", kLinear), leaf(s + "key_proj", kLinear),
                     leaf(s + "value_proj", kLinear), leaf(s + "pos_dropout", kDropout),
                     leaf(s + "dropout", kDropout)}};
    encoder.children.push_back(bert_layer(p, c + "DebertaV2", std::move(self), act));
    if (i == 0 && spec.disentangled.conv_kernel > 0) {
      const std::string v = x + ".conv";
      encoder.children.push_back(
          ModuleNode{v,
                     c + "ConvLayer",
                     {leaf(v + ".conv", "torch.nn.modules.conv.Conv1d"),
                      leaf(v + ".dropout", kDropout), leaf(v + ".LayerNorm", ln)}});
    }
  }
  ModuleNode model{"deberta",
                   c + "DebertaV2Model",
                   {ModuleNode{e,
                               c + "DebertaV2Embeddings",
                               {leaf(e + ".word_embeddings", kEmbedding),
                                leaf(e + ".LayerNorm", ln), leaf(e + ".dropout", kDropout)}},
                    std::move(encoder)}};
  return ModuleNode{"",
                    c + "DebertaV2ForSequenceClassification",
                    {std::move(model),
                     ModuleNode{"pooler",
                                c + "ContextPooler",
                                {leaf("pooler.dropout", kDropout), leaf("pooler.dense", kLinear)}},
                     leaf("dropout", kDropout), leaf("classifier", kLinear)}};
}

ModuleNode bert_tree(const models::ModelSpec& spec) {
  const bool roberta = spec.model_type == models::ModelType::kRoberta;
  const std::string c = roberta ? "transformers.models.roberta.modeling_roberta.Roberta"
                                : "transformers.models.bert.modeling_bert.Bert";
  const std::string ln = "torch.nn.modules.normalization.LayerNorm";
  const std::string act = activation_class(spec.activation);
  const std::string base = roberta ? "roberta" : "bert";
  const std::string e = base + ".embeddings";
  ModuleNode encoder{base + ".encoder", c + "Encoder", {}};
  for (int i = 0; i < spec.num_layers; ++i) {
    const std::string p = base + ".encoder.layer." + std::to_string(i);
    ModuleNode self{
        p + ".attention.self",
        c + "SelfAttention",
        {leaf(p + ".attention.self.query", kLinear), leaf(p + ".attention.self.key", kLinear),
         leaf(p + ".attention.self.value", kLinear)}};
    encoder.children.push_back(bert_layer(p, c, std::move(self), act));
  }
  ModuleNode bert{base,
                  c + "Model",
                  {ModuleNode{e,
                              c + "Embeddings",
                              {leaf(e + ".word_embeddings", kEmbedding),
                               leaf(e + ".token_type_embeddings", kEmbedding),
                               leaf(e + ".position_embeddings", kEmbedding),
                               leaf(e + ".LayerNorm", ln), leaf(e + ".dropout", kDropout)}},
                   std::move(encoder)}};
  switch (spec.head) {
    case models::HeadKind::kMaskedLm: {
      if (roberta) {
        ModuleNode head{"lm_head",
                        c + "LMHead",
                        {leaf("lm_head.dense", kLinear), leaf("lm_head.layer_norm", ln),
                         leaf("lm_head.decoder", kLinear)}};
        return ModuleNode{"", c + "ForMaskedLM", {std::move(bert), std::move(head)}};
      }
      const std::string t = "cls.predictions.transform";
      ModuleNode transform{t,
                           c + "PredictionHeadTransform",
                           {leaf(t + ".dense", kLinear), leaf(t + ".transform_act_fn", act),
                            leaf(t + ".LayerNorm", ln)}};
      ModuleNode cls{
          "cls",
          c + "OnlyMLMHead",
          {ModuleNode{"cls.predictions",
                      c + "LMPredictionHead",
                      {std::move(transform), leaf("cls.predictions.decoder", kLinear)}}}};
      return ModuleNode{"", c + "ForMaskedLM", {std::move(bert), std::move(cls)}};
    }
    case models::HeadKind::kQuestionAnswering:
      return ModuleNode{
          "", c + "ForQuestionAnswering", {std::move(bert), leaf("qa_outputs", kLinear)}};
    case models::HeadKind::kSequenceClassification:
      if (roberta) {
        ModuleNode head{"classifier",
                        c + "ClassificationHead",
                        {leaf("classifier.dropout", kDropout), leaf("classifier.dense", kLinear),
                         leaf("classifier.out_proj", kLinear)}};
        return ModuleNode{"", c + "ForSequenceClassification", {std::move(bert), std::move(head)}};
      }
      bert.children.push_back(
          ModuleNode{"bert.pooler",
                     c + "Pooler",
                     {leaf("bert.pooler.dense", kLinear),
                      leaf("bert.pooler.activation", "torch.nn.modules.activation.Tanh")}});
      return ModuleNode{"",
                        c + "ForSequenceClassification",
                        {std::move(bert), leaf("dropout", kDropout), leaf("classifier", kLinear)}};
    case models::HeadKind::kCausalLm:
      break;
  }
  ZS_UNREACHABLE();
}

// transformers 5.16 T5ForConditionalGeneration: each T5Stack.forward runs embed_tokens (an
// Embedding sharing `shared`'s weight; `shared` itself is never called), dropout, the blocks
// (T5LayerSelfAttention: layer_norm, SelfAttention(q, k, v, relative_attention_bias in block 0,
// o), dropout; the decoder's T5LayerCrossAttention alike with EncDecAttention; T5LayerFF:
// layer_norm, DenseReluDense(wi, act, dropout, wo; gated: wi_0, act, wi_1, dropout, wo), dropout),
// final_layer_norm and dropout; then lm_head.
ModuleNode t5_tree(const models::ModelSpec& spec) {
  const std::string c = "transformers.models.t5.modeling_t5.T5";
  const std::string norm = c + "LayerNorm";
  const std::string act = activation_class(spec.activation);
  auto attention = [&](const std::string& p, const std::string& cls, const char* name,
                       bool relative) {
    ModuleNode a{p + "." + name, c + "Attention", {}};
    for (const char* proj : {".q", ".k", ".v"}) a.children.push_back(leaf(a.name + proj, kLinear));
    if (relative) a.children.push_back(leaf(a.name + ".relative_attention_bias", kEmbedding));
    a.children.push_back(leaf(a.name + ".o", kLinear));
    return ModuleNode{
        p, c + cls, {leaf(p + ".layer_norm", norm), std::move(a), leaf(p + ".dropout", kDropout)}};
  };
  auto feed_forward = [&](const std::string& p) {
    const std::string d = p + ".DenseReluDense";
    ModuleNode dense{d, c + "DenseActDense", {}};
    if (spec.mlp == models::MlpKind::kSwiGlu) {
      dense.cls = c + "DenseGatedActDense";
      dense.children = {leaf(d + ".wi_0", kLinear), leaf(d + ".act", act),
                        leaf(d + ".wi_1", kLinear)};
    } else {
      dense.children = {leaf(d + ".wi", kLinear), leaf(d + ".act", act)};
    }
    dense.children.push_back(leaf(d + ".dropout", kDropout));
    dense.children.push_back(leaf(d + ".wo", kLinear));
    return ModuleNode{
        p,
        c + "LayerFF",
        {leaf(p + ".layer_norm", norm), std::move(dense), leaf(p + ".dropout", kDropout)}};
  };
  auto stack = [&](const std::string& name, std::int64_t layers) {
    const bool decoder = name == "decoder";
    ModuleNode st{name,
                  c + "Stack",
                  {leaf(name + ".embed_tokens", kEmbedding), leaf(name + ".dropout", kDropout)}};
    for (int i = 0; i < layers; ++i) {
      const std::string p = name + ".block." + std::to_string(i) + ".layer.";
      ModuleNode block{name + ".block." + std::to_string(i), c + "Block", {}};
      block.children.push_back(attention(p + "0", "LayerSelfAttention", "SelfAttention", i == 0));
      if (decoder) {
        block.children.push_back(
            attention(p + "1", "LayerCrossAttention", "EncDecAttention", false));
      }
      block.children.push_back(feed_forward(p + (decoder ? "2" : "1")));
      st.children.push_back(std::move(block));
    }
    // The stack's dropout module runs twice, after the embedding and after the final norm:
    // one module, its second call one more visit.
    st.children.push_back(leaf(name + ".final_layer_norm", norm));
    st.children.push_back(leaf(name + ".dropout", kDropout));
    return st;
  };
  return ModuleNode{"",
                    c + "ForConditionalGeneration",
                    {stack("encoder", spec.num_layers), stack("decoder", spec.num_decoder_layers),
                     leaf("lm_head", kLinear)}};
}

// transformers 5.16 BlenderbotForConditionalGeneration: each stack (BlenderbotEncoder,
// BlenderbotDecoder) runs embed_tokens (its scaled Embedding sharing model.shared's weight;
// `shared` itself is never called), embed_positions, its layers (self_attn_layer_norm,
// self_attn(q_proj, k_proj, v_proj, out_proj), the decoder's encoder_attn_layer_norm and
// encoder_attn, final_layer_norm, fc1, activation_fn, fc2; dropout is functional) and its
// layer_norm; then lm_head. BartForConditionalGeneration (modeling_bart.py): each stack runs
// embed_tokens, embed_positions and layernorm_embedding before its layers, each layer's norms
// after their sublayers (self_attn, self_attn_layer_norm, encoder_attn, encoder_attn_layer_norm,
// fc1, activation_fn, fc2, final_layer_norm), and no norm after them.
ModuleNode blenderbot_tree(const models::ModelSpec& spec) {
  const bool bart = spec.model_type == models::ModelType::kBart;
  const std::string c = bart ? "transformers.models.bart.modeling_bart.Bart"
                             : "transformers.models.blenderbot.modeling_blenderbot.Blenderbot";
  const std::string ln = "torch.nn.modules.normalization.LayerNorm";
  const std::string act = activation_class(spec.activation);
  auto stack = [&](const std::string& name, const char* cls, std::int64_t layers) {
    const bool decoder = name == "model.decoder";
    ModuleNode st{name,
                  c + cls,
                  {leaf(name + ".embed_tokens", c + "ScaledWordEmbedding"),
                   leaf(name + ".embed_positions", c + "LearnedPositionalEmbedding")}};
    if (bart) st.children.push_back(leaf(name + ".layernorm_embedding", ln));
    for (int i = 0; i < layers; ++i) {
      const std::string p = name + ".layers." + std::to_string(i) + ".";
      ModuleNode layer{
          p.substr(0, p.size() - 1), c + (decoder ? "DecoderLayer" : "EncoderLayer"), {}};
      auto attention = [&](const std::string& a) {
        if (!bart) layer.children.push_back(leaf(p + a + "_layer_norm", ln));
        ModuleNode attn{p + a, c + "Attention", {}};
        for (const char* proj : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
          attn.children.push_back(leaf(p + a + "." + proj, kLinear));
        }
        layer.children.push_back(std::move(attn));
        if (bart) layer.children.push_back(leaf(p + a + "_layer_norm", ln));
      };
      attention("self_attn");
      if (decoder) attention("encoder_attn");
      if (!bart) layer.children.push_back(leaf(p + "final_layer_norm", ln));
      layer.children.push_back(leaf(p + "fc1", kLinear));
      layer.children.push_back(leaf(p + "activation_fn", act));
      layer.children.push_back(leaf(p + "fc2", kLinear));
      if (bart) layer.children.push_back(leaf(p + "final_layer_norm", ln));
      st.children.push_back(std::move(layer));
    }
    if (!bart) st.children.push_back(leaf(name + ".layer_norm", ln));
    return st;
  };
  ModuleNode model{"model",
                   c + "Model",
                   {stack("model.encoder", "Encoder", spec.num_layers),
                    stack("model.decoder", "Decoder", spec.num_decoder_layers)}};
  return ModuleNode{
      "", c + "ForConditionalGeneration", {std::move(model), leaf("lm_head", kLinear)}};
}

// LlamaForCausalLM (Mistral, Qwen2, Qwen3, Mixtral and Phi-3 alike, each with its own class names):
// LlamaModel.forward runs embed_tokens, the rotary embedding (cos/sin need no gradient), the
// decoder layers and the norm. Qwen3Attention calls q_norm right after q_proj and k_norm after
// k_proj (modeling_qwen3.py), Gemma3Attention both after v_proj (modeling_gemma3.py). The Gemma
// families' embedding is a *TextScaledWordEmbedding; Gemma 2's and 3's layers call
// post_attention_layernorm on the attention's output and pre_feedforward_layernorm and
// post_feedforward_layernorm around the MLP. Gemma3TextModel calls its rotary embedding once
// per layer type (full and sliding): one call here, its second hook pair not counted.
// transformers' module path and class prefix of a Llama-like family: "transformers.models.
// llama.modeling_llama.Llama" and the like (Gemma 3's text model under gemma3).
std::string llama_classes(const models::ModelSpec& spec) {
  const std::string type(models::model_type_name(spec.model_type));
  const bool gemma3 = spec.model_type == models::ModelType::kGemma3Text;
  const std::string dir = gemma3 ? "gemma3" : type;
  const std::string prefix = type == "llama"       ? "Llama"
                             : type == "mistral"   ? "Mistral"
                             : type == "qwen2"     ? "Qwen2"
                             : type == "qwen3"     ? "Qwen3"
                             : type == "mixtral"   ? "Mixtral"
                             : type == "qwen3_moe" ? "Qwen3Moe"
                             : type == "qwen2_moe" ? "Qwen2Moe"
                             : type == "gemma"     ? "Gemma"
                             : type == "gemma2"    ? "Gemma2"
                             : gemma3              ? "Gemma3"
                                                   : "Phi3";
  return "transformers.models." + dir + ".modeling_" + dir + "." + prefix;
}

// modeling_phi3.py Phi3DecoderLayer.forward at prefix p: the norm, self_attn (qkv_proj,
// o_proj), resid_attn_dropout, the second norm, mlp (gate_up_proj, activation_fn, down_proj),
// resid_mlp_dropout.
ModuleNode phi3_layer(const std::string& p, const std::string& c, const std::string& norm,
                      const std::string& act) {
  return ModuleNode{
      p,
      c + "DecoderLayer",
      {leaf(p + ".input_layernorm", norm),
       ModuleNode{
           p + ".self_attn",
           c + "Attention",
           {leaf(p + ".self_attn.qkv_proj", kLinear), leaf(p + ".self_attn.o_proj", kLinear)}},
       leaf(p + ".resid_attn_dropout", kDropout), leaf(p + ".post_attention_layernorm", norm),
       ModuleNode{p + ".mlp",
                  c + "MLP",
                  {leaf(p + ".mlp.gate_up_proj", kLinear), leaf(p + ".mlp.activation_fn", act),
                   leaf(p + ".mlp.down_proj", kLinear)}},
       leaf(p + ".resid_mlp_dropout", kDropout)}};
}

// The attention at prefix p: q, k, v (Qwen3's q and k norms after their projections, Gemma 3's
// after v), o.
ModuleNode llama_attention(const models::ModelSpec& spec, const std::string& p,
                           const std::string& c, const std::string& norm) {
  const bool gemma3 = spec.model_type == models::ModelType::kGemma3Text;
  ModuleNode attn{p + ".self_attn", c + "Attention", {leaf(p + ".self_attn.q_proj", kLinear)}};
  const bool norm_each = spec.qk_norm && !gemma3;
  if (norm_each) attn.children.push_back(leaf(p + ".self_attn.q_norm", norm));
  attn.children.push_back(leaf(p + ".self_attn.k_proj", kLinear));
  if (norm_each) attn.children.push_back(leaf(p + ".self_attn.k_norm", norm));
  attn.children.push_back(leaf(p + ".self_attn.v_proj", kLinear));
  if (spec.qk_norm && gemma3) {
    attn.children.push_back(leaf(p + ".self_attn.q_norm", norm));
    attn.children.push_back(leaf(p + ".self_attn.k_norm", norm));
  }
  attn.children.push_back(leaf(p + ".self_attn.o_proj", kLinear));
  return attn;
}

// The MLP at prefix p. Mixtral's and Qwen3-MoE's sparse MoE blocks call their router, then
// their experts, whose gating calls act_fn (modeling_mixtral.py MixtralSparseMoeBlock.forward,
// modeling_qwen3_moe.py Qwen3MoeSparseMoeBlock.forward; integrations/moe.py
// _default_apply_gate). Qwen2-MoE's calls its shared expert (a Qwen2MoeMLP, the dense MLP's
// module under another name) first and its shared_expert_gate last (modeling_qwen2_moe.py
// Qwen2MoeSparseMoeBlock.forward).
ModuleNode llama_mlp(const models::ModelSpec& spec, const std::string& p, const std::string& c,
                     const std::string& act) {
  ModuleNode mlp{p + ".mlp",
                 c + "MLP",
                 {leaf(p + ".mlp.gate_proj", kLinear), leaf(p + ".mlp.act_fn", act),
                  leaf(p + ".mlp.up_proj", kLinear), leaf(p + ".mlp.down_proj", kLinear)}};
  if (!spec.moe.enabled()) return mlp;
  ModuleNode shared = std::move(mlp);
  shared.name = p + ".mlp.shared_expert";
  for (ModuleNode& n : shared.children) n.name = shared.name + n.name.substr(p.size() + 4);
  ModuleNode moe{p + ".mlp", c + "SparseMoeBlock", {}};
  if (spec.moe.shared_expert_size > 0) moe.children.push_back(std::move(shared));
  moe.children.push_back(leaf(p + ".mlp.gate", c + "TopKRouter"));
  moe.children.push_back(
      ModuleNode{p + ".mlp.experts", c + "Experts", {leaf(p + ".mlp.experts.act_fn", act)}});
  if (spec.moe.shared_expert_size > 0) {
    moe.children.push_back(leaf(p + ".mlp.shared_expert_gate", kLinear));
  }
  return moe;
}

ModuleNode llama_tree(const models::ModelSpec& spec) {
  const std::string c = llama_classes(spec);
  const bool gemma3 = spec.model_type == models::ModelType::kGemma3Text;
  const std::string norm = c + "RMSNorm";
  const std::string embedding = models::is_gemma(spec) ? c + "TextScaledWordEmbedding" : kEmbedding;
  ModuleNode model{"model",
                   c + (gemma3 ? "TextModel" : "Model"),
                   {leaf("model.embed_tokens", embedding),
                    leaf("model.rotary_emb", c + "RotaryEmbedding", false)}};
  const std::string act = activation_class(spec.activation);
  for (int i = 0; i < spec.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    if (spec.model_type == models::ModelType::kPhi3) {
      model.children.push_back(phi3_layer(p, c, norm, act));
      continue;
    }
    ModuleNode layer{p,
                     c + "DecoderLayer",
                     {leaf(p + ".input_layernorm", norm), llama_attention(spec, p, c, norm),
                      leaf(p + ".post_attention_layernorm", norm)}};
    if (spec.sandwich_norms) layer.children.push_back(leaf(p + ".pre_feedforward_layernorm", norm));
    layer.children.push_back(llama_mlp(spec, p, c, act));
    if (spec.sandwich_norms)
      layer.children.push_back(leaf(p + ".post_feedforward_layernorm", norm));
    model.children.push_back(std::move(layer));
  }
  model.children.push_back(leaf("model.norm", norm));
  return ModuleNode{"", c + "ForCausalLM", {std::move(model), leaf("lm_head", kLinear)}};
}

// DeepseekV2ForCausalLM and DeepseekV3ForCausalLM (modeling_deepseek_v2.py, _v3.py): Llama's
// model and decoder layers; DeepseekV2Attention.forward calls q_proj (or q_a_proj, q_a_layernorm,
// q_b_proj), kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj (inside expand_kv) and o_proj; a dense
// first layer's mlp is DeepseekV2MLP (gate_proj, act_fn, up_proj, down_proj), the others'
// DeepseekV2Moe (V3: DeepseekV3MoE), which calls gate, experts (whose act_fn runs inside) and
// shared_experts.
ModuleNode deepseek_tree(const models::ModelSpec& spec) {
  const bool v3 = spec.model_type == models::ModelType::kDeepseekV3;
  const std::string dir = v3 ? "deepseek_v3" : "deepseek_v2";
  const std::string c =
      "transformers.models." + dir + ".modeling_" + dir + "." + (v3 ? "DeepseekV3" : "DeepseekV2");
  const std::string norm = c + "RMSNorm", act = activation_class(spec.activation);
  ModuleNode model{"model",
                   c + "Model",
                   {leaf("model.embed_tokens", kEmbedding),
                    leaf("model.rotary_emb", c + "RotaryEmbedding", false)}};
  auto mlp = [&](const std::string& name) {
    return ModuleNode{name,
                      c + "MLP",
                      {leaf(name + ".gate_proj", kLinear), leaf(name + ".act_fn", act),
                       leaf(name + ".up_proj", kLinear), leaf(name + ".down_proj", kLinear)}};
  };
  for (int i = 0; i < spec.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i), a = p + ".self_attn.";
    ModuleNode attn{p + ".self_attn", c + "Attention", {}};
    if (spec.mla.q_lora_rank == 0) {
      attn.children.push_back(leaf(a + "q_proj", kLinear));
    } else {
      attn.children.push_back(leaf(a + "q_a_proj", kLinear));
      attn.children.push_back(leaf(a + "q_a_layernorm", norm));
      attn.children.push_back(leaf(a + "q_b_proj", kLinear));
    }
    for (const char* m : {"kv_a_proj_with_mqa", "kv_a_layernorm", "kv_b_proj", "o_proj"}) {
      attn.children.push_back(
          leaf(a + m, std::string_view(m) == "kv_a_layernorm" ? norm : kLinear));
    }
    ModuleNode ffn = mlp(p + ".mlp");
    if (models::has_experts(spec, i)) {
      ffn = ModuleNode{
          p + ".mlp",
          c + (v3 ? "MoE" : "Moe"),
          {leaf(p + ".mlp.gate", c + "TopkRouter"),
           ModuleNode{p + ".mlp.experts", c + "Experts", {leaf(p + ".mlp.experts.act_fn", act)}}}};
      if (spec.moe.shared_expert_size > 0) ffn.children.push_back(mlp(p + ".mlp.shared_experts"));
    }
    model.children.push_back(
        ModuleNode{p,
                   c + "DecoderLayer",
                   {leaf(p + ".input_layernorm", norm), std::move(attn),
                    leaf(p + ".post_attention_layernorm", norm), std::move(ffn)}});
  }
  model.children.push_back(leaf("model.norm", norm));
  return ModuleNode{"", c + "ForCausalLM", {std::move(model), leaf("lm_head", kLinear)}};
}

}  // namespace

ModuleNode module_tree(const models::ModelSpec& spec, bool flash_attention) {
  switch (spec.model_type) {
    case models::ModelType::kGpt2:
      return gpt2_tree(spec.num_layers, !flash_attention, spec.activation);
    case models::ModelType::kOpt:
      return opt_tree(spec);
    case models::ModelType::kGptNeox:
      return gpt_neox_tree(spec);
    case models::ModelType::kBloom:
      return bloom_tree(spec);
    case models::ModelType::kFalcon:
      return falcon_tree(spec);
    case models::ModelType::kDebertaV2:
      return deberta_tree(spec);
    case models::ModelType::kT5:
      return t5_tree(spec);
    case models::ModelType::kBlenderbot:
    case models::ModelType::kBart:
      return blenderbot_tree(spec);
    default:
      break;
  }
  if (models::is_deepseek(spec)) return deepseek_tree(spec);
  if (models::is_encoder(spec)) return bert_tree(spec);
  return llama_tree(spec);
}

}  // namespace zs::plan
