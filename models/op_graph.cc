#include "models/op_graph.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "models/op_costs.h"
#include "models/parameters.h"

namespace zs::models {
namespace {

constexpr Bytes kFp32Bytes = 4;
constexpr Bytes kInt64Bytes = 8;
constexpr Bytes kMaskBytes = 1;

// HF module names of the per-family pieces of one layer.
struct LayerModules {
  std::string attn_norm{}, mlp_norm{}, qkv{}, q{}, k{}, v{}, out{}, up{}, gate{}, gate_up{}, down{};
  std::string q_norm{}, k_norm{};                 // Qwen3's and Gemma 3's, else empty
  std::string attn_post_norm{}, mlp_post_norm{};  // Gemma 2's and 3's sandwich norms, else empty
};

class OpListBuilder {
 public:
  OpListBuilder(const ModelSpec& spec, const Workload& w)
      : spec_(spec), w_(w), t_(w.tokens()), e_(w.act_bytes) {
    for (const ParamTensor& p : parameter_tensors(spec)) modules_[p.module].push_back(p.id);
  }

  std::vector<Op> build() && {
    if (is_encoder(spec_)) return std::move(*this).build_encoder();
    if (is_encoder_decoder(spec_)) return std::move(*this).build_encoder_decoder();
    resid_ = add_embedding();
    if (spec_.model_type == ModelType::kBloom) {  // BloomModel.forward: word_embeddings_layernorm
      resid_ =
          add("embed_norm", OpKind::kNorm, kEmbeddingLayer,
              {"transformer.word_embeddings_layernorm"}, {resid_},
              NormShape{t_, spec_.hidden_size, spec_.norm}, {act("input", t_ * spec_.hidden_size)});
    }
    for (int i = 0; i < spec_.num_layers; ++i) add_layer(i);
    const int top = static_cast<int>(spec_.num_layers);
    const std::int64_t h = spec_.hidden_size, V = spec_.vocab_size;
    const std::string final_norm = final_norm_module();
    const int norm = add("final_norm", OpKind::kNorm, top, {final_norm}, {resid_},
                         NormShape{t_, h, spec_.norm}, {act("input", t_ * h)});
    const int head = add("lm_head", OpKind::kLinear, top, {"lm_head"}, {norm},
                         GemmShape{t_, V, h, false}, {act("input", t_ * h)});
    // Gemma 2 soft-caps the logits first (Gemma2ForCausalLM.forward): tanh keeps its output.
    std::vector<SavedTensor> loss_saved = {{"log_probs (fp32)", kFp32Bytes * t_ * V},
                                           {"labels (int64)", kInt64Bytes * t_}};
    if (spec_.logit_softcap > 0) loss_saved.push_back(act("softcap tanh_out", t_ * V));
    add("loss", OpKind::kCrossEntropy, top, {}, {head, kTargetsInput},
        CrossEntropyShape{t_, V, spec_.logit_softcap}, std::move(loss_saved));
    return std::move(ops_);
  }

 private:
  SavedTensor act(std::string what, std::int64_t numel) const {
    return {std::move(what), e_ * numel};
  }
  static SavedTensor mask(std::int64_t numel) { return {"dropout_mask", kMaskBytes * numel}; }

  // modeling_bert.py: BertEmbeddings (the word, token-type and position tables summed, LayerNorm,
  // dropout), post-norm layers, the head. modeling_roberta.py's under roberta.* (its position ids,
  // counted from the input ids, are integer work outside the ops).
  std::vector<Op> build_encoder() && {
    const std::int64_t h = spec_.hidden_size;
    const std::string e = encoder_base() + ".embeddings.";
    // DeBERTa-v2's embeddings have the word table alone (no positions, no token types).
    const bool tables = !deberta();
    std::vector<std::string> embed_modules = {e + "word_embeddings"};
    if (tables) {
      embed_modules.push_back(e + "token_type_embeddings");
      embed_modules.push_back(e + "position_embeddings");
    }
    const int embed = add("embed", OpKind::kEmbedding, kEmbeddingLayer, std::move(embed_modules),
                          {kTokenIdsInput},
                          EmbeddingShape{.tokens = t_,
                                         .hidden = h,
                                         .vocab = spec_.vocab_size,
                                         .learned_positions = tables,
                                         .token_types = tables},
                          {{"input_ids (int64)", kInt64Bytes * t_}});
    std::vector<SavedTensor> norm_saved = {act("input", t_ * h)};
    if (spec_.dropout.embd > 0) norm_saved.push_back(mask(t_ * h));
    resid_ = add("embed_norm", OpKind::kNorm, kEmbeddingLayer, {e + "LayerNorm"}, {embed},
                 NormShape{t_, h, spec_.norm, spec_.dropout.embd}, std::move(norm_saved));
    if (deberta()) {
      // DebertaV2Encoder.get_rel_embedding: encoder.LayerNorm over rel_embeddings.weight, once a
      // step (the table's Embedding module is never called). The norm's backward returns the
      // table's gradient before its own weight's (the oracle's stage-2 buckets show it): listed
      // last, gradient_ready_order puts it first.
      const std::int64_t rows = 2 * spec_.disentangled.span;
      rel_table_ = add("rel_norm", OpKind::kNorm, kEmbeddingLayer,
                       {"deberta.encoder.LayerNorm", "deberta.encoder.rel_embeddings"}, {},
                       NormShape{rows, h, spec_.norm}, {act("input", rows * h)});
    }
    for (int i = 0; i < spec_.num_layers; ++i) {
      const int input = resid_;
      add_encoder_layer(i);
      if (i == 0 && spec_.disentangled.conv_kernel > 0) add_conv_layer(input);
    }
    add_encoder_head();
    return std::move(ops_);
  }

  // BertLayer: attention (query, key, value, the core, output.dense), dropout + add, LayerNorm;
  // intermediate (dense, GELU), output.dense, dropout + add, LayerNorm. The norm after each add
  // keeps the sum; its output is the residual stream and the next linears' saved input.
  void add_encoder_layer(int i) {
    const std::string m = encoder_base() + ".encoder.layer." + std::to_string(i) + ".";
    const std::string p = "layers." + std::to_string(i) + ".";
    const std::int64_t h = spec_.hidden_size, I = spec_.intermediate_size;
    const std::string proj = deberta() ? "_proj" : "";  // DisentangledSelfAttention's names
    const std::string self = m + "attention.self.";
    const int q = add(p + "attn.q_proj", OpKind::kLinear, i, {self + "query" + proj}, {resid_},
                      GemmShape{t_, h, h, true}, {act("input", t_ * h)});
    const int k = add(p + "attn.k_proj", OpKind::kLinear, i, {self + "key" + proj}, {resid_},
                      GemmShape{t_, h, h, true}, {});
    const int v = add(p + "attn.v_proj", OpKind::kLinear, i, {self + "value" + proj}, {resid_},
                      GemmShape{t_, h, h, true}, {});
    std::vector<int> core_inputs = {q, k, v};
    if (deberta()) add_disentangled(p, i, q, k, &core_inputs);
    const int core = add_attention_core(p, i, std::move(core_inputs));
    const int out = add(p + "attn.out_proj", OpKind::kLinear, i, {m + "attention.output.dense"},
                        {core}, GemmShape{t_, h, h, true}, {act("input", t_ * h)});
    resid_ = add_residual(p + "attn.residual", i, out);
    resid_ = add(p + "attn_norm", OpKind::kNorm, i, {m + "attention.output.LayerNorm"}, {resid_},
                 NormShape{t_, h, spec_.norm}, {act("input", t_ * h)});
    const int up = add(p + "mlp.up", OpKind::kLinear, i, {m + "intermediate.dense"}, {resid_},
                       GemmShape{t_, I, h, true}, {act("input", t_ * h)});
    const int gelu = add(p + "mlp.act", OpKind::kActivation, i, {}, {up}, ElementwiseShape{t_ * I},
                         {act("input", t_ * I)});
    const int down = add(p + "mlp.down", OpKind::kLinear, i, {m + "output.dense"}, {gelu},
                         GemmShape{t_, h, I, true}, {act("input", t_ * I)});
    resid_ = add_residual(p + "mlp.residual", i, down);
    resid_ = add(p + "mlp_norm", OpKind::kNorm, i, {m + "output.LayerNorm"}, {resid_},
                 NormShape{t_, h, spec_.norm}, {act("input", t_ * h)});
  }

