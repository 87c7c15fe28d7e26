#include "models/eager_dispatch.h"

#include <string>
#include <string_view>

#include "common/check.h"
#include "models/eager_dispatch_table.h"

namespace zs::models {
namespace {

using eager_table::Entry;
using eager_table::kSeq2SeqTable;
using eager_table::kTable;

const Entry& find(std::string_view variant, std::string_view op) {
  for (const Entry& e : kTable) {
    if (e.variant == variant && e.op == op) return e;
  }
  for (const Entry& e : kSeq2SeqTable) {
    if (e.variant == variant && e.op == op) return e;
  }
  ZS_CHECK_MSG(false, "no eager dispatch entry");
  return kTable[0];
}

// The table's name for a model op: its name without the layer ("layers.3.attn.core" ->
// "attn.core"); the residual adds share one entry, half each.
std::string_view op_key(const Op& op) {
  std::string_view n = op.name;
  if (n.substr(0, 7) == "layers.") {
    n.remove_prefix(n.find('.', 7) + 1);
  }
  if (n == "attn.residual" || n == "cross.residual" || n == "mlp.residual") return "residual";
  return n;
}

// An op of a BART, Blenderbot or T5 decoder layer: its entry is "dec." + its name.
bool seq2seq_decoder_op(const Op& op, const ModelSpec& spec) {
  return (spec.model_type == ModelType::kBart || spec.model_type == ModelType::kBlenderbot ||
          spec.model_type == ModelType::kT5) &&
         op.layer >= spec.num_layers && op.layer < total_layers(spec);
}

std::string_view variant_of(const ModelSpec& spec, const Workload& w, std::string_view key) {
  const bool sdpa = w.flash_attention;
  switch (spec.model_type) {
    case ModelType::kGpt2: {
      const bool dropout = spec.dropout.attn > 0 || spec.dropout.resid > 0 || spec.dropout.embd > 0;
      if (sdpa) return dropout ? "gpt2" : "gpt2_nodropout";
      return dropout ? "gpt2_eager" : "gpt2_eager_nodropout";
    }
    case ModelType::kLlama:
    case ModelType::kMistral:
      return sdpa ? "llama" : "llama_eager";
    case ModelType::kQwen2:
      // Qwen2's attention module is Llama's but for the q/k/v biases (their gradients are summed
      // in the projections' entries): its eager core is Llama's.
      return sdpa || key != "attn.core" ? "qwen2" : "llama_eager";
    case ModelType::kQwen3:
      // Qwen3's attention module is Llama's with q_norm and k_norm modules of their own: its
      // eager core is Llama's too.
      return sdpa || key != "attn.core" ? "qwen3" : "llama_eager";
    case ModelType::kMixtral:
      // Mixtral's attention module is Mistral's (Llama's): its eager core is Llama's.
      return sdpa || key != "attn.core" ? "mixtral" : "llama_eager";
    case ModelType::kQwen3Moe:
      // Qwen3-MoE's attention module is Qwen3's: its eager core is Llama's.
      return sdpa || key != "attn.core" ? "qwen3_moe" : "llama_eager";
    case ModelType::kQwen2Moe:
      // Qwen2-MoE's attention module is Qwen2's: its eager core is Llama's.
      return sdpa || key != "attn.core" ? "qwen2_moe" : "llama_eager";
    case ModelType::kPhi3:
      // Phi-3's attention slices its fused qkv and concatenates each head's rotated and passed
      // parts: a core of its own, two backward kernels longer when a part passes.
      if (spec.partial_rotary_factor < 1) return sdpa ? "phi3_partial" : "phi3_eager_partial";
      return sdpa ? "phi3" : "phi3_eager";
    case ModelType::kGemma:
      return sdpa ? "gemma" : "gemma_eager";
    case ModelType::kGemma2:
      return sdpa ? "gemma2" : "gemma2_eager";
    case ModelType::kGemma3Text:
      return sdpa ? "gemma3" : "gemma3_eager";
    case ModelType::kOpt:
      return sdpa ? "opt" : "opt_eager";
    case ModelType::kGptNeox:
      return sdpa ? "gpt_neox" : "gpt_neox_eager";
    case ModelType::kFalcon:
      // Falcon-7B's layout (one key and value head, one LayerNorm shared by the parallel
      // attention and MLP) or the new decoder architecture's (grouped keys and values broadcast to
      // every head, ln_attn and ln_mlp).
      if (spec.kv_copied_per_head) return sdpa ? "falcon_new" : "falcon_new_eager";
      return sdpa ? "falcon" : "falcon_eager";
    case ModelType::kBloom:
      // BLOOM has no SDPA path. Its attention's and MLP's entries hold the residual adds they make
      // (dropout_add); BloomBlock's own calls none.
      return "bloom_eager";
    case ModelType::kDeepseekV2:
    case ModelType::kDeepseekV3: {
      // A dense first layer's MLP is LlamaMLP's code. The query's projections are the same
      // modules in both versions: q_proj measured on V2 (V2-Lite's), q_a_proj, q_a_layernorm and
      // q_b_proj on V3. The cores differ (V2 rotates through complex numbers, V3 through
      // interleaved real pairs), and so do the routers (softmax; grouped sigmoid).
      if (key == "mlp.gate" || key == "mlp.up" || key == "mlp.act" || key == "mlp.down") {
        return "llama";
      }
      const bool v3 = key == "attn.q_a" || key == "attn.q_a_norm" || key == "attn.q_b" ||
                      (key != "attn.q_proj" && spec.model_type == ModelType::kDeepseekV3);
      if (v3) return sdpa ? "deepseek_v3" : "deepseek_v3_eager";
      return sdpa ? "deepseek_v2" : "deepseek_v2_eager";
    }
    case ModelType::kDebertaV2:
      // DebertaV2ForSequenceClassification, dropout 0.1; transformers gives it no SDPA path.
      return "deberta_eager";
    case ModelType::kBert:  // BertForMaskedLM, dropout 0.1 (BertConfig's and every checkpoint's)
      return sdpa ? "bert" : "bert_eager";
    case ModelType::kRoberta:
      // BERT's entries: RobertaLayer, RobertaSelfAttention and the rest are modeling_bert.py's
      // code under other names, and so are the heads (dense, gelu, LayerNorm, decoder). Not
      // counted: RobertaEmbeddings' position ids from the input ids (ne, cumsum, mul, add: a few
      // small integer kernels a step, forward only).
      return sdpa ? "bert" : "bert_eager";
    case ModelType::kBlenderbot:  // blenderbot-400M-distill's dropouts: 0.1, attention and MLP 0
      return sdpa ? "blenderbot" : "blenderbot_eager";
    case ModelType::kBart:  // BART's: 0.1 each
      return sdpa ? "bart" : "bart_eager";
    case ModelType::kT5:
      // Dropout 0.1 (every checkpoint's). The gated variant measured with gelu_new (t5-v1_1's
      // and flan-t5's); ReLU with its own. Under SDPA the position bias goes in as a mask that
      // takes a gradient: CUDA's memory-efficient kernel (scripts/record_host_ops.py:
      // trainable_mask_as_cuda).
      if (spec.mlp == MlpKind::kSwiGlu) return sdpa ? "t5_gated" : "t5_gated_eager";
      return sdpa ? "t5" : "t5_eager";
  }
  return "gpt2";
}

}  // namespace

// BERT's question-answering and classification heads were not measured: their Linears (head:
// qa_outputs or classifier; pooler) take the masked-LM head's dense layer's entry, the pooler's
// tanh its GELU's.
std::string_view bert_key(std::string_view key) {
  if (key == "head" || key == "pooler") return "head.dense";
  if (key == "pooler.act") return "head.act";
  return key;
}

// What a T5 stack's first block does beyond the others (compute_bias; the decoder's first
// cross-attention's zero bias): the entry added to the core `key` of layer `layer`, or "".
std::string_view t5_first_block(std::string_view key, int layer, const ModelSpec& spec) {
  if (spec.model_type != ModelType::kT5) return "";
  if (layer == 0 && key == "attn.core") return "attn.bias";
  if (layer != spec.num_layers) return "";
  if (key == "dec.attn.core") return "dec.attn.bias";
  if (key == "dec.cross.core") return "dec.cross.bias";
  return "";
}

EagerDispatch eager_dispatch(const Op& op, const ModelSpec& spec, const Workload& w) {
  std::string_view key = op_key(op);
  if (spec.model_type == ModelType::kBert || spec.model_type == ModelType::kRoberta) {
    key = bert_key(key);
  }
  std::string decoder_key;
  if (seq2seq_decoder_op(op, spec)) {
    decoder_key = "dec." + std::string(key);
    key = decoder_key;
  }
  EagerDispatch d;
  // Inside the attention module's entry (DeBERTa's c2p and p2c too); Mixtral's router linear
  // inside mlp.route's (the router module's calls).
  if (key == "attn.rotary" || key == "mlp.router" || key == "attn.c2p" || key == "attn.p2c") {
    return d;
  }
  const Entry& e = find(variant_of(spec, w, key), key);
  d.fwd = {e.fwd.kernels, e.fwd.other, e.modules, e.fwd.syncs};
  d.bwd = {e.bwd.kernels, e.bwd.other, 0, e.bwd.syncs};
  if (const std::string_view first = t5_first_block(key, op.layer, spec); !first.empty()) {
    const Entry& f = find(variant_of(spec, w, first), first);
    d.fwd = {d.fwd.kernels + f.fwd.kernels, d.fwd.other + f.fwd.other, d.fwd.modules + f.modules,
             d.fwd.syncs + f.fwd.syncs};
    d.bwd = {d.bwd.kernels + f.bwd.kernels, d.bwd.other + f.bwd.other, 0,
             d.bwd.syncs + f.bwd.syncs};
  }
  if (key == "residual" || key == "dec.residual") {
    // A layer's own calls, shared by its residual ops (two; three in a BART, Blenderbot or T5
    // decoder layer): the attention's takes what does not divide evenly, so that they sum to
    // the layer's.
    const int n = key == "dec.residual" ? 3 : 2;
    const bool first = op.name.find("attn.residual") != std::string::npos;
    auto share = [n, first](int v) { return v / n + (first ? v % n : 0); };
    d.fwd = {share(e.fwd.kernels), share(e.fwd.other), share(e.modules), share(e.fwd.syncs)};
    d.bwd = {share(e.bwd.kernels), share(e.bwd.other), 0, share(e.bwd.syncs)};
  }
  return d;
}

}  // namespace zs::models
