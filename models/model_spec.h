// ModelSpec: the architecture of a decoder-only, encoder-only or encoder-decoder transformer, as
// far as memory and time depend on it.
//
// One struct covers the twenty-four Hugging Face families zerosim knows (model_type gpt2, llama,
// mistral, qwen2, qwen3, mixtral, qwen3_moe, qwen2_moe, phi3, gemma, gemma2, gemma3_text, opt,
// gpt_neox, bert, t5, blenderbot, roberta, bart, bloom, falcon, deepseek_v2, deepseek_v3,
// deberta-v2); the differences between them are
// fields rather than code paths keyed on the family, so a spec read from a config.json and a zoo
// entry are interchangeable:
//
//   family   positions  norm                  MLP                       linear biases   dropout
//   gpt2     learned    LayerNorm (w + b)     GELU, 2 matrices (h->4h)  all             0.1 x 3
//   llama    rotary     RMSNorm (w only)      SwiGLU, gate/up/down      none*           none*
//   mistral  rotary     RMSNorm               SwiGLU                    none            none*
//   qwen2    rotary     RMSNorm               SwiGLU                    q/k/v only      none*
//   qwen3    rotary     RMSNorm, and on q, k  SwiGLU                    none*           none*
//   mixtral  rotary     RMSNorm               SwiGLU experts, top-k     none            none*
//   qwen3_moe rotary    RMSNorm, and on q, k  SwiGLU experts, top-k     none*           none*
//   qwen2_moe rotary    RMSNorm               SwiGLU experts + shared   q/k/v*          none*
//   phi3     rotary**   RMSNorm               SwiGLU, gate_up fused     none            resid*
//   gemma    rotary     RMSNorm (1 + w)       GeGLU (gelu tanh)         none*           none*
//   gemma2   rotary     RMSNorm (1 + w) x 4   GeGLU                     none*           none*
//   gemma3_text rotary  RMSNorm (1 + w) x 4, and on q, k  GeGLU         none*           none*
//   opt      learned+2  LayerNorm (w + b)     ReLU, 2 matrices (fc1/fc2) all*           0.1 resid*
//   gpt_neox rotary**   LayerNorm (w + b)     GELU, 2 matrices          all*            none*
//   bert     learned+type LayerNorm after add GELU, 2 matrices          all             0.1 x 3
//   t5       relative bias RMSNorm (w only)   ReLU, 2 (or gated-gelu, 3) none           0.1 x 4
//   blenderbot learned  LayerNorm (w + b)     GELU, 2 (fc1/fc2)          all             0.1 resid*
//   roberta  learned+pad+type LayerNorm after add GELU, 2 matrices      all             0.1 x 3
//   bart     learned+2  LayerNorm after add   GELU, 2 (fc1/fc2)          all             0.1 resid*
//   bloom    ALiBi      LayerNorm, + embedding GELU, 2 matrices (h->4h) all             none*
//   falcon   rotary     LayerNorm, one a layer GELU, 2 matrices (h->4h) none*           none*
//   deepseek_v2/v3 rotary RMSNorm, and in MLA  SwiGLU experts + shared   none*           none*
//   deberta-v2 disentangled LayerNorm after add GELU, 2 matrices    all             0.1 x 3
//   (* llama's and qwen3's attention_bias, llama's mlp_bias and every family's
//   attention_dropout can switch them on. Qwen3's attention normalizes each head's query and key
//   over head_dim with an RMSNorm of its own, q_norm and k_norm, before the rotary embedding.
//   Mixtral's and Qwen3-MoE's MLP is a sparse mixture of experts: a router and num_experts
//   SwiGLU experts of width intermediate_size (Qwen3-MoE's moe_intermediate_size), each token
//   sent to experts_per_token of them; Qwen2-MoE's adds a shared expert every token passes
//   through; see MoeSpec. ** Phi-3 and GPT-NeoX (0.25 by default) may rotate only the first
//   partial_rotary_factor of each head.)
//
// Five families fuse projections into one Linear (fused_qkv(), fused_gate_up()): GPT-2's c_attn,
// Phi-3's qkv_proj, GPT-NeoX's, BLOOM's and Falcon's query_key_value compute q, k and v in one
// GEMM; Phi-3's
// gate_up_proj computes the SwiGLU's gate and up halves in one. A fused Linear is one module, so
// ZeRO-3 fetches it whole and its hooks fire once.
//
// OPT's learned position table has max_position_embeddings + 2 rows (OPTLearnedPositionalEmbedding
// offsets every position by 2), its attention registers k_proj, v_proj, q_proj (and calls q
// first), and its decoder registers final_layer_norm before the layers. GPT-NeoX (Pythia) runs
// its attention and MLP side by side on the same input by default (parallel_residual):
// x + attn(ln1(x)) + mlp(ln2(x)).
//
// BLOOM (model_type bloom) has no position embedding: ALiBi adds a per-head linear bias to the
// attention scores (PositionKind::kAlibi), computed into the score GEMM (baddbmm). It normalizes
// the token embedding (word_embeddings_layernorm) and, in transformers, has no SDPA path: its
// attention is eager whatever the workload asks (supports_sdpa), its softmax in fp32.
//
// Falcon (model_type falcon) runs attention and MLP side by side: Falcon-7B on one LayerNorm's
// output (parallel_residual with parallel_shared_norm: x + attn(ln(x)) + mlp(ln(x))), its
// multi-query attention with one key/value head (num_kv_heads 1) inside the fused
// query_key_value; Falcon-40B and -180B (new_decoder_architecture) with two norms, ln_attn and
// ln_mlp (or one, num_ln_in_parallel_attn 1), and num_kv_heads groups of query heads whose keys
// and values are copied out to every head (kv_copied_per_head). The ALiBi variants are refused.
//
// The Gemma families scale the token embedding by sqrt(hidden_size) (scaled_embedding) and tie
// the LM head to it by default; Gemma 2 and 3 also normalize each sublayer's output before its
// residual add (sandwich_norms: four norms a layer), and Gemma 2 soft-caps the attention scores
// and the logits with tanh (attn_softcap, logit_softcap). Their MLP is the SwiGLU's gated layout
// with gelu_pytorch_tanh for silu (MlpKind::kSwiGlu covers both: the activation names it).
//
// OPT's, BART's and RoBERTa's learned position tables start past their first rows
// (position_offset): OPT's and BART's by 2, RoBERTa's past its padding row (RobertaEmbeddings
// numbers positions from pad_token_id + 1); the table has max_position_embeddings + position_offset
// rows and max_position_embeddings is the longest sequence.
//
// BERT (model_type bert) is an encoder: every token attends to every other (no causal mask), its
// embedding adds a token-type table (type_vocab_size rows) to the word and position tables and
// normalizes the sum (LayerNorm, then dropout), and its layers normalize after each residual add
// (post_norm: x = LN(x + dropout(sublayer(x))), no final norm). What it is trained for is its
// head (HeadKind): the masked-LM head (a dense layer, GELU, a LayerNorm and the decoder tied to
// the word table, with a bias of its own) over every token, or a question-answering or
// sequence-classification head of a few outputs. RoBERTa (model_type roberta) is BERT's encoder
// under other module names (roberta.*, lm_head with dense, layer_norm and decoder) with its
// position ids counted from the tokens that are not padding and a classification head of its own
// (classifier.dense, tanh, classifier.out_proj on each sequence's first token; no pooler).
//
// T5 (model_type t5) is an encoder-decoder: num_layers encoder layers (self-attention without a
// mask, then the MLP) and num_decoder_layers decoder layers (causal self-attention,
// cross-attention over the encoder's output, the MLP), each sublayer pre-normed with T5LayerNorm
// (an RMSNorm) and its output dropped out before the residual add; each stack's first layer
// holds the relative-position bias every layer of the stack adds to its scores; the attention
// scores are not scaled; the MLP drops out between its two matrices; one `shared` embedding
// feeds both stacks and is the LM head (transformers 5 ties them always). The decoder runs
// over the workload's target tokens (models/ops.h Workload::target_len). Blenderbot (model_type
// blenderbot, BART's code with LayerNorm before each sublayer) is an encoder-decoder too: learned
// positions and a scaled embedding in each stack, OPT's attention (k/v/q/out_proj with biases,
// the query scaled), a final LayerNorm per stack, the head tied to `shared` plus a fixed
// final_logits_bias. BART (model_type bart, BartForConditionalGeneration) is Blenderbot's skeleton
// with BERT's post-norm layers (LayerNorm after each residual add, post_norm), each stack's
// embedding sum normalized (layernorm_embedding) before its dropout, no final norm per stack, and
// positions offset by 2 like OPT's.
//
// DeBERTa-v2 (model_type deberta-v2) is BERT's post-norm encoder under deberta.* with
// disentangled attention (DisentangledSpec) in place of the learned position table, no token
// types, and the classification head DebertaV2ForSequenceClassification trains (ContextPooler:
// pooler.dense and its activation on each sequence's first token, then dropout and classifier);
// its attention is eager (transformers gives it no SDPA path).
//
// DeepSeek-V2 and -V3 (model_type deepseek_v2, deepseek_v3) are Llama's decoder with multi-head
// latent attention (MlaSpec) and DeepSeek's mixture of experts: the first moe.dense_layers layers
// have a dense SwiGLU MLP (intermediate_size of the config; moe.dense_size here), the others a
// router over moe.num_experts routed experts of width intermediate_size (the config's
// moe_intermediate_size) and shared experts of moe.shared_expert_size every token passes
// through, added without a gate (DeepseekV2Moe.forward). V3's router scores by sigmoid with
// group-limited top-k where V2's softmaxes; the same modules and parameters.
//
// Sizes are element counts; nothing here depends on the batch, the sequence length or a dtype
// (those are a Workload, models/ops.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/status.h"