  // "bert", "roberta" or "deberta": the encoder's module prefix.
  std::string encoder_base() const {
    return spec_.model_type == ModelType::kRoberta     ? "roberta"
           : spec_.model_type == ModelType::kDebertaV2 ? "deberta"
                                                       : "bert";
  }

  bool deberta() const { return spec_.model_type == ModelType::kDebertaV2; }

  // DisentangledSelfAttention.disentangled_attention_bias (share_att_key): query_proj and
  // key_proj applied again to the normalized table (attn.pos_q, attn.pos_k: GEMMs of 2 span
  // rows, their parameters the projections' own, counted there), then c2p, the queries against
  // the projected keys, and p2c, the keys against the projected queries: batched GEMMs of
  // b a s x 2 span x d, each keeping the projection it multiplies repeated for every sequence
  // (.repeat: b x 2 span x h) and p2c the keys too (the scores' own GEMM keeps key / scale, a
  // tensor of its own). Their gathers to s x s and the score adds are not priced; a gather keeps
  // only its int64 index (s x s, shared).
  void add_disentangled(const std::string& p, int i, int q, int k, std::vector<int>* core_inputs) {
    const std::int64_t h = spec_.hidden_size, b = w_.micro_batch, d = spec_.head_dim;
    const std::int64_t rows = 2 * spec_.disentangled.span;
    const std::int64_t pairs = b * spec_.num_heads * w_.seq_len;  // (sequence, head, query) rows
    const int pos_q = add(p + "attn.pos_q", OpKind::kLinear, i, {}, {rel_table_},
                          GemmShape{rows, h, h, true}, {});
    const int pos_k = add(p + "attn.pos_k", OpKind::kLinear, i, {}, {rel_table_},
                          GemmShape{rows, h, h, true}, {});
    if (spec_.disentangled.c2p) {
      core_inputs->push_back(add(p + "attn.c2p", OpKind::kLinear, i, {}, {q, pos_k},
                                 GemmShape{pairs, rows, d, false},
                                 {act("pos_key (repeated per sequence)", b * rows * h)}));
    }
    if (spec_.disentangled.p2c) {
      core_inputs->push_back(
          add(p + "attn.p2c", OpKind::kLinear, i, {}, {k, pos_q}, GemmShape{pairs, rows, d, false},
              {act("key", t_ * h), act("pos_query (repeated per sequence)", b * rows * h)}));
    }
  }

  // DeBERTa-v2's ConvLayer after the first layer (DebertaV2Encoder.forward): Conv1d over the
  // layer's input (op `input`, made contiguous: a copy the convolution keeps), dropout, its
  // activation, the first layer's output added, LayerNorm; the norm's output is the next layer's
  // input. The ops take layer 0.
  void add_conv_layer(int input) {
    const std::int64_t h = spec_.hidden_size, n = t_ * h;
    const std::int64_t kernel = spec_.disentangled.conv_kernel;
    const int conv =
        add("layers.0.conv", OpKind::kLinear, 0, {"deberta.encoder.conv.conv"}, {input},
            GemmShape{t_, h, h * kernel, true}, {act("input (a contiguous copy)", n)});
    // convolution_backward returns the weight's gradient before the bias's, and autograd
    // accumulates them in that order (the oracle's stage-2 buckets show it): listed bias first,
    // gradient_ready_order puts the weight first.
    std::reverse(ops_[conv].param_ids.begin(), ops_[conv].param_ids.end());
    std::vector<SavedTensor> act_saved = {act("input", n)};
    if (spec_.dropout.resid > 0) act_saved.push_back(mask(n));
    const int act_op = add("layers.0.conv.act", OpKind::kActivation, 0, {}, {conv},
                           ElementwiseShape{n, spec_.dropout.resid}, std::move(act_saved));
    const int sum = add("layers.0.conv.residual", OpKind::kResidualAdd, 0, {}, {resid_, act_op},
                        ElementwiseShape{n}, {});
    resid_ = add("layers.0.conv_norm", OpKind::kNorm, 0, {"deberta.encoder.conv.LayerNorm"}, {sum},
                 NormShape{t_, h, spec_.norm}, {act("input", n)});
  }

  // The head's ops and the loss, reading the last layer's output.
  //   masked_lm: head.dense, head.act, head.norm (BertPredictionHeadTransform; RobertaLMHead's
  //     dense, gelu, layer_norm), lm_head (the decoder over V, its bias cls.predictions.bias or
  //     lm_head.bias), loss over every token.
  //   question_answering: head (qa_outputs, num_labels = 2 outputs a token), loss: the start and
  //     end logits of each sequence, num_labels rows of s classes per sequence (fp32).
  //   sequence_classification: pooler (bert.pooler.dense on each sequence's first token), its
  //     tanh (pooler.act), head (classifier), loss over b rows of num_labels. The classifier's
  //     dropout on b x h (a mask of b x h bytes) is not counted. RoBERTa's classifier takes each
  //     first token through dropout, dense, tanh, dropout, out_proj: the dense saves the
  //     dropout's b x h output, not the last layer's (those b x h masks are not counted either).
  void add_encoder_head() {
    const bool roberta = spec_.model_type == ModelType::kRoberta;
    const int top = static_cast<int>(spec_.num_layers);
    const std::int64_t h = spec_.hidden_size, V = spec_.vocab_size, L = spec_.num_labels;
    const std::int64_t b = w_.micro_batch, s = w_.seq_len;
    auto loss = [&](int logits, std::int64_t rows, std::int64_t classes) {
      add("loss", OpKind::kCrossEntropy, top, {}, {logits, kTargetsInput},
          CrossEntropyShape{rows, classes},
          {{"log_probs (fp32)", kFp32Bytes * rows * classes},
           {"labels (int64)", kInt64Bytes * rows}});
    };
    switch (spec_.head) {
      case HeadKind::kMaskedLm: {
        const std::string c = roberta ? "lm_head." : "cls.predictions.";
        const int dense =
            add("head.dense", OpKind::kLinear, top, {c + (roberta ? "dense" : "transform.dense")},
                {resid_}, GemmShape{t_, h, h, true}, {act("input", t_ * h)});
        const int gelu = add("head.act", OpKind::kActivation, top, {}, {dense},
                             ElementwiseShape{t_ * h}, {act("input", t_ * h)});
        const int norm = add("head.norm", OpKind::kNorm, top,
                             {c + (roberta ? "layer_norm" : "transform.LayerNorm")}, {gelu},
                             NormShape{t_, h, spec_.norm}, {act("input", t_ * h)});
        const int logits = add("lm_head", OpKind::kLinear, top, {c + "decoder"}, {norm},
                               GemmShape{t_, V, h, true}, {act("input", t_ * h)});
        loss(logits, t_, V);
        return;
      }
      case HeadKind::kQuestionAnswering: {
        const int logits = add("head", OpKind::kLinear, top, {"qa_outputs"}, {resid_},
                               GemmShape{t_, L, h, true}, {act("input", t_ * h)});
        loss(logits, b * L, s);
        return;
      }
      case HeadKind::kSequenceClassification: {
        // BERT's pooler's input is a view of the last layer's output: autograd keeps all of it.
        const std::string pooler_module = roberta     ? "classifier.dense"
                                          : deberta() ? "pooler.dense"
                                                      : "bert.pooler.dense";
        const int pooler =
            add("pooler", OpKind::kLinear, top, {pooler_module}, {resid_}, GemmShape{b, h, h, true},
                {roberta ? act("input", b * h) : act("input (a view of t x h)", t_ * h)});
        const int tanh = add("pooler.act", OpKind::kActivation, top, {}, {pooler},
                             ElementwiseShape{b * h}, {act("output", b * h)});
        const int logits =
            add("head", OpKind::kLinear, top, {roberta ? "classifier.out_proj" : "classifier"},
                {tanh}, GemmShape{b, L, h, true}, {act("input", b * h)});
        loss(logits, b, L);
        return;
      }
      case HeadKind::kCausalLm:
        break;
    }
    ZS_UNREACHABLE();
  }

