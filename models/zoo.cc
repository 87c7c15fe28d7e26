#include "models/zoo.h"

#include "common/text.h"

namespace zs::models {
namespace {

// One row per model. Every number is the value in the HF config.json of `hf_repo` (keys:
// vocab_size; n_embd / hidden_size; n_layer / num_hidden_layers; n_head / num_attention_heads;
// num_key_value_heads; n_inner (null = 4h) / intermediate_size; n_positions /
// max_position_embeddings; layer_norm_epsilon / rms_norm_eps; sliding_window).
// Family-wide choices (norm, MLP, biases, dropout) come from family_defaults() below.
struct ZooRow {
  std::string_view name;
  std::string_view hf_repo;
  ModelType type;
  std::int64_t vocab, hidden, layers, heads, kv_heads, ffn, positions;
  bool tied;
  double eps;
  std::int64_t sliding_window;  // 0 = none
};

// clang-format off
constexpr ZooRow kZoo[] = {
  // name          hf_repo                            type                 vocab   hidden layers heads kv  ffn    positions tied  eps   window
  {"gpt2",        "openai-community/gpt2",           ModelType::kGpt2,    50257,  768,   12,    12,   12, 3072,  1024,     true,  1e-5, 0},
  {"gpt2-medium", "openai-community/gpt2-medium",    ModelType::kGpt2,    50257,  1024,  24,    16,   16, 4096,  1024,     true,  1e-5, 0},
  {"gpt2-large",  "openai-community/gpt2-large",     ModelType::kGpt2,    50257,  1280,  36,    20,   20, 5120,  1024,     true,  1e-5, 0},
  {"gpt2-xl",     "openai-community/gpt2-xl",        ModelType::kGpt2,    50257,  1600,  48,    25,   25, 6400,  1024,     true,  1e-5, 0},
  {"llama2-7b",   "meta-llama/Llama-2-7b-hf",        ModelType::kLlama,   32000,  4096,  32,    32,   32, 11008, 4096,     false, 1e-5, 0},
  {"llama2-13b",  "meta-llama/Llama-2-13b-hf",       ModelType::kLlama,   32000,  5120,  40,    40,   40, 13824, 4096,     false, 1e-5, 0},
  {"llama2-70b",  "meta-llama/Llama-2-70b-hf",       ModelType::kLlama,   32000,  8192,  80,    64,   8,  28672, 4096,     false, 1e-5, 0},
  {"llama3-8b",   "meta-llama/Meta-Llama-3-8B",      ModelType::kLlama,   128256, 4096,  32,    32,   8,  14336, 8192,     false, 1e-5, 0},
  {"llama3-70b",  "meta-llama/Meta-Llama-3-70B",     ModelType::kLlama,   128256, 8192,  80,    64,   8,  28672, 8192,     false, 1e-5, 0},
  {"mistral-7b",  "mistralai/Mistral-7B-v0.1",       ModelType::kMistral, 32000,  4096,  32,    32,   8,  14336, 32768,    false, 1e-5, 4096},
  // Qwen2-7B sets sliding_window 131072 with use_sliding_window false: no window.
  {"qwen2-7b",    "Qwen/Qwen2-7B",                   ModelType::kQwen2,   152064, 3584,  28,    28,   4,  18944, 131072,   false, 1e-6, 0},
  // Qwen3-8B: head_dim 128 = hidden / heads; sliding_window null, use_sliding_window false.
  {"qwen3-8b",    "Qwen/Qwen3-8B",                   ModelType::kQwen3,   151936, 4096,  36,    32,   8,  12288, 40960,    false, 1e-6, 0},
  // Mixtral-8x7B-v0.1: 8 experts of width 14336, 2 per token (46,702,792,704 parameters).
  {"mixtral-8x7b", "mistralai/Mixtral-8x7B-v0.1",   ModelType::kMixtral, 32000,  4096,  32,    32,   8,  14336, 32768,    false, 1e-5, 0},
  // Qwen3-30B-A3B: 128 experts of width 768 (moe_intermediate_size), 8 per token with
  // norm_topk_prob, head_dim 128 (not hidden / heads = 64); 30,532,122,624 parameters.
  {"qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B",           ModelType::kQwen3Moe, 151936, 2048, 48,   32,   4,  768,   40960,    false, 1e-6, 0},
  // Qwen1.5-MoE-A2.7B: 60 experts of width 1408, 4 per token, and a shared expert of width 5632.
  {"qwen1.5-moe-a2.7b", "Qwen/Qwen1.5-MoE-A2.7B",   ModelType::kQwen2Moe, 151936, 2048, 24,   16,   16, 1408,  8192,     false, 1e-6, 0},
  // DeepSeek-V2-Lite and DeepSeek-V3: multi-head latent attention, `ffn` the routed experts'
  // width (moe_intermediate_size); the dense first layers, shared experts and latent ranks are
  // set in deepseek_defaults below. 15,706,484,224 and 671,026,404,352 parameters.
  {"deepseek-v2-lite", "deepseek-ai/DeepSeek-V2-Lite", ModelType::kDeepseekV2, 102400, 2048, 27, 16, 16, 1408, 163840, false, 1e-6, 0},
  {"deepseek-v3", "deepseek-ai/DeepSeek-V3",         ModelType::kDeepseekV3, 129280, 7168, 61, 128, 128, 2048, 163840, false, 1e-6, 0},
  // Phi-3-mini-4k-instruct: qkv_proj and gate_up_proj fused, full rotary, sliding_window 2047
  // (3,821,079,552 parameters).
  {"phi-3-mini",  "microsoft/Phi-3-mini-4k-instruct", ModelType::kPhi3,   32064,  3072,  32,    32,   32, 8192,  4096,     false, 1e-5, 2047},
  // Phi-4 (model_type phi3): 10 key/value heads, rope_theta 250000 (14,659,507,200 parameters).
  {"phi-4",       "microsoft/phi-4",                 ModelType::kPhi3,    100352, 5120,  40,    40,   10, 17920, 16384,    false, 1e-5, 0},
  // Gemma 2 (head_dim 256, tied, soft-capped attention 50 and logits 30, sliding window 4096 on
  // alternate layers): 2,614,341,888 and 9,241,705,984 parameters.
  {"gemma-2-2b",  "google/gemma-2-2b",               ModelType::kGemma2,  256000, 2304,  26,    8,    4,  9216,  8192,     true,  1e-6, 4096},
  {"gemma-2-9b",  "google/gemma-2-9b",               ModelType::kGemma2,  256000, 3584,  42,    16,   8,  14336, 8192,     true,  1e-6, 4096},
  // Gemma 3 (model_type gemma3_text, head_dim 256, q/k norms, no soft-capping): the 1B model
  // and the 12B model's language model (its text_config, without the vision tower):
  // 999,885,952 and 11,766,034,176 parameters.
  {"gemma-3-1b",  "google/gemma-3-1b-pt",            ModelType::kGemma3Text, 262144, 1152, 26, 4,    1,  6912,  32768,    true,  1e-6, 512},
  {"gemma-3-12b", "google/gemma-3-12b-pt",           ModelType::kGemma3Text, 262208, 3840, 48, 16,   8,  15360, 131072,   true,  1e-6, 1024},
  // OPT (DeepSpeed-Chat's actors and critics): learned positions (2 rows more), pre-LayerNorm,
  // ReLU fc1/fc2, biases, dropout 0.1, tied head: 1,315,758,080 ... 65,719,701,504 parameters.
  {"opt-1.3b",    "facebook/opt-1.3b",               ModelType::kOpt,     50272,  2048,  24,    32,   32, 8192,  2048,     true,  1e-5, 0},
  {"opt-6.7b",    "facebook/opt-6.7b",               ModelType::kOpt,     50272,  4096,  32,    32,   32, 16384, 2048,     true,  1e-5, 0},
  {"opt-13b",     "facebook/opt-13b",                ModelType::kOpt,     50272,  5120,  40,    40,   40, 20480, 2048,     true,  1e-5, 0},
  {"opt-30b",     "facebook/opt-30b",                ModelType::kOpt,     50272,  7168,  48,    56,   56, 28672, 2048,     true,  1e-5, 0},
  {"opt-66b",     "facebook/opt-66b",                ModelType::kOpt,     50272,  9216,  64,    72,   72, 36864, 2048,     true,  1e-5, 0},
  // GPT-NeoX (Pythia, GPT-NeoX-20B): one query_key_value, a quarter of each head rotated,
  // LayerNorm, GELU, attention and MLP in parallel, untied head.
  {"pythia-1b",   "EleutherAI/pythia-1b",            ModelType::kGptNeox, 50304,  2048,  16,    8,    8,  8192,  2048,     false, 1e-5, 0},
  {"pythia-6.9b", "EleutherAI/pythia-6.9b",          ModelType::kGptNeox, 50432,  4096,  32,    32,   32, 16384, 2048,     false, 1e-5, 0},
  {"pythia-12b",  "EleutherAI/pythia-12b",           ModelType::kGptNeox, 50688,  5120,  36,    40,   40, 20480, 2048,     false, 1e-5, 0},
  {"gpt-neox-20b", "EleutherAI/gpt-neox-20b",        ModelType::kGptNeox, 50432,  6144,  44,    64,   64, 24576, 2048,     false, 1e-5, 0},
  // BLOOM (BloomForCausalLM): ALiBi, so `positions` is only the trained length; the MLP 4h.
  {"bloom-560m",  "bigscience/bloom-560m",           ModelType::kBloom,   250880, 1024,  24,    16,   16, 4096,  2048,     true,  1e-5, 0},
  {"bloom-7b1",   "bigscience/bloom-7b1",            ModelType::kBloom,   250880, 4096,  30,    32,   32, 16384, 2048,     true,  1e-5, 0},
  // Falcon-7B: multi-query (one key/value head), attention and MLP in parallel on one norm.
  {"falcon-7b",   "tiiuae/falcon-7b",                ModelType::kFalcon,  65024,  4544,  32,    71,   1,  18176, 2048,     true,  1e-5, 0},
  // Falcon-40B: the new decoder architecture (8 key/value groups copied out to the 128 query
  // heads, ln_attn and ln_mlp).
  {"falcon-40b",  "tiiuae/falcon-40b",               ModelType::kFalcon,  65024,  8192,  60,    128,  8,  32768, 2048,     true,  1e-5, 0},
  // BERT (BertForMaskedLM, the hub checkpoints' architectures): post-LayerNorm encoder layers,
  // two token types, the masked-LM head tied to the word table.
  {"bert-base-uncased",  "google-bert/bert-base-uncased",  ModelType::kBert, 30522, 768,  12, 12, 12, 3072, 512, true, 1e-12, 0},
  {"bert-large-uncased", "google-bert/bert-large-uncased", ModelType::kBert, 30522, 1024, 24, 16, 16, 4096, 512, true, 1e-12, 0},
  // RoBERTa (RobertaForMaskedLM): BERT's layers, one token type, 514 position rows of which the
  // first two sit before position 0 (pad_token_id 1), so 512 tokens at most.
  {"roberta-base",  "FacebookAI/roberta-base",  ModelType::kRoberta, 50265, 768,  12, 12, 12, 3072, 512, true, 1e-5, 0},
  {"roberta-large", "FacebookAI/roberta-large", ModelType::kRoberta, 50265, 1024, 24, 16, 16, 4096, 512, true, 1e-5, 0},
  // DeBERTa-v2-xlarge fine-tuned on MNLI (DebertaV2ForSequenceClassification, 3 labels):
  // disentangled attention over 2 x 256 relative positions, a ConvLayer of kernel 3, no token
  // types; 886,958,595 parameters.
  {"deberta-v2-xlarge-mnli", "microsoft/deberta-v2-xlarge-mnli", ModelType::kDebertaV2, 128100, 1536, 24, 24, 24, 6144, 512, false, 1e-7, 0},
  // T5 (T5ForConditionalGeneration, v1.0): encoder and decoder of `layers` each, ReLU MLP, the LM
  // head tied to `shared`. T5-3B's heads are 128 wide (d_kv), 32 of them over d_model 1024.
  {"t5-base",  "google-t5/t5-base",  ModelType::kT5, 32128, 768,  12, 12, 12, 3072,  512, true, 1e-6, 0},
  {"t5-large", "google-t5/t5-large", ModelType::kT5, 32128, 1024, 24, 16, 16, 4096,  512, true, 1e-6, 0},
  {"t5-3b",    "google-t5/t5-3b",    ModelType::kT5, 32128, 1024, 24, 32, 32, 16384, 512, true, 1e-6, 0},
  // BART (BartForConditionalGeneration): encoder and decoder of `layers` each, post-LayerNorm,
  // positions offset by 2 (1026 rows), the LM head tied to `shared`.
  {"bart-base",  "facebook/bart-base",  ModelType::kBart, 50265, 768,  6,  12, 12, 3072, 1024, true, 1e-5, 0},
  {"bart-large", "facebook/bart-large", ModelType::kBart, 50265, 1024, 12, 16, 16, 4096, 1024, true, 1e-5, 0},
  // A GPT-2-shaped model small enough for unit tests and the CPU executor (120,576 parameters).
  {"tiny-gpt",    "(zerosim test model)",            ModelType::kGpt2,    256,    64,    2,     4,    4,  256,   64,       true,  1e-5, 0},
};
// clang-format on

struct Alias {
  std::string_view alias;
  std::string_view name;
};

constexpr Alias kAliases[] = {
    {"gpt2-small", "gpt2"},
    {"gpt2-124m", "gpt2"},
    {"openai-community/gpt2", "gpt2"},
    {"gpt2-350m", "gpt2-medium"},
    {"gpt2-355m", "gpt2-medium"},
    {"openai-community/gpt2-medium", "gpt2-medium"},
    {"gpt2-774m", "gpt2-large"},
    {"openai-community/gpt2-large", "gpt2-large"},
    {"gpt2-1.5b", "gpt2-xl"},
    {"gpt2-1558m", "gpt2-xl"},
    {"openai-community/gpt2-xl", "gpt2-xl"},
    {"llama-2-7b", "llama2-7b"},
    {"llama-2-7b-hf", "llama2-7b"},
    {"meta-llama/llama-2-7b-hf", "llama2-7b"},
    {"llama-2-13b", "llama2-13b"},
    {"llama-2-13b-hf", "llama2-13b"},
    {"meta-llama/llama-2-13b-hf", "llama2-13b"},
    {"llama-2-70b", "llama2-70b"},
    {"llama-2-70b-hf", "llama2-70b"},
    {"meta-llama/llama-2-70b-hf", "llama2-70b"},
    {"llama-3-8b", "llama3-8b"},
    {"meta-llama-3-8b", "llama3-8b"},
    {"meta-llama/meta-llama-3-8b", "llama3-8b"},
    {"llama-3-70b", "llama3-70b"},
    {"meta-llama-3-70b", "llama3-70b"},
    {"meta-llama/meta-llama-3-70b", "llama3-70b"},
    {"mistral-7b-v0.1", "mistral-7b"},
    {"mistralai/mistral-7b-v0.1", "mistral-7b"},
    {"qwen2-7b-base", "qwen2-7b"},
    {"qwen/qwen2-7b", "qwen2-7b"},
    {"qwen/qwen3-8b", "qwen3-8b"},
    {"mixtral-8x7b-v0.1", "mixtral-8x7b"},
    {"mistralai/mixtral-8x7b-v0.1", "mixtral-8x7b"},
    {"qwen/qwen3-30b-a3b", "qwen3-30b-a3b"},
    {"qwen/qwen1.5-moe-a2.7b", "qwen1.5-moe-a2.7b"},
    {"microsoft/phi-3-mini-4k-instruct", "phi-3-mini"},
    {"microsoft/phi-4", "phi-4"},
    {"facebook/opt-1.3b", "opt-1.3b"},
    {"facebook/opt-6.7b", "opt-6.7b"},
    {"facebook/opt-13b", "opt-13b"},
    {"facebook/opt-30b", "opt-30b"},
    {"facebook/opt-66b", "opt-66b"},
    {"eleutherai/pythia-1b", "pythia-1b"},
    {"eleutherai/pythia-6.9b", "pythia-6.9b"},
    {"eleutherai/pythia-12b", "pythia-12b"},
    {"eleutherai/gpt-neox-20b", "gpt-neox-20b"},
    {"google/gemma-2-2b", "gemma-2-2b"},
    {"google/gemma-2-9b", "gemma-2-9b"},
    {"google/gemma-3-1b-pt", "gemma-3-1b"},
    {"google/gemma-3-12b-pt", "gemma-3-12b"},
    {"google-bert/bert-base-uncased", "bert-base-uncased"},
    {"google-bert/bert-large-uncased", "bert-large-uncased"},
    {"google-t5/t5-base", "t5-base"},
    {"google-t5/t5-large", "t5-large"},
    {"google-t5/t5-3b", "t5-3b"},
    {"tiny", "tiny-gpt"},
    {"tiny-gpt2", "tiny-gpt"},
    {"gpt2-tiny", "tiny-gpt"},
    {"tinygpt", "tiny-gpt"},
};

// The choices every checkpoint of a family shares (HF modeling_<family>.py).
void apply_family_defaults(ModelType type, ModelSpec* spec) {
  if (type == ModelType::kGptNeox) {  // GPTNeoXConfig: gelu, biases, rotary_pct 0.25, parallel
    spec->position = PositionKind::kRotary;
    spec->norm = NormKind::kLayerNorm;
    spec->mlp = MlpKind::kGelu;
    spec->activation = "gelu";
    spec->bias = {.qkv = true, .attn_out = true, .mlp = true};
    spec->partial_rotary_factor = 0.25;
    spec->parallel_residual = true;
    spec->dropout = {};
    return;
  }
  if (type == ModelType::kOpt) {  // OPTConfig: relu, enable_bias, dropout 0.1 (not on embeddings)
    spec->position = PositionKind::kLearned;
    spec->norm = NormKind::kLayerNorm;
    spec->mlp = MlpKind::kGelu;
    spec->activation = "relu";
    spec->bias = {.qkv = true, .attn_out = true, .mlp = true};
    spec->dropout = {.resid = 0.1};
    spec->position_offset = 2;
    return;
  }
  if (type == ModelType::kBert || type == ModelType::kRoberta || type == ModelType::kDebertaV2) {
    // BertConfig and RobertaConfig: gelu, biases, dropout 0.1; the checkpoints' token types (2
    // and 1) and RoBERTa's padding row 1. deberta-v2-xlarge-mnli's config.json: BERT's layers,
    // disentangled attention over 2 x 256 positions, a ConvLayer, 3 labels, no token types.
    if (type == ModelType::kDebertaV2) {
      spec->position = PositionKind::kDisentangled;
      spec->head = HeadKind::kSequenceClassification;
      spec->num_labels = 3;
      spec->disentangled = {.span = 256,
                            .c2p = true,
                            .p2c = true,
                            .norm_table = true,
                            .conv_kernel = 3,
                            .conv_act = "gelu"};
    }
    spec->norm = NormKind::kLayerNorm;
    spec->norm = NormKind::kLayerNorm;
    spec->mlp = MlpKind::kGelu;
    spec->activation = "gelu";
    spec->bias = {.qkv = true, .attn_out = true, .mlp = true};
    spec->dropout = {.embd = 0.1, .attn = 0.1, .resid = 0.1};
    spec->post_norm = true;
    if (type == ModelType::kDebertaV2) return;
    spec->position = PositionKind::kLearned;
    spec->type_vocab_size = type == ModelType::kBert ? 2 : 1;
    spec->position_offset = type == ModelType::kBert ? 0 : 2;
    spec->head = HeadKind::kMaskedLm;
    return;
  }
  if (type == ModelType::kFalcon) {  // FalconConfig: gelu, no biases, no dropout
    spec->position = PositionKind::kRotary;
    spec->norm = NormKind::kLayerNorm;
    spec->mlp = MlpKind::kGelu;
    spec->activation = "gelu";
    spec->bias = {};
    spec->dropout = {};
    spec->parallel_residual = true;
    spec->parallel_shared_norm = true;
    return;
  }
  if (type == ModelType::kBloom) {  // BloomConfig: no dropout, biases, BloomGelu (tanh)
    spec->position = PositionKind::kAlibi;
    spec->norm = NormKind::kLayerNorm;
    spec->mlp = MlpKind::kGelu;
    spec->activation = "gelu_new";
    spec->bias = {.qkv = true, .attn_out = true, .mlp = true};
    spec->dropout = {};
    return;
  }
  if (type == ModelType::kBart) {
    // The checkpoints' config.json: gelu, biases, dropout, attention_dropout and
    // activation_dropout 0.1, no embedding scale
    spec->position = PositionKind::kLearned;
    spec->norm = NormKind::kLayerNorm;
    spec->mlp = MlpKind::kGelu;
    spec->activation = "gelu";
    spec->bias = {.qkv = true, .attn_out = true, .mlp = true};
    spec->dropout = {.embd = 0.1, .attn = 0.1, .resid = 0.1, .act = 0.1};
    spec->num_decoder_layers = spec->num_layers;
    spec->post_norm = true;
    spec->position_offset = 2;
    return;
  }
  if (type == ModelType::kT5) {  // T5Config: relu, no biases, dropout 0.1, 32 buckets
    spec->position = PositionKind::kRelativeBias;
    spec->norm = NormKind::kRmsNorm;
    spec->mlp = MlpKind::kGelu;
    spec->activation = "relu";
    spec->bias = {};
    spec->dropout = {.embd = 0.1, .attn = 0.1, .resid = 0.1, .act = 0.1};
    spec->num_decoder_layers = spec->num_layers;
    spec->relative_buckets = 32;
    return;
  }
  if (type == ModelType::kGpt2) {
    spec->position = PositionKind::kLearned;
    spec->norm = NormKind::kLayerNorm;
    spec->mlp = MlpKind::kGelu;
    spec->activation = "gelu_new";
    spec->bias = {.qkv = true, .attn_out = true, .mlp = true};
    spec->dropout = {.embd = 0.1, .attn = 0.1, .resid = 0.1};  // GPT2Config defaults
    return;
  }
  spec->position = PositionKind::kRotary;
  spec->norm = NormKind::kRmsNorm;
  spec->mlp = MlpKind::kSwiGlu;
  spec->activation = "silu";
  spec->bias = {};
  if (is_gemma(*spec)) {
    // modeling_gemma2.py, modeling_gemma3.py: gelu_pytorch_tanh, a scaled embedding, sandwich
    // norms; Gemma3's q/k norms; Gemma2Config's caps 50 (attention) and 30 (logits).
    spec->activation = "gelu_pytorch_tanh";
    spec->head_dim = 256;
    spec->scaled_embedding = true;
    spec->sandwich_norms = type != ModelType::kGemma;
    spec->qk_norm = type == ModelType::kGemma3Text;
    if (type == ModelType::kGemma2) {
      spec->attn_softcap = 50.0;
      spec->logit_softcap = 30.0;
    }
    spec->dropout = {};
    return;
  }
  // Qwen2Attention: q/k/v bias=True; Qwen2MoeAttention: qkv_bias, true by default.
  if (type == ModelType::kQwen2 || type == ModelType::kQwen2Moe) spec->bias.qkv = true;
  // Qwen3Attention and Qwen3MoeAttention: q_norm, k_norm.
  spec->qk_norm = type == ModelType::kQwen3 || type == ModelType::kQwen3Moe;
  if (type == ModelType::kMixtral) spec->moe = {.num_experts = 8, .experts_per_token = 2};
  if (type == ModelType::kQwen3Moe) {
    spec->moe = {.num_experts = 128, .experts_per_token = 8, .normalize_top_k = true};
  }
  if (type == ModelType::kQwen2Moe) {
    spec->moe = {.num_experts = 60,
                 .experts_per_token = 4,
                 .normalize_top_k = false,
                 .shared_expert_size = 5632,
                 .shared_expert_gate = true};
  }
  spec->dropout = {};
}

// DeepSeek-V2-Lite's and -V3's config.json: the latent attention's ranks and head widths, the
// dense first layers (first_k_dense_replace, intermediate_size), the shared experts
// (n_shared_experts x moe_intermediate_size) and the routing.
void deepseek_defaults(const ZooRow& row, ModelSpec* spec) {
  const bool lite = row.name == std::string_view("deepseek-v2-lite");
  spec->mla = {.q_lora_rank = lite ? 0 : 1536,
               .kv_lora_rank = 512,
               .qk_nope_head_dim = 128,
               .qk_rope_head_dim = 64,
               .v_head_dim = 128};
  spec->head_dim = 192;
  spec->moe = {.num_experts = lite ? 64 : 256,
               .experts_per_token = lite ? 6 : 8,
               .normalize_top_k = !lite,
               .shared_expert_size = lite ? 2 * 1408 : 2048,
               .dense_layers = lite ? 1 : 3,
               .dense_size = lite ? 10944 : 18432};
}

ModelSpec spec_from_row(const ZooRow& row) {
  ModelSpec spec;
  spec.name = std::string(row.name);
  spec.hf_repo = std::string(row.hf_repo);
  spec.model_type = row.type;
  spec.vocab_size = row.vocab;
  spec.hidden_size = row.hidden;
  spec.num_layers = row.layers;
  spec.num_heads = row.heads;
  spec.num_kv_heads = row.kv_heads;
  spec.head_dim = row.hidden / row.heads;
  spec.intermediate_size = row.ffn;
  spec.max_position_embeddings = row.positions;
  spec.tie_word_embeddings = row.tied;
  spec.norm_eps = row.eps;
  spec.sliding_window = row.sliding_window;
  // rope_theta of the families' config.json files (models/hf_configs/): Llama-3 500000, Qwen2,
  // Qwen3, Mixtral and the Qwen MoE models 1000000, the rest HF's default 10000.
  if (row.name == std::string_view("llama3-8b") || row.name == std::string_view("llama3-70b")) {
    spec.rope_theta = 500000.0;
  } else if (row.name == std::string_view("qwen2-7b") || row.name == std::string_view("qwen3-8b") ||
             row.name == std::string_view("mixtral-8x7b") ||
             row.name == std::string_view("qwen3-30b-a3b") ||
             row.name == std::string_view("qwen1.5-moe-a2.7b") ||
             row.type == ModelType::kGemma3Text) {
    spec.rope_theta = 1000000.0;
  }
  if (row.name == std::string_view("phi-4")) spec.rope_theta = 250000.0;
  if (row.name == std::string_view("qwen3-30b-a3b")) spec.head_dim = 128;
  if (row.name == std::string_view("t5-3b")) spec.head_dim = 128;  // d_kv
  // torch_dtype of the same config.json files: Llama-2's float16, Llama-3's, Mistral's, Qwen2's,
  // Qwen3's and Mixtral's bfloat16; GPT-2's states none (its weights are fp32).
  if (row.type == ModelType::kLlama) {
    spec.checkpoint_dtype = std::string_view(row.name).starts_with("llama2") ? "fp16" : "bf16";
  } else if (row.type == ModelType::kGemma2) {
    spec.checkpoint_dtype = "fp32";  // Gemma 2's config.json: torch_dtype float32
  } else if (row.type == ModelType::kOpt || row.type == ModelType::kGptNeox) {
    spec.checkpoint_dtype = "fp16";  // OPT's and Pythia's: float16
  } else if (row.type != ModelType::kGpt2 && row.type != ModelType::kBloom && !is_encoder(spec) &&
             !is_encoder_decoder(spec)) {
    spec.checkpoint_dtype = "bf16";  // BLOOM's, BERT's, RoBERTa's, T5's and BART's, like
                                     // GPT-2's, state none (fp32)
  }
  apply_family_defaults(row.type, &spec);
  if (is_deepseek(spec)) deepseek_defaults(row, &spec);
  if (row.name == std::string_view("falcon-40b")) {  // new_decoder_architecture
    spec.kv_copied_per_head = true;
    spec.parallel_shared_norm = false;
  }
  if (row.name == std::string_view("gpt-neox-20b"))
    spec.activation = "gelu_fast";  // its hidden_act
  return spec;
}

const ZooRow* find_row(std::string_view name) {
  const std::string key = to_lower(name);
  std::string_view canonical = key;
  for (const Alias& a : kAliases) {
    if (a.alias == key) canonical = a.name;
  }
  for (const ZooRow& row : kZoo) {
    if (row.name == canonical) return &row;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> zoo_names() {
  std::vector<std::string> names;
  for (const ZooRow& row : kZoo) names.emplace_back(row.name);
  return names;
}

bool is_zoo_name(std::string_view name) { return find_row(name) != nullptr; }

Result<ModelSpec> zoo_model(std::string_view name) {
  if (const ZooRow* row = find_row(name)) {
    ModelSpec spec = spec_from_row(*row);
    ZS_CHECK_MSG(validate(spec).is_ok(), spec.name.c_str());
    return spec;
  }
  std::vector<std::string> candidates = zoo_names();
  for (const Alias& a : kAliases) candidates.emplace_back(a.alias);
  std::string msg = "unknown model \"" + std::string(name) + "\"; the zoo has " +
                    join(zoo_names(), ", ") + " (or pass the path of a Hugging Face config.json)";
  if (auto m = closest_match(to_lower(name), candidates)) {
    msg += "; did you mean \"" + *m + "\"?";
  }
  return Status::not_found(msg);
}

}  // namespace zs::models