namespace zs::models {

enum class ModelType {
  kGpt2,
  kLlama,
  kMistral,
  kQwen2,
  kQwen3,
  kMixtral,
  kQwen3Moe,
  kQwen2Moe,
  kPhi3,
  kGemma,
  kGemma2,
  kGemma3Text,
  kOpt,
  kGptNeox,
  kBert,
  kT5,
  kBlenderbot,
  kRoberta,
  kBart,
  kBloom,
  kFalcon,
  kDeepseekV2,
  kDeepseekV3,
  kDebertaV2
};
enum class NormKind {
  kLayerNorm,  // y = (x - mean) / sqrt(var + eps) * weight + bias
  kRmsNorm,    // y = x / sqrt(mean(x^2) + eps) * weight
};
enum class MlpKind {
  kGelu,    // down(act(up(x))): 2 matrices, h -> I -> h (GPT-2: c_fc, c_proj)
  kSwiGlu,  // down(silu(gate(x)) * up(x)): 3 matrices (LlamaMLP: gate_proj, up_proj, down_proj)
};
// What the model is trained for: the modules after the last layer and the loss (HF's
// architectures[0]).
enum class HeadKind {
  kCausalLm,  // *ForCausalLM: the LM head over V, next-token cross-entropy over every token
  kMaskedLm,  // BertForMaskedLM: transform (dense, act, LayerNorm), decoder over V, every token
  kQuestionAnswering,       // BertForQuestionAnswering: qa_outputs [num_labels, h], span loss
  kSequenceClassification,  // BertForSequenceClassification: pooler, classifier [num_labels, h]
};
enum class PositionKind {
  kLearned,  // a [max_positions, h] embedding added to the token embedding (GPT-2 wpe)
  kRotary,   // RoPE applied to q and k inside attention; no parameters
  // T5's: a learned bias per head and relative-distance bucket added to the attention scores,
  // [buckets, heads] in the first layer of each stack, shared by its other layers
  kRelativeBias,
  // ALiBi (BLOOM): a fixed per-head slope times the key's position added to the scores; no
  // parameters
  kAlibi,
  // DeBERTa-v2's disentangled attention (DisentangledSpec): a table of relative-position
  // embeddings every layer projects and scores against its content
  kDisentangled,
};

// Which linear layers carry a bias vector.
struct LinearBiases {
  bool qkv = false;       // q/k/v projections (GPT-2 c_attn, Qwen2 q/k/v_proj)
  bool attn_out = false;  // attention output projection (c_proj / o_proj)
  bool mlp = false;       // every MLP matrix (c_fc, c_proj / gate, up, down)