  // modeling_t5.py T5ForConditionalGeneration.forward: the encoder stack (embed_tokens, dropout,
  // the blocks, final_layer_norm, dropout), the decoder stack over the target tokens (the same,
  // each block with a cross-attention over the encoder's output), lm_head, the loss. The
  // encoder's final norm and the decoder's embedding are outside the layers (kEmbeddingLayer).
  // Not counted: each stack's first layer materializes position_bias (+ the mask) as one b x a
  // x s x s_k tensor its other layers add (not saved by autograd), the decoder output's scaling
  // by d_model^-0.5 (one t x h multiply), and fp16's inf clamps after every sublayer.
  // Blenderbot's and BART's (modeling_bart.py BartForConditionalGeneration.forward) take the same
  // path; BART's stacks normalize their embeddings (layernorm_embedding, its dropout after it)
  // and end at their last layer's norm, the encoder's output and the head's input. Not counted:
  // BART's embedding scale of 1.0 without scale_embedding (one t x h multiply per stack) and the
  // final_logits_bias add (one t x V add), as Blenderbot's.
  std::vector<Op> build_encoder_decoder() && {
    const std::int64_t h = spec_.hidden_size;
    const std::int64_t te = t_, td = w_.micro_batch * w_.decoder_len();
    const bool t5 = spec_.model_type == ModelType::kT5;
    const std::string enc = t5 ? "encoder" : "model.encoder";
    const std::string dec = t5 ? "decoder" : "model.decoder";
    const char* final_norm = t5 ? ".final_layer_norm" : ".layer_norm";
    const double final_dropout = t5 ? spec_.dropout.resid : 0;  // T5Stack's dropout after it
    auto layer = [&](int i, std::int64_t tokens, int encoder_out) {
      if (t5) {
        add_t5_layer(i, tokens, encoder_out);
      } else {
        add_bart_layer(i, tokens, encoder_out);
      }
    };
    const bool post = spec_.post_norm;  // BART's
    resid_ = add_stack_embedding("embed", enc, te, kTokenIdsInput);
    for (int i = 0; i < spec_.num_layers; ++i) layer(i, te, -1);
    encoder_out_ =
        post ? resid_
             : add("encoder.final_norm", OpKind::kNorm, kEmbeddingLayer, {enc + final_norm},
                   {resid_}, NormShape{te, h, spec_.norm, final_dropout},
                   norm_saved(te, final_dropout));
    resid_ = add_stack_embedding("decoder.embed", dec, td, kTargetsInput);
    for (int i = 0; i < spec_.num_decoder_layers; ++i) {
      layer(static_cast<int>(spec_.num_layers) + i, td, encoder_out_);
    }
    const int top = static_cast<int>(total_layers(spec_));
    const std::int64_t V = spec_.vocab_size;
    const int norm =
        post ? resid_
             : add("final_norm", OpKind::kNorm, top, {dec + final_norm}, {resid_},
                   NormShape{td, h, spec_.norm, final_dropout}, norm_saved(td, final_dropout));
    const int head = add("lm_head", OpKind::kLinear, top, {"lm_head"}, {norm},
                         GemmShape{td, V, h, false}, {act("input", td * h)});
    // CrossEntropyLoss on the 16-bit logits: log_softmax keeps them in their dtype.
    add("loss", OpKind::kCrossEntropy, top, {}, {head, kTargetsInput}, CrossEntropyShape{td, V},
        {act("log_probs", td * V), {"labels (int64)", kInt64Bytes * td}});
    return std::move(ops_);
  }

  // A stack's final norm with `dropout` after it (T5's): its input, and the dropout's mask.
  std::vector<SavedTensor> norm_saved(std::int64_t tokens, double dropout) const {
    std::vector<SavedTensor> saved = {act("input", tokens * spec_.hidden_size)};
    if (dropout > 0) saved.push_back(mask(tokens * spec_.hidden_size));
    return saved;
  }

  // A stack's embed_tokens (the shared table; Blenderbot's scaled, plus its embed_positions) and
  // dropout over `tokens` ids; BART's dropout after the sum's layernorm_embedding (`name`_norm).
  int add_stack_embedding(const std::string& name, const std::string& stack, std::int64_t tokens,
                          int ids) {
    const std::int64_t h = spec_.hidden_size;
    const bool post = spec_.post_norm;
    const double dropout = spec_.dropout.embd;
    std::vector<SavedTensor> saved = {{"input_ids (int64)", kInt64Bytes * tokens}};
    if (dropout > 0 && !post) saved.push_back(mask(tokens * h));
    const bool learned = spec_.position == PositionKind::kLearned;
    std::vector<std::string> modules = {stack + ".embed_tokens"};
    if (learned) modules.push_back(stack + ".embed_positions");
    const int embed = add(name, OpKind::kEmbedding, kEmbeddingLayer, std::move(modules), {ids},
                          EmbeddingShape{.tokens = tokens,
                                         .hidden = h,
                                         .vocab = spec_.vocab_size,
                                         .learned_positions = learned,
                                         .dropout = post ? 0 : dropout,
                                         .scaled = spec_.scaled_embedding},
                          std::move(saved));
    if (!post) return embed;
    return add(name + "_norm", OpKind::kNorm, kEmbeddingLayer, {stack + ".layernorm_embedding"},
               {embed}, NormShape{tokens, h, spec_.norm, dropout}, norm_saved(tokens, dropout));
  }

  // An encoder-decoder layer's attention sublayer's HF modules (T5's or Blenderbot's).
  struct AttentionModules {
    std::string norm, q, k, v, o;
    std::string bias_table{};  // T5's relative_attention_bias in a stack's first layer
  };

  // A pre-normed attention sublayer `prefix` ("layers.N.attn" or ".cross") of `tokens` query
  // tokens: its norm, q, k and v projections (a cross-attention's k and v over op kv_input's
  // output, kv_seq tokens a sequence), the core, the output projection, dropout + the residual
  // add. Blenderbot's and BART's Linears have biases, T5's none. BART's (post_norm) norm comes
  // after the add instead.
  void add_seq2seq_attention(const std::string& prefix, int layer, std::int64_t tokens,
                             const AttentionModules& m, int kv_input, std::int64_t kv_seq,
                             bool causal) {
    const std::int64_t h = spec_.hidden_size, q = spec_.q_dim(), b = w_.micro_batch;
    const std::int64_t s = tokens / b, kv_tokens = b * kv_seq;
    const bool bias = spec_.bias.qkv;
    const int norm = spec_.post_norm
                         ? resid_
                         : add(prefix + "_norm", OpKind::kNorm, layer, {m.norm}, {resid_},
                               NormShape{tokens, h, spec_.norm}, {act("input", tokens * h)});
    const std::string o = prefix + ".";
    const int qp = add(o + "q_proj", OpKind::kLinear, layer, {m.q}, {norm},
                       GemmShape{tokens, q, h, bias}, {act("input", tokens * h)});
    const int kv = kv_input < 0 ? norm : kv_input;
    // The cross-attentions all read the one encoder output: kept once, by the first.
    std::vector<SavedTensor> kv_saved;
    if (kv_input >= 0 && layer == spec_.num_layers) {
      kv_saved.push_back(act("encoder output", kv_tokens * h));
    }
    const int kp = add(o + "k_proj", OpKind::kLinear, layer, {m.k}, {kv},
                       GemmShape{kv_tokens, q, h, bias}, std::move(kv_saved));
    const int vp = add(o + "v_proj", OpKind::kLinear, layer, {m.v}, {kv},
                       GemmShape{kv_tokens, q, h, bias}, {});
    const AttentionShape shape{.batch = b,
                               .seq = s,
                               .heads = spec_.num_heads,
                               .kv_heads = spec_.num_kv_heads,
                               .head_dim = spec_.head_dim,
                               .dropout = spec_.dropout.attn,
                               .causal = causal,
                               .kv_seq = kv_seq == s ? 0 : kv_seq};
    std::vector<std::string> table;
    if (!m.bias_table.empty()) table.push_back(m.bias_table);
    const int core = add_core(o + "core", layer, std::move(table), {qp, kp, vp}, shape);
    const int out = add(o + "out_proj", OpKind::kLinear, layer, {m.o}, {core},
                        GemmShape{tokens, h, q, spec_.bias.attn_out}, {act("input", tokens * q)});
    resid_ = add_residual(o + "residual", layer, out, tokens);
    if (spec_.post_norm) {
      resid_ = add(prefix + "_norm", OpKind::kNorm, layer, {m.norm}, {resid_},
                   NormShape{tokens, h, spec_.norm}, {act("input", tokens * h)});
    }
  }