  bool operator==(const LinearBiases&) const = default;
};

// Dropout probabilities in [0, 1). A probability of 0 means no dropout op: PyTorch's dropout
// returns its input unchanged for p = 0 (no mask is made or saved).
struct DropoutProbs {
  double embd = 0;   // after the embedding sum (GPT-2 embd_pdrop)
  double attn = 0;   // on the attention probabilities (attn_pdrop / attention_dropout)
  double resid = 0;  // on each sublayer output before the residual add (GPT-2 resid_pdrop)
  // after the MLP's activation, before its second matrix (T5's dropout_rate, Blenderbot's
  // activation_dropout)
  double act = 0;

  bool operator==(const DropoutProbs&) const = default;
};

// A sparse mixture-of-experts MLP (transformers 5 MixtralSparseMoeBlock, Qwen3MoeSparseMoeBlock): a
// router (`gate`, a [E, h] linear, softmax over E, top-k, the k weights renormalized to sum to 1
// when normalize_top_k) and E SwiGLU experts of width intermediate_size held as two 3-D tensors
// (`experts.gate_up_proj` [E, 2I, h], `experts.down_proj` [E, h, I]), every token computed by k of
// them. Every expert's parameters (and their gradients and optimizer states) are held; a token's
// FLOPs are k experts'. num_experts == 0: a dense MLP.
struct MoeSpec {
  std::int64_t num_experts = 0;        // E: HF num_local_experts (Mixtral), num_experts (Qwen3-MoE)
  std::int64_t experts_per_token = 0;  // k: HF num_experts_per_tok
  // The top-k weights divided by their sum (Mixtral always; Qwen3-MoE's norm_topk_prob).
  bool normalize_top_k = true;
  // Qwen2-MoE's shared expert: a SwiGLU MLP of this width (shared_expert_intermediate_size) that
  // every token passes through, scaled by sigmoid(shared_expert_gate(x)) [h -> 1] and added to
  // the routed experts' output (modeling_qwen2_moe.py Qwen2MoeSparseMoeBlock); 0: none.
  // DeepSeek's shared_experts: one such MLP of n_shared_experts x moe_intermediate_size, added
  // without a gate (shared_expert_gate false).
  std::int64_t shared_expert_size = 0;
  bool shared_expert_gate = false;  // qwen2_moe's; deepseek's have none
  // DeepSeek's first_k_dense_replace: layers 0 .. dense_layers-1 have a dense SwiGLU MLP of width
  // dense_size (the config's intermediate_size) instead of experts; 0 for the other families.
  std::int64_t dense_layers = 0;
  std::int64_t dense_size = 0;