  // A Blenderbot layer `layer` over `tokens` tokens (an encoder layer when encoder_out < 0):
  // self_attn_layer_norm, self_attn (q_proj, k_proj, v_proj, the core, out_proj), dropout + add;
  // the decoder's encoder_attn_layer_norm and encoder_attn over op encoder_out's output; then
  // final_layer_norm, fc1, the activation (activation_dropout after it), fc2, dropout + add.
  // BART's (post_norm): each norm after its sublayer's add.
  void add_bart_layer(int layer, std::int64_t tokens, int encoder_out) {
    const bool decoder = encoder_out >= 0;
    const int i = decoder ? layer - static_cast<int>(spec_.num_layers) : layer;
    const std::string m = std::string(decoder ? "model.decoder" : "model.encoder") + ".layers." +
                          std::to_string(i) + ".";
    const std::string p = "layers." + std::to_string(layer) + ".";
    const std::int64_t h = spec_.hidden_size;
    const std::int64_t b = w_.micro_batch, s = tokens / b;
    auto modules = [&](const std::string& a) {
      return AttentionModules{.norm = m + a + "_layer_norm",
                              .q = m + a + ".q_proj",
                              .k = m + a + ".k_proj",
                              .v = m + a + ".v_proj",
                              .o = m + a + ".out_proj"};
    };
    add_seq2seq_attention(p + "attn", layer, tokens, modules("self_attn"), -1, s, decoder);
    if (decoder) {
      add_seq2seq_attention(p + "cross", layer, tokens, modules("encoder_attn"), encoder_out,
                            w_.seq_len, false);
    }
    auto final_norm = [&] {
      return add(p + "mlp_norm", OpKind::kNorm, layer, {m + "final_layer_norm"}, {resid_},
                 NormShape{tokens, h, spec_.norm}, {act("input", tokens * h)});
    };
    const int norm = spec_.post_norm ? resid_ : final_norm();
    const int down = add_mlp(p, layer, {.up = m + "fc1", .down = m + "fc2"}, norm, tokens);
    resid_ = add_residual(p + "mlp.residual", layer, down, tokens);
    if (spec_.post_norm) resid_ = final_norm();
  }

  // T5Block `layer` over `tokens` tokens: an encoder block (encoder_out < 0) or a decoder block
  // with its cross-attention over op encoder_out's output.
  void add_t5_layer(int layer, std::int64_t tokens, int encoder_out) {
    const bool decoder = encoder_out >= 0;
    const int i = decoder ? layer - static_cast<int>(spec_.num_layers) : layer;
    const std::string m =
        std::string(decoder ? "decoder" : "encoder") + ".block." + std::to_string(i) + ".layer.";
    const std::string p = "layers." + std::to_string(layer) + ".";
    const std::int64_t h = spec_.hidden_size;
    const std::int64_t b = w_.micro_batch, s = tokens / b;
    auto modules = [&](const std::string& sub, const char* a, bool relative) {
      const std::string x = m + sub + a;
      return AttentionModules{.norm = m + sub + "layer_norm",
                              .q = x + "q",
                              .k = x + "k",
                              .v = x + "v",
                              .o = x + "o",
                              .bias_table = relative ? x + "relative_attention_bias" : ""};
    };
    add_seq2seq_attention(p + "attn", layer, tokens, modules("0.", "SelfAttention.", i == 0), -1, s,
                          decoder);
    if (decoder) {
      add_seq2seq_attention(p + "cross", layer, tokens, modules("1.", "EncDecAttention.", false),
                            encoder_out, w_.seq_len, false);
    }
    const std::string ff = m + (decoder ? "2." : "1.");
    const int norm = add(p + "mlp_norm", OpKind::kNorm, layer, {ff + "layer_norm"}, {resid_},
                         NormShape{tokens, h, spec_.norm}, {act("input", tokens * h)});
    // T5DenseActDense: wi, act, dropout, wo; T5DenseGatedActDense: act(wi_0(x)) * wi_1(x).
    const std::string d = ff + "DenseReluDense.";
    const int down = add_mlp(p, layer,
                             {.up = d + (spec_.mlp == MlpKind::kSwiGlu ? "wi_1" : "wi"),
                              .gate = d + "wi_0",
                              .down = d + "wo"},
                             norm, tokens);
    resid_ = add_residual(p + "mlp.residual", layer, down, tokens);
  }

  // The HF module of the norm after the last layer.
  std::string final_norm_module() const {
    switch (spec_.model_type) {
      case ModelType::kGpt2:
        return "transformer.ln_f";
      case ModelType::kOpt:
        return "model.decoder.final_layer_norm";
      case ModelType::kGptNeox:
        return "gpt_neox.final_layer_norm";
      case ModelType::kBloom:
      case ModelType::kFalcon:
        return "transformer.ln_f";
      default:
        return "model.norm";
    }
  }

  // Appends an op reading the outputs of ops `inputs` (Op::inputs); returns its index.
  int add(std::string name, OpKind kind, int layer, std::vector<std::string> modules,
          std::vector<int> inputs, OpShape shape, std::vector<SavedTensor> saved) {
    Op op;
    op.name = std::move(name);
    op.kind = kind;
    op.layer = layer;
    op.inputs = std::move(inputs);
    for (const std::string& m : modules) {
      const auto it = modules_.find(m);
      ZS_CHECK_MSG(it != modules_.end(), m.c_str());
      op.param_ids.insert(op.param_ids.end(), it->second.begin(), it->second.end());
    }
    op.shape = std::move(shape);
    op.cost = op_costs(kind, op.shape, w_.act_bytes);
    op.saved = std::move(saved);
    ops_.push_back(std::move(op));
    return static_cast<int>(ops_.size()) - 1;
  }

  int add_embedding() {
    const std::int64_t h = spec_.hidden_size;
    const bool learned = spec_.position == PositionKind::kLearned;
    std::vector<SavedTensor> saved = {{"input_ids (int64)", kInt64Bytes * t_}};
    if (spec_.dropout.embd > 0) saved.push_back(mask(t_ * h));
    std::vector<std::string> modules = {"model.embed_tokens"};
    if (spec_.model_type == ModelType::kGpt2) modules = {"transformer.wte", "transformer.wpe"};
    if (spec_.model_type == ModelType::kOpt) {
      modules = {"model.decoder.embed_tokens", "model.decoder.embed_positions"};
    }
    if (spec_.model_type == ModelType::kGptNeox) modules = {"gpt_neox.embed_in"};
    if (spec_.model_type == ModelType::kBloom || spec_.model_type == ModelType::kFalcon) {
      modules = {"transformer.word_embeddings"};
    }
    return add("embed", OpKind::kEmbedding, kEmbeddingLayer, modules, {kTokenIdsInput},
               EmbeddingShape{t_, h, spec_.vocab_size, learned, spec_.dropout.embd,
                              spec_.scaled_embedding},
               std::move(saved));
  }

  LayerModules layer_modules(int i) const {
    if (spec_.model_type == ModelType::kGpt2) {
      const std::string p = "transformer.h." + std::to_string(i) + ".";
      return {.attn_norm = p + "ln_1",
              .mlp_norm = p + "ln_2",
              .qkv = p + "attn.c_attn",
              .out = p + "attn.c_proj",
              .up = p + "mlp.c_fc",
              .down = p + "mlp.c_proj"};
    }
    if (spec_.model_type == ModelType::kGptNeox) {  // modeling_gpt_neox.py GPTNeoXLayer
      const std::string p = "gpt_neox.layers." + std::to_string(i) + ".";
      return {.attn_norm = p + "input_layernorm",
              .mlp_norm = p + "post_attention_layernorm",
              .qkv = p + "attention.query_key_value",
              .out = p + "attention.dense",
              .up = p + "mlp.dense_h_to_4h",
              .down = p + "mlp.dense_4h_to_h"};
    }
    // modeling_bloom.py BloomBlock, modeling_falcon.py FalconDecoderLayer (whose MLP shares
    // input_layernorm: no norm of its own; or, the new decoder architecture's, ln_attn and
    // ln_mlp)
    if (spec_.model_type == ModelType::kBloom || spec_.model_type == ModelType::kFalcon) {
      const std::string p = "transformer.h." + std::to_string(i) + ".";
      const bool falcon_two = falcon_two_norms();
      return {.attn_norm = p + (falcon_two ? "ln_attn" : "input_layernorm"),
              .mlp_norm = spec_.parallel_shared_norm ? ""
                          : falcon_two               ? p + "ln_mlp"
                                                     : p + "post_attention_layernorm",
              .qkv = p + "self_attention.query_key_value",
              .out = p + "self_attention.dense",
              .up = p + "mlp.dense_h_to_4h",
              .down = p + "mlp.dense_4h_to_h"};
    }
    if (spec_.model_type == ModelType::kOpt) {  // modeling_opt.py OPTDecoderLayer
      const std::string p = "model.decoder.layers." + std::to_string(i) + ".";
      return {.attn_norm = p + "self_attn_layer_norm",
              .mlp_norm = p + "final_layer_norm",
              .q = p + "self_attn.q_proj",
              .k = p + "self_attn.k_proj",
              .v = p + "self_attn.v_proj",
              .out = p + "self_attn.out_proj",
              .up = p + "fc1",
              .down = p + "fc2"};
    }
    const std::string p = "model.layers." + std::to_string(i) + ".";
    if (spec_.model_type == ModelType::kPhi3) {
      return {.attn_norm = p + "input_layernorm",
              .mlp_norm = p + "post_attention_layernorm",
              .qkv = p + "self_attn.qkv_proj",
              .out = p + "self_attn.o_proj",
              .gate_up = p + "mlp.gate_up_proj",
              .down = p + "mlp.down_proj"};
    }
    return {.attn_norm = p + "input_layernorm",
            .mlp_norm = p + (spec_.sandwich_norms ? "pre_feedforward_layernorm"
                                                  : "post_attention_layernorm"),
            .q = p + "self_attn.q_proj",
            .k = p + "self_attn.k_proj",
            .v = p + "self_attn.v_proj",
            .out = p + "self_attn.o_proj",
            .up = p + "mlp.up_proj",
            .gate = p + "mlp.gate_proj",
            .down = p + "mlp.down_proj",
            .q_norm = spec_.qk_norm ? p + "self_attn.q_norm" : "",
            .k_norm = spec_.qk_norm ? p + "self_attn.k_norm" : "",
            .attn_post_norm = spec_.sandwich_norms ? p + "post_attention_layernorm" : "",
            .mlp_post_norm = spec_.sandwich_norms ? p + "post_feedforward_layernorm" : ""};
  }

  void add_layer(int i) {
    const LayerModules m = layer_modules(i);
    const std::string p = "layers." + std::to_string(i) + ".";
    const std::int64_t h = spec_.hidden_size, o = spec_.attn_out_dim();
    const int norm = add(p + "attn_norm", OpKind::kNorm, i, {m.attn_norm}, {resid_},
                         NormShape{t_, h, spec_.norm}, {act("input", t_ * h)});
    // Falcon's new decoder architecture normalizes the layer's input for the MLP right after
    // the attention's (FalconDecoderLayer.forward: ln_attn, ln_mlp, then the attention); it
    // keeps nothing the attention's norm does not keep already.
    const int early_mlp_norm = falcon_two_norms()
                                   ? add(p + "mlp_norm", OpKind::kNorm, i, {m.mlp_norm}, {resid_},
                                         NormShape{t_, h, spec_.norm}, {})
                                   : -1;
    const int core =
        spec_.mla.enabled() ? add_mla_attention(p, i, norm) : add_attention(p, i, m, norm);
    int out = add(p + "attn.out_proj", OpKind::kLinear, i, {m.out}, {core},
                  GemmShape{t_, h, o, spec_.bias.attn_out}, {act("input", t_ * o)});
    // Gemma 2 and 3 normalize each sublayer's output before the residual add
    // (modeling_gemma2.py Gemma2DecoderLayer.forward).
    if (spec_.sandwich_norms) {
      out = add(p + "attn.post_norm", OpKind::kNorm, i, {m.attn_post_norm}, {out},
                NormShape{t_, h, spec_.norm}, {act("input", t_ * h)});
    }
    if (spec_.parallel_residual) {
      // GPTNeoXLayer.forward: mlp(post_attention_layernorm(x)) + attn_output + x. The MLP's norm
      // reads the layer's input, which the attention's norm keeps already. Falcon's MLP reads
      // the attention's norm (FalconDecoderLayer.forward: mlp_layernorm_out =
      // attention_layernorm_out), whose output query_key_value keeps already.
      const int mlp_norm = spec_.parallel_shared_norm ? norm
                           : early_mlp_norm >= 0
                               ? early_mlp_norm
                               : add(p + "mlp_norm", OpKind::kNorm, i, {m.mlp_norm}, {resid_},
                                     NormShape{t_, h, spec_.norm}, {});
      const int down = add_mlp(p, i, m, mlp_norm, spec_.parallel_shared_norm);
      resid_ = add_residual(p + "attn.residual", i, out);
      resid_ = add_residual(p + "mlp.residual", i, down);
      return;
    }
    resid_ = add_residual(p + "attn.residual", i, out);
    const int mlp_norm = add(p + "mlp_norm", OpKind::kNorm, i, {m.mlp_norm}, {resid_},
                             NormShape{t_, h, spec_.norm}, {act("input", t_ * h)});
    int down = add_mlp(p, i, m, mlp_norm);
    if (spec_.sandwich_norms) {
      down = add(p + "mlp.post_norm", OpKind::kNorm, i, {m.mlp_post_norm}, {down},
                 NormShape{t_, h, spec_.norm}, {act("input", t_ * h)});
    }
    resid_ = add_residual(p + "mlp.residual", i, down);
  }

  // Falcon's new decoder architecture with two norms a layer, ln_attn and ln_mlp.
  bool falcon_two_norms() const {
    return spec_.model_type == ModelType::kFalcon && !spec_.parallel_shared_norm;
  }