  bool enabled() const { return num_experts > 0; }
  bool operator==(const MoeSpec&) const = default;
};

// DeepSeek-V2's and -V3's multi-head latent attention (modeling_deepseek_v2.py
// DeepseekV2Attention). The query comes from q_proj [a(dn + dr), h], or, when q_lora_rank > 0,
// through a low-rank q_a_proj [qr, h], an RMSNorm q_a_layernorm over qr and q_b_proj
// [a(dn + dr), qr]. Keys and values come from one compressed latent: kv_a_proj_with_mqa
// [kvr + dr, h] gives the latent (kvr wide, normalized by kv_a_layernorm) and one rotary key part
// of dr shared by every head; kv_b_proj [a(dn + dv), kvr] expands the latent into each head's
// dn-wide key part and dv-wide value; o_proj [h, a dv]. Each head's query and key are
// dn + dr = head_dim wide (RoPE rotates the dr part), its value dv. kv_lora_rank == 0: none.
struct MlaSpec {
  std::int64_t q_lora_rank = 0;       // qr; 0: q_proj (DeepSeek-V2-Lite)
  std::int64_t kv_lora_rank = 0;      // kvr
  std::int64_t qk_nope_head_dim = 0;  // dn
  std::int64_t qk_rope_head_dim = 0;  // dr
  std::int64_t v_head_dim = 0;        // dv