  // The q/k/v projections (or the fused one), the per-head norms and RoPE, and the core, reading
  // op `norm`'s output; returns the core.
  int add_attention(const std::string& p, int i, const LayerModules& m, int norm) {
    const std::int64_t h = spec_.hidden_size, q = spec_.q_dim(), kv = spec_.kv_dim();
    // RoPE rotates rotary_dim of each query and key head's dimensions (Falcon's new decoder
    // architecture rotates the keys after copying them to every head).
    const std::int64_t key_heads = spec_.kv_copied_per_head ? spec_.num_heads : spec_.num_kv_heads;
    const ElementwiseShape rotary_shape{t_ * (spec_.num_heads + key_heads) * spec_.rotary_dim()};
    std::vector<int> core_inputs;
    if (fused_qkv(spec_)) {
      // GPT-2's c_attn; Phi-3's qkv_proj and GPT-NeoX's query_key_value, whose q and k slices
      // are rotated (modeling_phi3.py Phi3Attention.forward) and whose v slice the core reads.
      const int qkv = add(p + "attn.qkv", OpKind::kLinear, i, {m.qkv}, {norm},
                          GemmShape{t_, q + 2 * kv, h, spec_.bias.qkv}, {act("input", t_ * h)});
      core_inputs = {qkv};
      if (spec_.position == PositionKind::kRotary) {
        core_inputs = {add(p + "attn.rotary", OpKind::kRotary, i, {}, {qkv}, rotary_shape, {}),
                       qkv};
      }
    } else {
      int q_proj = add(p + "attn.q_proj", OpKind::kLinear, i, {m.q}, {norm},
                       GemmShape{t_, q, h, spec_.bias.qkv}, {act("input", t_ * h)});
      // Qwen3: q_norm(q_proj(x)) per head, then the same for k (modeling_qwen3.py
      // Qwen3Attention.forward); Gemma 3 norms the two after all three projections
      // (modeling_gemma3.py Gemma3Attention.forward). Each norm keeps its input.
      const bool norms_last = spec_.model_type == ModelType::kGemma3Text;
      if (spec_.qk_norm && !norms_last) {
        q_proj = add_head_norm(p + "attn.q_norm", i, m.q_norm, q_proj, q);
      }
      // k_proj and v_proj read the tensor q_proj saved: nothing new to keep.
      int k_proj = add(p + "attn.k_proj", OpKind::kLinear, i, {m.k}, {norm},
                       GemmShape{t_, kv, h, spec_.bias.qkv}, {});
      if (spec_.qk_norm && !norms_last) {
        k_proj = add_head_norm(p + "attn.k_norm", i, m.k_norm, k_proj, kv);
      }
      const int v_proj = add(p + "attn.v_proj", OpKind::kLinear, i, {m.v}, {norm},
                             GemmShape{t_, kv, h, spec_.bias.qkv}, {});
      if (spec_.qk_norm && norms_last) {
        q_proj = add_head_norm(p + "attn.q_norm", i, m.q_norm, q_proj, q);
        k_proj = add_head_norm(p + "attn.k_norm", i, m.k_norm, k_proj, kv);
      }
      core_inputs = {q_proj, k_proj, v_proj};  // OPT's learned positions: nothing to rotate
      if (spec_.position == PositionKind::kRotary) {
        core_inputs = {
            add(p + "attn.rotary", OpKind::kRotary, i, {}, {q_proj, k_proj}, rotary_shape, {}),
            v_proj};
      }
    }
    return add_attention_core(p, i, std::move(core_inputs));
  }

  // DeepSeek's multi-head latent attention reading op `norm`'s output (modeling_deepseek_v2.py
  // DeepseekV2Attention.forward; V3's alike): the query (q_proj, or q_a_proj, q_a_layernorm,
  // q_b_proj), kv_a_proj_with_mqa on the same input, kv_a_layernorm on its latent slice,
  // kv_b_proj expanding it, RoPE on each head's rotary query part and the one shared rotary key,
  // the core. Returns the core. What autograd keeps: each Linear its input (kv_a_proj_with_mqa
  // reads the tensor the query's first projection saved); kv_a_layernorm the slice of
  // kv_a_proj_with_mqa's output, which keeps all of it; the core q and the keys at every head
  // (expand_kv copies them into a tensor of their own), and the values, a view of kv_b_proj's
  // output that keeps all of it (each head's key part too). The query's concatenation and the
  // keys' copy are not priced. SDPA has no flash kernel for a value narrower than the query
  // (PyTorch picks its memory-efficient kernel), priced as the flash kernel.
  int add_mla_attention(const std::string& p, int i, int norm) {
    const std::string m = "model.layers." + std::to_string(i) + ".self_attn.";
    const MlaSpec& a = spec_.mla;
    const std::int64_t h = spec_.hidden_size, heads = spec_.num_heads, q = spec_.q_dim();
    const std::int64_t latent = a.kv_lora_rank + a.qk_rope_head_dim;
    const std::int64_t kv_b = heads * (a.qk_nope_head_dim + a.v_head_dim);
    const NormKind kind = spec_.norm;
    int query = 0;
    if (a.q_lora_rank == 0) {
      query = add(p + "attn.q_proj", OpKind::kLinear, i, {m + "q_proj"}, {norm},
                  GemmShape{t_, q, h, false}, {act("input", t_ * h)});
    } else {
      const std::int64_t r = a.q_lora_rank;
      const int q_a = add(p + "attn.q_a", OpKind::kLinear, i, {m + "q_a_proj"}, {norm},
                          GemmShape{t_, r, h, spec_.bias.qkv}, {act("input", t_ * h)});
      const int q_norm = add(p + "attn.q_a_norm", OpKind::kNorm, i, {m + "q_a_layernorm"}, {q_a},
                             NormShape{t_, r, kind}, {act("input", t_ * r)});
      query = add(p + "attn.q_b", OpKind::kLinear, i, {m + "q_b_proj"}, {q_norm},
                  GemmShape{t_, q, r, false}, {act("input", t_ * r)});
    }
    const int kv_a = add(p + "attn.kv_a", OpKind::kLinear, i, {m + "kv_a_proj_with_mqa"}, {norm},
                         GemmShape{t_, latent, h, spec_.bias.qkv}, {});
    const int kv_norm =
        add(p + "attn.kv_a_norm", OpKind::kNorm, i, {m + "kv_a_layernorm"}, {kv_a},
            NormShape{t_, a.kv_lora_rank, kind}, {act("input (all of kv_a)", t_ * latent)});
    const int expand =
        add(p + "attn.kv_b", OpKind::kLinear, i, {m + "kv_b_proj"}, {kv_norm},
            GemmShape{t_, kv_b, a.kv_lora_rank, false}, {act("input", t_ * a.kv_lora_rank)});
    const int rotary = add(p + "attn.rotary", OpKind::kRotary, i, {}, {query, kv_a},
                           ElementwiseShape{t_ * (heads + 1) * a.qk_rope_head_dim}, {});
    const AttentionShape shape{.batch = w_.micro_batch,
                               .seq = w_.seq_len,
                               .heads = heads,
                               .kv_heads = heads,
                               .head_dim = spec_.head_dim,
                               .dropout = spec_.dropout.attn,
                               .v_head_dim = a.v_head_dim};
    return add_core(p + "attn.core", i, {}, {rotary, expand}, shape, t_ * kv_b);
  }

  // An RMSNorm over head_dim of each head of op `input`'s `width` features per token.
  int add_head_norm(std::string name, int i, const std::string& module, int input,
                    std::int64_t width) {
    const std::int64_t d = spec_.head_dim;
    return add(std::move(name), OpKind::kNorm, i, {module}, {input},
               NormShape{t_ * (width / d), d, spec_.norm}, {act("input", t_ * width)});
  }

  int add_attention_core(const std::string& p, int i, std::vector<int> inputs) {
    const AttentionShape shape{
        .batch = w_.micro_batch,
        .seq = w_.seq_len,
        .heads = spec_.num_heads,
        // Falcon's new decoder architecture copies them to every head
        .kv_heads = spec_.kv_copied_per_head ? spec_.num_heads : spec_.num_kv_heads,
        .head_dim = spec_.head_dim,
        .dropout = spec_.dropout.attn,
        .causal = !is_encoder(spec_),
        .softcap = spec_.attn_softcap};
    return add_core(p + "attn.core", i, {}, std::move(inputs), shape);
  }