  bool enabled() const { return kv_lora_rank > 0; }
  bool operator==(const MlaSpec&) const = default;
};

// DeBERTa-v2's disentangled attention (modeling_deberta_v2.py DisentangledSelfAttention,
// DebertaV2Encoder). The encoder holds one table of relative-position embeddings, rel_embeddings
// [2 span, h] (span: position_buckets, else max_relative_positions), normalized once a step by
// encoder.LayerNorm (norm_rel_ebd "layer_norm"). Each layer projects the table through its own
// query_proj and key_proj (share_att_key), repeats the projections for every sequence of the
// micro-batch and adds to its scores content-to-position (c2p: the queries against the projected
// table) and position-to-content (p2c: the keys against it) terms, each a batched GEMM over
// b a s x 2 span x d gathered to s x s; the scores are scaled by sqrt(d x (1 + c2p + p2c)).
// A ConvLayer (conv_kernel_size > 0: a Conv1d of h -> h over conv_kernel tokens, its activation,
// a residual add onto the first layer's output and a LayerNorm) runs after the first layer on the
// embeddings' output.
struct DisentangledSpec {
  std::int64_t span = 0;  // half the table's rows; 0: no relative attention
  bool c2p = false, p2c = false;
  bool norm_table = false;        // encoder.LayerNorm over the table
  std::int64_t conv_kernel = 0;   // 0: no ConvLayer
  std::string conv_act = "tanh";  // ConvLayer's activation (conv_act)

  bool enabled() const { return span > 0; }
  bool operator==(const DisentangledSpec&) const = default;
};

struct ModelSpec {
  std::string name;     // zoo name, or the config's _name_or_path, or its file path
  std::string hf_repo;  // where the hyperparameters come from, e.g. "openai-community/gpt2"
  ModelType model_type = ModelType::kGpt2;

  std::int64_t vocab_size = 0;
  std::int64_t hidden_size = 0;        // h
  std::int64_t num_layers = 0;         // L
  std::int64_t num_heads = 0;          // a (query heads)
  std::int64_t num_kv_heads = 0;       // key/value heads; < num_heads is grouped-query attention
  std::int64_t head_dim = 0;           // usually h / a; HF's head_dim key may set it independently
  std::int64_t intermediate_size = 0;  // I: the MLP's inner width
  std::int64_t max_position_embeddings = 0;
  // The learned position table's first row in use (see above): opt and bart 2, roberta
  // pad_token_id + 1, 0 for every other family.
  std::int64_t position_offset = 0;

  bool tie_word_embeddings = false;  // lm_head.weight is the token embedding (counted once)
  PositionKind position = PositionKind::kLearned;
  NormKind norm = NormKind::kLayerNorm;
  MlpKind mlp = MlpKind::kGelu;
  std::string activation;  // HF name: "gelu_new" (GPT-2), "silu" (the SwiGLU family)
  LinearBiases bias;
  // An RMSNorm over head_dim on every head's query and key, each with head_dim weights
  // (Qwen3Attention's q_norm and k_norm).
  bool qk_norm = false;
  MoeSpec moe;  // mixtral's, qwen3_moe's, qwen2_moe's and deepseek's; none for the dense ones
  MlaSpec mla;  // deepseek's multi-head latent attention; none for every other family
  DisentangledSpec disentangled;  // deberta-v2's relative attention and ConvLayer
  // The token embedding multiplied by sqrt(hidden_size) (Gemma*TextScaledWordEmbedding).
  bool scaled_embedding = false;
  // An RMSNorm on each sublayer's output before its residual add, besides the one on its input
  // (Gemma 2's and 3's post_attention_layernorm and post_feedforward_layernorm; their MLP's
  // input norm is pre_feedforward_layernorm).
  bool sandwich_norms = false;
  // tanh soft-capping, cap * tanh(x / cap), of every layer's attention scores (Gemma 2's
  // attn_logit_softcapping, 50) and of the LM head's logits (final_logit_softcapping, 30); 0 =
  // none.
  double attn_softcap = 0;
  double logit_softcap = 0;
  // The MLP reads the layer's input (through its own norm) rather than the attention's output,
  // and the two branches are added to the input together (GPT-NeoX's use_parallel_residual).
  bool parallel_residual = false;
  // With parallel_residual, the MLP reads the attention's norm rather than a norm of its own
  // (Falcon-7B's one input_layernorm a layer).
  bool parallel_shared_norm = false;
  // The keys and values are copied out to every query head before the core (Falcon's
  // new_decoder_architecture: torch.broadcast_to, then flatten, which copies): the core keeps
  // and reads them at num_heads, not num_kv_heads.
  bool kv_copied_per_head = false;
  // BERT's: the layer normalizes after each residual add (see above); no final norm.
  bool post_norm = false;
  // Rows of BERT's token-type table (type_vocab_size); 0: none.
  std::int64_t type_vocab_size = 0;
  HeadKind head = HeadKind::kCausalLm;
  // The outputs of a question-answering or classification head (HF num_labels; 2 for QA's start
  // and end logits).
  std::int64_t num_labels = 2;
  // An encoder-decoder's (t5): num_layers encoder layers, then this many decoder layers, each
  // with a cross-attention over the encoder's output between its self-attention and its MLP;
  // 0 for every other family.
  std::int64_t num_decoder_layers = 0;
  // T5's relative-position buckets (relative_attention_num_buckets): the rows of each stack's
  // bias table.
  std::int64_t relative_buckets = 0;
  std::int64_t sliding_window = 0;  // tokens; 0 = none. Informational: costs assume full attention
  // The dtype the checkpoint is stored in, as config.json's torch_dtype (dtype from transformers
  // 5) states it: "fp32", "bf16" or "fp16"; "" when it states none or another. Only the host
  // memory of loading it depends on it (plan/model_load.h).
  std::string checkpoint_dtype;
  DropoutProbs dropout;
  double norm_eps = 1e-5;
  // RoPE base theta: inv_freq_j = theta^(-2j/d) (kernels/cpu/rotary.h). HF's rope_theta, whose
  // LlamaConfig/MistralConfig/Qwen2Config default is 10000 (Llama-2, Mistral-7B-v0.1); Llama-3
  // sets 500000, Qwen2 1000000. Read only with rotary positions.
  double rope_theta = 10000.0;
  // The share of each head's dimensions RoPE rotates, in (0, 1]: the first
  // int(head_dim * partial_rotary_factor) of them (Phi3Config's rope_parameters; Phi-4-mini sets
  // 0.75); the rest pass through. 1 for every other family.
  double partial_rotary_factor = 1.0;

  // Query width a * head_dim (= h for every zoo model).
  std::int64_t q_dim() const { return num_heads * head_dim; }
  // Key (and value) width num_kv_heads * head_dim.
  std::int64_t kv_dim() const { return num_kv_heads * head_dim; }
  // Each head's value width: head_dim, or MLA's v_head_dim.
  std::int64_t value_head_dim() const { return mla.enabled() ? mla.v_head_dim : head_dim; }
  // The attention output's width, the output projection's input: num_heads * value_head_dim().
  std::int64_t attn_out_dim() const { return num_heads * value_head_dim(); }
  // The dimensions of each head RoPE rotates: int(head_dim * partial_rotary_factor), as
  // transformers' rope init truncates it; MLA's qk_rope_head_dim.
  std::int64_t rotary_dim() const {
    if (mla.enabled()) return mla.qk_rope_head_dim;
    return static_cast<std::int64_t>(static_cast<double>(head_dim) * partial_rotary_factor);
  }