  // An attention core of `shape` reading the modules' parameters (T5's relative-position bias
  // table, else none). `values_kept`: the elements its value input keeps alive when that is not
  // the values alone (MLA's view of kv_b_proj's output); 0: the values.
  int add_core(std::string name, int i, std::vector<std::string> modules, std::vector<int> inputs,
               const AttentionShape& shape, std::int64_t values_kept = 0) {
    const std::int64_t q = spec_.q_dim(), kv = shape.kv_heads * shape.head_dim;
    const std::int64_t t = shape.batch * shape.seq, tk = shape.batch * shape.keys();
    if (w_.flash_attention && supports_sdpa(spec_)) {
      const std::int64_t rows = shape.batch * shape.heads * shape.seq;
      return add(std::move(name), OpKind::kFlashAttention, i, std::move(modules), std::move(inputs),
                 shape,
                 {act("q", t * q),
                  act("k", tk * kv),
                  act("v", values_kept > 0 ? values_kept : tk * kv),
                  {"softmax_lse (fp32)", kFp32Bytes * rows}});
    }
    const std::int64_t scores = shape.batch * shape.heads * shape.seq * shape.keys();
    std::vector<SavedTensor> saved = {act("q", t * q), act("k", tk * q)};
    // Gemma 2's soft-capping: tanh keeps its output (eager_attention_forward's softcap).
    if (spec_.attn_softcap > 0) saved.push_back(act("softcap tanh_out", scores));
    const bool dropout = spec_.dropout.attn > 0;
    if (spec_.model_type == ModelType::kGpt2 || is_encoder(spec_) ||
        spec_.model_type == ModelType::kT5 || spec_.model_type == ModelType::kFalcon) {
      // GPT-2's, BERT's, RoBERTa's and T5's eager_attention_forward, FalconAttention's rotary
      // path: softmax in the activations' dtype keeps its output, which P.V reads too when there
      // is no dropout.
      saved.push_back(act("softmax_out", scores));
    } else {
      // Every other family's (modeling_llama.py eager_attention_forward and its copies, and
      // BloomAttention.forward, whose ALiBi enters the scores' baddbmm):
      // softmax(..., dtype=torch.float32).to(query.dtype). The softmax keeps its fp32 output;
      // P.V keeps the cast (the dropout's output instead when there is dropout; in fp32 the
      // cast is the softmax's own tensor). Measured on LlamaAttention with saved-tensor hooks:
      // 4 + 2 bytes per score in bf16.
      saved.push_back({"softmax_out (fp32)", kFp32Bytes * scores});
      if (!dropout && e_ != kFp32Bytes) saved.push_back(act("probs", scores));
    }
    if (dropout) {
      saved.push_back(mask(scores));
      saved.push_back(act("dropout_out", scores));
    }
    saved.push_back(act("v", values_kept > 0 ? values_kept : tk * q));
    return add(std::move(name), OpKind::kAttention, i, std::move(modules), std::move(inputs), shape,
               std::move(saved));
  }

  // Adds the MLP reading op `norm`'s output over `tokens` tokens (the micro-step's, or an
  // encoder-decoder stack's); returns the index of its down projection. A dropout after the
  // activation (dropout.act: T5's and Blenderbot's) is the activation op's, with its mask.
  // `input_kept`: op `norm`'s output is a tensor another op keeps already (Falcon's shared norm,
  // which query_key_value keeps), so the MLP's first GEMM adds nothing to keep.
  int add_mlp(const std::string& p, int i, const LayerModules& m, int norm,
              bool input_kept = false) {
    return add_mlp(p, i, m, norm, t_, input_kept);
  }
  int add_mlp(const std::string& p, int i, const LayerModules& m, int norm, std::int64_t tokens,
              bool input_kept = false) {
    if (has_experts(spec_, i)) return add_moe(p, i, norm);
    // DeepSeek's dense first layers are moe.dense_size wide.
    const std::int64_t h = spec_.hidden_size;
    const std::int64_t I =
        spec_.moe.dense_layers > 0 ? spec_.moe.dense_size : spec_.intermediate_size;
    const std::int64_t n = tokens * I;
    std::vector<SavedTensor> input;
    if (!input_kept) input.push_back(act("input", tokens * h));
    const double dropout = spec_.dropout.act;
    auto with_mask = [&](std::vector<SavedTensor> saved) {
      if (dropout > 0) saved.push_back(mask(n));
      return saved;
    };
    const std::vector<SavedTensor> gated = {act("gate", n), act("silu_out", n), act("up", n)};
    int act_op = 0;
    if (fused_gate_up(spec_)) {
      // Phi3MLP.forward: gate, up = gate_up_proj(x).chunk(2); up * act(gate). The product keeps
      // what SwiGLU's does.
      const int gate_up = add(p + "mlp.gate_up", OpKind::kLinear, i, {m.gate_up}, {norm},
                              GemmShape{tokens, 2 * I, h, spec_.bias.mlp}, std::move(input));
      act_op = add(p + "mlp.act", OpKind::kSwiGlu, i, {}, {gate_up}, ElementwiseShape{n, dropout},
                   with_mask(gated));
    } else if (spec_.mlp == MlpKind::kGelu) {
      const int up = add(p + "mlp.up", OpKind::kLinear, i, {m.up}, {norm},
                         GemmShape{tokens, I, h, spec_.bias.mlp}, std::move(input));
      act_op = add(p + "mlp.act", OpKind::kActivation, i, {}, {up}, ElementwiseShape{n, dropout},
                   with_mask({act("input", n)}));
    } else {
      const int gate = add(p + "mlp.gate", OpKind::kLinear, i, {m.gate}, {norm},
                           GemmShape{tokens, I, h, spec_.bias.mlp}, std::move(input));
      // up_proj reads the tensor gate_proj saved.
      const int up = add(p + "mlp.up", OpKind::kLinear, i, {m.up}, {norm},
                         GemmShape{tokens, I, h, spec_.bias.mlp}, {});
      act_op = add(p + "mlp.act", OpKind::kSwiGlu, i, {}, {gate, up}, ElementwiseShape{n, dropout},
                   with_mask(gated));
    }
    return add(p + "mlp.down", OpKind::kLinear, i, {m.down}, {act_op},
               GemmShape{tokens, h, I, spec_.bias.mlp}, {act("input", n)});
  }