  bool operator==(const ModelSpec&) const = default;
};

// "gpt2", "llama", "mistral", "qwen2", "qwen3", "mixtral", "qwen3_moe", "qwen2_moe", "phi3",
// "gemma", "gemma2", "gemma3_text", "opt", "gpt_neox", "bert", "t5", "blenderbot", "roberta",
// "bart", "bloom", "falcon", "deepseek_v2", "deepseek_v3", "deberta-v2": the HF model_type
// string.
std::string_view model_type_name(ModelType t);
// Every ModelType's name, in enum order.
std::span<const std::string_view> model_type_names();

// q, k and v come from one Linear of width q_dim + 2 kv_dim (GPT-2's c_attn, Phi-3's qkv_proj).
bool fused_qkv(const ModelSpec& spec);
// The SwiGLU's gate and up halves come from one Linear of width 2I (Phi-3's gate_up_proj, whose
// output's first half is the gate).
bool fused_gate_up(const ModelSpec& spec);
// transformers runs the model's attention through SDPA when asked (every family but bloom, whose
// BloomAttention computes its scores itself).
bool supports_sdpa(const ModelSpec& spec);
// Layer `layer` has experts (a MoE family's layer past moe.dense_layers).
bool has_experts(const ModelSpec& spec, std::int64_t layer);
// deepseek_v2 or deepseek_v3.
bool is_deepseek(const ModelSpec& spec);
// gemma, gemma2 or gemma3_text.
bool is_gemma(const ModelSpec& spec);
// Every token attends to every other (bert, roberta, deberta-v2): no causal mask.
bool is_encoder(const ModelSpec& spec);
// An encoder and a decoder joined by cross-attention (t5, blenderbot, bart).
bool is_encoder_decoder(const ModelSpec& spec);
// The transformer layers of every stack: num_layers + num_decoder_layers. The final norm, the
// head and the loss take this layer index (models/parameters.h).
std::int64_t total_layers(const ModelSpec& spec);
// "causal_lm", "masked_lm", "question_answering", "sequence_classification".
std::string_view head_kind_name(HeadKind k);
std::string_view norm_kind_name(NormKind k);
std::string_view mlp_kind_name(MlpKind k);

// The activation functions HF's ACT2FN knows by name (transformers/activations.py), which is what
// GPT2Config.activation_function and hidden_act may say. All are elementwise; zerosim costs them
// alike.
std::span<const std::string_view> known_activations();

// The largest sizes zerosim accepts. Each is far past any published model (the largest have
// vocabularies of 256k, hidden sizes of 25,600, 126 layers, MLP widths of 73,728 and contexts of
// 10M tokens); together they keep every parameter count under 2^54 and its bytes in 64-bit
// integers (validate_workload bounds what the batch multiplies).
inline constexpr std::int64_t kMaxVocabSize = std::int64_t{1} << 24;
inline constexpr std::int64_t kMaxHiddenSize = std::int64_t{1} << 17;  // also num_heads * head_dim
inline constexpr std::int64_t kMaxLayers = 10'000;
inline constexpr std::int64_t kMaxIntermediateSize = std::int64_t{1} << 19;
inline constexpr std::int64_t kMaxPositions = std::int64_t{1} << 24;
// DeepSeek-V3 routes over 256 experts, Qwen3-MoE 128; 4096 leaves room without letting E * 3hI
// pass kMaxHiddenSize * kMaxIntermediateSize * 2^14 < 2^50.
inline constexpr std::int64_t kMaxExperts = 4096;
// Every layer's experts together (E x 3 x h x I x the layers with experts): 2^52, 6,700x
// DeepSeek-V3's 671 B parameters, keeps every byte count of their model states inside 64-bit
// integers.
inline constexpr std::int64_t kMaxExpertParameters = std::int64_t{1} << 52;
// E x 3 x h x I x layers for `spec`'s experts, in floating point (it may pass any integer).
double expert_parameters(const ModelSpec& spec);

// Returns OK if `spec` describes a model that can be built, else kInvalidArgument naming the
// model, the field and its value. Checks: every size > 0 and at most its kMax* above (heads and
// head_dim at most kMaxHiddenSize, their product too); num_kv_heads divides num_heads;
// dropout probabilities in [0, 1); norm_eps > 0; sliding_window >= 0; partial_rotary_factor in
// (0, 1], below 1 only for phi3 and gpt_neox and leaving an even rotary_dim() >= 2;
// parallel_residual only for gpt_neox and falcon (parallel_shared_norm only with it, and only
// falcon's); and the module structure
// of its model_type (the table above): gpt2 has learned positions, LayerNorm, a GELU MLP and
// num_heads * head_dim == hidden_size with no GQA (GPT2Attention splits n_embd), and so has opt
// (OPTAttention's separate q/k/v over hidden_size; no embedding dropout); llama, mistral,
// qwen2, qwen3, mixtral, qwen3_moe, qwen2_moe, phi3 and the gemma families have rotary positions,
// RMSNorm and the gated MLP (MlpKind::kSwiGlu); phi3 has no linear biases and no embedding
// dropout; gpt_neox has rotary positions, LayerNorm, a two-matrix MLP and no GQA; bloom and only
// it ALiBi positions, with LayerNorm, a two-matrix MLP of 4 x hidden_size, no GQA and no
// embedding dropout;
// qwen3, qwen3_moe and gemma3_text and only they have qk_norm; the gemma families and
// only they have a scaled embedding, gemma2 and gemma3_text and only they sandwich norms and
// logit soft-capping, gemma2 alone attention soft-capping (each cap finite and >= 0); the five
// MoE families and only they have
// experts (qwen2_moe a gated shared expert, deepseek's an ungated one or none, each at most
// kMaxIntermediateSize wide, the others none), 1 <= experts_per_token <= num_experts <=
// kMaxExperts, at most kMaxExpertParameters in all, and no MLP bias; deepseek's and only they
// have dense first layers (0 <= dense_layers <= num_layers, dense_size from 1 to
// kMaxIntermediateSize when there are any) and multi-head latent attention (MlaSpec: kv_lora_rank
// and the three head dimensions from 1 to kMaxHiddenSize, qk_rope_head_dim even, q_lora_rank from
// 0, head_dim == qk_nope_head_dim + qk_rope_head_dim, num_kv_heads == num_heads,
// kv_lora_rank + qk_rope_head_dim and num_heads x (qk_nope_head_dim + v_head_dim) at most
// kMaxHiddenSize); bert and roberta
// have learned positions, LayerNorm after each residual add (post_norm), a GELU MLP, no GQA, 1 to
// 16 token types (type_vocab_size; no other family has them) and a masked-LM, question-answering or
// classification head (num_labels from 1 to 1024); deberta-v2 the same but disentangled positions
// (and only it: span from 1 to kMaxPositions, the table normalized, a conv_kernel from 0 to 64 of
// a known activation),
// no token types and only the classification head; every other family a causal-LM head and no
// token types, and only bart post_norm too; opt's and bart's position_offset is 2, roberta's from 1
// to kMaxPositions, every other family's 0; t5, blenderbot and bart have 1 to kMaxLayers decoder
// layers, no GQA and a tied causal-LM head over the decoder, t5 relative-bias positions (1 to 1024
// buckets), RMSNorm and no linear biases, blenderbot and bart learned positions, LayerNorm and a
// two-matrix MLP (and may scale their embedding); no other family has decoder layers or relative
// positions. Biases and dropout are free. For the llama family head_dim * num_heads need not equal
// hidden_size (HF allows an explicit head_dim).
Status validate(const ModelSpec& spec);

}  // namespace zs::models