  // The sparse MoE block reading op `norm`'s output (modeling_mixtral.py
  // MixtralSparseMoeBlock.forward, modeling_qwen3_moe.py Qwen3MoeSparseMoeBlock.forward, the
  // same ops; transformers 5's default grouped_mm experts,
  // integrations/moe.py grouped_mm_experts_forward); returns the experts' op, whose output is
  // the block's. What autograd keeps: the router's F.linear its input; softmax its fp32 output,
  // top-k its int64 ids, the renormalization the k weights and their sum; the experts the
  // gathered rows [S, h] (the first grouped GEMM's input), gate_up's output [S, 2I] (silu reads
  // its gate half, the product its up half), silu's output and the product [S, I] each (the
  // product is the second grouped GEMM's input), that GEMM's output [S, h] (scaled by the
  // weights), the sorted fp32 weights, the sort's int64 permutation and its inverse, and the
  // pre-mask's bool rows. S = t·k.
  // Qwen2-MoE (modeling_qwen2_moe.py Qwen2MoeSparseMoeBlock.forward) runs its shared expert (a
  // SwiGLU MLP of width shared_expert_size) first, then the router and experts, then
  // shared_expert_gate [h -> 1] and mlp.combine: sigmoid(gate) * shared + experts, the block's
  // output (it keeps the sigmoid's output and the shared expert's for the product's backward).
  // DeepSeek's (modeling_deepseek_v2.py DeepseekV2Moe.forward) runs the router (its F.linear on
  // an fp32 copy of the input, which it keeps), the experts, then its shared experts, added to
  // the experts' output without a gate (mlp.combine, an add keeping nothing).
  int add_moe(const std::string& p, int i, int norm) {
    const std::int64_t h = spec_.hidden_size, I = spec_.intermediate_size;
    const std::int64_t E = spec_.moe.num_experts, k = spec_.moe.experts_per_token;
    const std::string module = "model.layers." + std::to_string(i) + ".mlp.";
    const MoeShape shape{.tokens = t_, .hidden = h, .inner = I, .experts = E, .top_k = k};
    const std::int64_t Is = spec_.moe.shared_expert_size;
    if (is_deepseek(spec_)) return add_deepseek_moe(p, i, norm, module, shape);
    const int shared = Is > 0 ? add_shared_expert(p, i, norm, module + "shared_expert.") : -1;
    // The router reads the tensor the shared expert's gate_proj saved, when there is one.
    std::vector<SavedTensor> router_saved;
    if (shared < 0) router_saved.push_back(act("input", t_ * h));
    const int experts = add_router_and_experts(p, i, norm, module, shape, std::move(router_saved));
    if (shared < 0) return experts;
    const int gate = add(p + "mlp.shared_gate", OpKind::kLinear, i, {module + "shared_expert_gate"},
                         {norm}, GemmShape{t_, 1, h, false}, {});
    return add(p + "mlp.combine", OpKind::kMoeCombine, i, {}, {experts, shared, gate}, shape,
               {act("sigmoid", t_), act("shared", t_ * h)});
  }

  // The router, its routing and the experts of a sparse MoE block (add_moe) reading op `norm`;
  // returns the experts' op. `router_saved`: what the router's linear keeps.
  int add_router_and_experts(const std::string& p, int i, int norm, const std::string& module,
                             const MoeShape& shape, std::vector<SavedTensor> router_saved) {
    const std::int64_t h = shape.hidden, I = shape.inner, E = shape.experts, S = shape.pairs();
    const int router = add(p + "mlp.router", OpKind::kLinear, i, {module + "gate"}, {norm},
                           GemmShape{t_, E, h, false}, std::move(router_saved));
    const int route = add(p + "mlp.route", OpKind::kMoeRoute, i, {}, {router}, shape,
                          {{"probs (fp32)", kFp32Bytes * t_ * E},
                           {"top_k ids (int64)", kInt64Bytes * S},
                           {"top_k weights (fp32)", kFp32Bytes * (S + t_)}});
    return add(p + "mlp.experts", OpKind::kMoeExperts, i, {module + "experts"}, {norm, route},
               shape,
               {act("gathered rows", S * h),
                act("gate_up", S * 2 * I),
                act("silu_out", S * I),
                act("product", S * I),
                act("down", S * h),
                {"sorted weights (fp32)", kFp32Bytes * S},
                {"permutations (int64)", 2 * kInt64Bytes * S},
                {"pre-mask (bool)", kMaskBytes * S}});
  }

  // DeepseekV2Moe.forward: the router and experts, then the shared experts (an MLP of
  // shared_expert_size, when there are any) and their sum.
  int add_deepseek_moe(const std::string& p, int i, int norm, const std::string& module,
                       const MoeShape& shape) {
    const std::int64_t h = spec_.hidden_size, Is = spec_.moe.shared_expert_size;
    const int experts = add_router_and_experts(p, i, norm, module, shape,
                                               {{"input (fp32 copy)", kFp32Bytes * t_ * h}});
    if (Is == 0) return experts;
    const int shared = add_shared_expert(p, i, norm, module + "shared_experts.");
    return add(p + "mlp.combine", OpKind::kResidualAdd, i, {}, {experts, shared},
               ElementwiseShape{t_ * h}, {});
  }

  // A shared expert (Qwen2-MoE's shared_expert, DeepSeek's shared_experts: module prefix `se`),
  // a SwiGLU MLP of moe.shared_expert_size reading op `norm`; returns its down projection. Its
  // gate_proj keeps the input.
  int add_shared_expert(const std::string& p, int i, int norm, const std::string& se) {
    const std::int64_t h = spec_.hidden_size, Is = spec_.moe.shared_expert_size;
    const int gate = add(p + "mlp.shared.gate", OpKind::kLinear, i, {se + "gate_proj"}, {norm},
                         GemmShape{t_, Is, h, false}, {act("input", t_ * h)});
    const int up = add(p + "mlp.shared.up", OpKind::kLinear, i, {se + "up_proj"}, {norm},
                       GemmShape{t_, Is, h, false}, {});
    const int act_op =
        add(p + "mlp.shared.act", OpKind::kSwiGlu, i, {}, {gate, up}, ElementwiseShape{t_ * Is},
            {act("gate", t_ * Is), act("silu_out", t_ * Is), act("up", t_ * Is)});
    return add(p + "mlp.shared.down", OpKind::kLinear, i, {se + "down_proj"}, {act_op},
               GemmShape{t_, h, Is, false}, {act("input", t_ * Is)});
  }

  // Adds resid_ + op `branch`'s output; returns its index (the new residual stream).
  int add_residual(std::string name, int i, int branch) {
    return add_residual(std::move(name), i, branch, t_);
  }
  int add_residual(std::string name, int i, int branch, std::int64_t tokens) {
    const std::int64_t n = tokens * spec_.hidden_size;
    std::vector<SavedTensor> saved;
    if (spec_.dropout.resid > 0) saved.push_back(mask(n));
    return add(std::move(name), OpKind::kResidualAdd, i, {}, {resid_, branch},
               ElementwiseShape{n, spec_.dropout.resid}, std::move(saved));
  }

  const ModelSpec& spec_;
  const Workload& w_;
  const std::int64_t t_;
  const Bytes e_;
  std::map<std::string, std::vector<int>, std::less<>> modules_;
  std::vector<Op> ops_;
  int resid_ = 0;         // the op whose output is the residual stream at the current position
  int rel_table_ = -1;    // DeBERTa-v2's normalized relative-position table (rel_norm)
  int encoder_out_ = -1;  // an encoder-decoder's encoder output (its final norm)
};

}  // namespace

std::vector<Op> forward_ops(const ModelSpec& spec, const Workload& w) {
  ZS_CHECK_MSG(validate(spec).is_ok(), spec.name.c_str());
  ZS_CHECK_MSG(validate_workload(spec, w).is_ok(), spec.name.c_str());
  return OpListBuilder(spec, w).build();
}

std::vector<int> gradient_ready_order(const ModelSpec& spec) {
  const std::vector<ParamTensor> params = parameter_tensors(spec);
  // Parameter use does not depend on the workload.
  const std::vector<Op> ops = forward_ops(spec, Workload{.micro_batch = 1, .seq_len = 1});
  // First use of each real tensor as (op index, position within the op).
  std::vector<std::pair<int, int>> first_use(params.size(), {-1, -1});
  for (std::size_t i = 0; i < ops.size(); ++i) {
    for (std::size_t k = 0; k < ops[i].param_ids.size(); ++k) {
      const ParamTensor& p = params[static_cast<std::size_t>(ops[i].param_ids[k])];
      const int real = p.tied ? p.tied_to : p.id;
      auto& use = first_use[static_cast<std::size_t>(real)];
      if (use.first < 0) use = {static_cast<int>(i), static_cast<int>(k)};
    }
  }
  std::vector<int> order;
  for (const ParamTensor& p : params) {
    if (p.tied) continue;
    ZS_CHECK_MSG(first_use[static_cast<std::size_t>(p.id)].first >= 0, p.name.c_str());
    order.push_back(p.id);
  }
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return first_use[static_cast<std::size_t>(x)] > first_use[static_cast<std::size_t>(y)];
  });
  return order;
}

}  // namespace zs::models
