#!/usr/bin/env python3
"""What Hugging Face's eager modules ask of the host: ATen calls and module calls per model op.

A training step's host time is mostly the dispatcher calls it makes: every ATen operator call
that reaches the dispatcher below autograd, forward and backward (the autograd engine's own),
whether it launches a kernel or only makes a view, plus the Python of each nn.Module call around
them. This script counts them on the real modules (transformers' GPT-2, Llama, Qwen2, Qwen3,
Mixtral, Qwen3-MoE, Qwen2-MoE and Phi-3 causal LMs in bf16, training mode, SDPA attention, the loss from labels), with the classification of
scripts/record_host_ops.py (kernel, view, alloc, copy, scalar_read, ...), and charges them to
zerosim's model ops (models/op_graph.h):

  forward   each call goes to the innermost module running it (module pre/post hooks): a norm
            module to its norm op, a Linear/Conv1D to its linear op, the attention module's own
            calls (head split and merge, rotary, the SDPA core) to attn.core, the MLP's own calls
            and its activation module to mlp.act, the decoder layer's own calls (the residual
            adds) half to attn.residual and half to mlp.residual, the base model's own calls
            (position ids, masks, the rotary table, embedding dropout) and the embeddings to
            embed, the causal LM's own calls (the loss) to loss;
  backward  per layer, the whole model's count (loss.backward() on 1 and 2 layers, the
            difference) is shared among the layer's ops in the proportions each part's backward
            has alone (torch.autograd.grad of the part's output), the residual ops taking what
            the parts leave (the adds of the two gradient streams); the embedding, final norm,
            LM head and loss alike for the calls outside the layers.

Per model op and pass it prints the ATen calls by class and the module calls (forward only).
The counts do not depend on the shapes (the script checks that two shapes agree) but for a
micro-batch of 1, which PyTorch and HF special-case: it saves an expand or two in the embedding,
the loss and eager attention (1-3 calls a micro-step of about 100 per layer); the table is for
micro-batches of 2 and more. They are the same on
the CPU and CUDA for the same code path: F.dropout is sent down native_dropout (one op on CUDA)
and SDPA's dropout to its fused kernel, as scripts/record_host_ops.py does.

Run with the oracle's Python (torch, transformers):
  python scripts/measure_eager_dispatch.py > results/measurements/2026-11-28-eager-dispatch.json
  python scripts/measure_eager_dispatch.py --cxx    # kTable in models/eager_dispatch_table.h
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_host_ops as rho  # noqa: E402  (op_class, install_dropout_cuda_path)

import torch  # noqa: E402
import transformers  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

CLASSES = ("kernel", "view", "alloc", "copy", "scalar_read", "other")


def klass(func):
    c = rho.op_class(func)
    return c if c in CLASSES else "other"


class Counter(TorchDispatchMode):
    """Counts every dispatcher call by class, charged to `owner()` at the time of the call."""

    def __init__(self, owner):
        super().__init__()
        self.owner = owner
        self.counts = collections.defaultdict(collections.Counter)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[self.owner()][klass(func)] += 1
        return func(*args, **(kwargs or {}))


FAMILY_CONFIGS = {
    "gpt2": dict(rho.FAMILIES["gpt2"]),
    "llama": dict(rho.FAMILIES["llama"]),
    "qwen2": dict(rho.FAMILIES["qwen2"]),
    # Qwen3: Llama's layout with q_norm and k_norm over each head (untied, no biases)
    "qwen3": {"model_type": "qwen3", "num_hidden_layers": 2, "hidden_size": 128, "intermediate_size": 344,
              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32, "vocab_size": 1024,
              "max_position_embeddings": 128, "tie_word_embeddings": False},
    # Mixtral: Mistral's attention and a sparse MoE block (4 experts, 2 per token; transformers 5's
    # default grouped_mm experts, whose calls do not depend on the routing)
    "mixtral": {"model_type": "mixtral", "num_hidden_layers": 2, "hidden_size": 128, "intermediate_size": 344,
                "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1024,
                "max_position_embeddings": 128, "num_local_experts": 4, "num_experts_per_tok": 2,
                "tie_word_embeddings": False},
    # Qwen3-MoE: Qwen3's attention (q/k norms) and a sparse MoE block (4 experts, 2 per token,
    # norm_topk_prob as Qwen3-30B-A3B sets it; the experts moe_intermediate_size wide)
    "qwen3_moe": {"model_type": "qwen3_moe", "num_hidden_layers": 2, "hidden_size": 128,
                  "moe_intermediate_size": 344, "num_attention_heads": 4, "num_key_value_heads": 2,
                  "head_dim": 32, "vocab_size": 1024, "max_position_embeddings": 128,
                  "num_experts": 4, "num_experts_per_tok": 2, "norm_topk_prob": True,
                  "tie_word_embeddings": False},
    # Qwen2-MoE (Qwen1.5-MoE-A2.7B's family): Qwen2's attention (q/k/v biases) and a sparse MoE
    # block with a shared expert gated by a sigmoid (4 experts, 2 per token, norm_topk_prob false
    # as Qwen1.5-MoE-A2.7B sets it)
    "qwen2_moe": {"model_type": "qwen2_moe", "num_hidden_layers": 2, "hidden_size": 128,
                  "moe_intermediate_size": 344, "shared_expert_intermediate_size": 344,
                  "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1024,
                  "max_position_embeddings": 128, "num_experts": 4, "num_experts_per_tok": 2,
                  "norm_topk_prob": False, "tie_word_embeddings": False},
    # Phi-3 (Phi-3-mini's and Phi-4's family): one qkv_proj and one gate_up_proj, a resid dropout
    # module after attention and after the MLP (p = 0 as every Phi-3 and Phi-4 checkpoint sets
    # it), no pad row (Phi3Config's pad_token_id 32000 is outside this vocabulary)
    "phi3": {"model_type": "phi3", "num_hidden_layers": 2, "hidden_size": 128, "intermediate_size": 344,
             "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1024,
             "max_position_embeddings": 128, "pad_token_id": None, "tie_word_embeddings": False},
    # The Gemma families: a scaled embedding, (1 + w) norms, gelu_pytorch_tanh gating, head_dim
    # apart from hidden / heads, tied embeddings; Gemma 2 and 3 four norms a layer, Gemma 2 its
    # attention (50) and logits (30) soft-capped, Gemma 3 q/k norms. The base model builds a
    # sliding-window mask only for sequences longer than the window: Gemma 2's window (4096) is
    # as long as the sequences it is trained on, Gemma 3's (512, 1024) shorter, and so here.
    "gemma": {"model_type": "gemma", "num_hidden_layers": 2, "hidden_size": 128, "intermediate_size": 344,
              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32, "vocab_size": 1024,
              "max_position_embeddings": 128, "pad_token_id": None},
    "gemma2": {"model_type": "gemma2", "num_hidden_layers": 2, "hidden_size": 128, "intermediate_size": 344,
               "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32, "vocab_size": 1024,
               "max_position_embeddings": 128, "pad_token_id": None, "query_pre_attn_scalar": 32,
               "sliding_window": 128},
    "gemma3_text": {"model_type": "gemma3_text", "num_hidden_layers": 2, "hidden_size": 128,
                    "intermediate_size": 344, "num_attention_heads": 4, "num_key_value_heads": 2,
                    "head_dim": 32, "vocab_size": 1024, "max_position_embeddings": 128,
                    "pad_token_id": None, "query_pre_attn_scalar": 32, "sliding_window": 32},
    # OPT (DeepSpeed-Chat's family): learned positions offset by 2, pre-LayerNorm layers, ReLU
    # fc1/fc2, biases everywhere, dropout 0.1 after the attention and after fc2, tied head
    "opt": {"model_type": "opt", "num_hidden_layers": 2, "hidden_size": 128, "ffn_dim": 344,
            "num_attention_heads": 4, "vocab_size": 1024, "max_position_embeddings": 128,
            "word_embed_proj_dim": 128, "pad_token_id": None},
    # GPT-NeoX (Pythia): one query_key_value with biases, a quarter of each head rotated,
    # LayerNorm, GELU, the attention and MLP in parallel, dropout modules with p = 0
    # DeepSeek-V2 (V2-Lite's attention: q_proj) and DeepSeek-V3 (q_a_proj, q_a_layernorm, q_b_proj;
    # sigmoid routing over 2 groups): multi-head latent attention (kv_a_proj_with_mqa,
    # kv_a_layernorm, kv_b_proj), a MoE block of 4 routed experts (2 per token) and shared experts
    # in every layer (first_k_dense_replace 0: a dense first layer's MLP is LlamaMLP's code, the
    # llama entries). v_head_dim equals the query/key head dim (32 + 16): the CPU's flash kernel
    # takes only equal dims and SDPA falls back to its math path otherwise, where CUDA's
    # memory-efficient and cuDNN kernels take DeepSeek's unequal ones; the calls do not depend on
    # the dims.
    "deepseek_v2": {"model_type": "deepseek_v2", "num_hidden_layers": 2, "hidden_size": 128,
                    "intermediate_size": 256, "moe_intermediate_size": 96, "kv_lora_rank": 32,
                    "q_lora_rank": None, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 48,
                    "num_attention_heads": 4, "num_key_value_heads": 4, "n_routed_experts": 4,
                    "n_shared_experts": 2, "num_experts_per_tok": 2, "first_k_dense_replace": 0,
                    "vocab_size": 1024, "max_position_embeddings": 128, "tie_word_embeddings": False},
    "deepseek_v3": {"model_type": "deepseek_v3", "num_hidden_layers": 2, "hidden_size": 128,
                    "intermediate_size": 256, "moe_intermediate_size": 96, "kv_lora_rank": 32,
                    "q_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 48,
                    "num_attention_heads": 4, "num_key_value_heads": 4, "n_routed_experts": 4,
                    "n_shared_experts": 1, "num_experts_per_tok": 2, "n_group": 2, "topk_group": 1,
                    "first_k_dense_replace": 0, "vocab_size": 1024, "max_position_embeddings": 128,
                    "tie_word_embeddings": False},
    "gpt_neox": {"model_type": "gpt_neox", "num_hidden_layers": 2, "hidden_size": 128,
                 "intermediate_size": 344, "num_attention_heads": 4, "vocab_size": 1024,
                 "max_position_embeddings": 128, "rotary_pct": 0.25, "tie_word_embeddings": False},
    # BLOOM: word_embeddings_layernorm, LayerNorm, one query_key_value split per head, ALiBi added
    # to the scores (baddbmm) and an fp32 softmax, BloomGelu (a tanh GELU as an autograd
    # Function), dense_4h_to_h 4h wide; the residual adds inside the attention and the MLP
    # (dropout_add, hidden_dropout 0 as every BLOOM checkpoint sets it); no SDPA path
    "bloom": dict(rho.FAMILIES["bloom"]),
    # Falcon-7B's layout: one query_key_value of the query heads and one shared key and value
    # head (multi_query), rotary, the attention and MLP in parallel after one shared LayerNorm,
    # bias-free FalconLinears, GELU, dropout 0
    "falcon": dict(rho.FAMILIES["falcon"]),
    # Falcon-40B/180B's new decoder architecture: num_kv_heads groups (2 here), their keys and
    # values broadcast to every query head, ln_attn and ln_mlp
    "falcon_new": dict(rho.FAMILIES["falcon_new"]),
    # DeBERTa-v2 (DebertaV2ForSequenceClassification, deberta-v2-xlarge-mnli's layout): no position
    # table, the relative table normalized once a step, query_proj/key_proj applied again to it
    # (c2p, p2c), an eager core, the ConvLayer after layer 0, ContextPooler (GELU), 3 labels;
    # dropout 0.1 (hidden and attention probabilities), the pooler's 0
    "deberta": {"model_type": "deberta-v2", "num_hidden_layers": 2, "hidden_size": 128, "intermediate_size": 344,
                "num_attention_heads": 4, "vocab_size": 1024, "max_position_embeddings": 128,
                "relative_attention": True, "position_buckets": 32, "max_relative_positions": -1,
                "norm_rel_ebd": "layer_norm", "share_att_key": True, "pos_att_type": ["p2c", "c2p"],
                "position_biased_input": False, "conv_kernel_size": 3, "conv_act": "gelu", "type_vocab_size": 0,
                "pooler_hidden_size": 128, "pooler_hidden_act": "gelu", "pooler_dropout": 0, "num_labels": 3,
                "pad_token_id": 0},
    # BERT (BertForMaskedLM): word + token-type + position tables, LayerNorm and dropout, post-LN
    # layers with biases everywhere, GELU, dropout 0.1 (hidden and attention probabilities), the
    # masked-LM head (dense, GELU, LayerNorm, the decoder tied to the word table), no pad row
    "bert": {"model_type": "bert", "num_hidden_layers": 2, "hidden_size": 128, "intermediate_size": 344,
             "num_attention_heads": 4, "vocab_size": 1024, "max_position_embeddings": 128,
             "pad_token_id": None},
}
MOE = ("mixtral", "qwen3_moe", "qwen2_moe")
FALCON = ("falcon", "falcon_new")
DEEPSEEK = ("deepseek_v2", "deepseek_v3")
GEMMA = ("gemma", "gemma2", "gemma3_text")
SANDWICH = ("gemma2", "gemma3_text")  # a norm on each sublayer's output too
# The variants measured: (name, family, attention implementation, GPT-2's dropout). GPT-2 comes
# with dropout 0.1 on embeddings, residuals and attention probabilities (transformers' default);
# Llama and Qwen2 have none. "eager" is the attention of HF before SDPA (2021-2023 runs).
VARIANTS = (
    ("gpt2", "gpt2", "sdpa", 0.1),
    ("gpt2_nodropout", "gpt2", "sdpa", 0.0),
    ("gpt2_eager", "gpt2", "eager", 0.1),
    ("gpt2_eager_nodropout", "gpt2", "eager", 0.0),
    ("llama", "llama", "sdpa", 0.0),
    ("llama_eager", "llama", "eager", 0.0),
    ("qwen2", "qwen2", "sdpa", 0.0),
    ("qwen3", "qwen3", "sdpa", 0.0),
    ("mixtral", "mixtral", "sdpa", 0.0),
    ("qwen3_moe", "qwen3_moe", "sdpa", 0.0),
    ("qwen2_moe", "qwen2_moe", "sdpa", 0.0),
    ("phi3", "phi3", "sdpa", 0.0),
    ("phi3_partial", "phi3", "sdpa", 0.0),
    ("phi3_eager", "phi3", "eager", 0.0),
    ("phi3_eager_partial", "phi3", "eager", 0.0),
    ("gemma", "gemma", "sdpa", 0.0),
    ("gemma_eager", "gemma", "eager", 0.0),
    ("gemma2", "gemma2", "sdpa", 0.0),
    ("gemma2_eager", "gemma2", "eager", 0.0),
    ("gemma3", "gemma3_text", "sdpa", 0.0),
    ("gemma3_eager", "gemma3_text", "eager", 0.0),
    ("opt", "opt", "sdpa", 0.1),
    ("opt_eager", "opt", "eager", 0.1),
    ("gpt_neox", "gpt_neox", "sdpa", 0.0),
    ("gpt_neox_eager", "gpt_neox", "eager", 0.0),
    ("bloom_eager", "bloom", "eager", 0.0),
    ("falcon", "falcon", "sdpa", 0.0),
    ("falcon_eager", "falcon", "eager", 0.0),
    ("falcon_new", "falcon_new", "sdpa", 0.0),
    ("falcon_new_eager", "falcon_new", "eager", 0.0),
    ("deepseek_v2", "deepseek_v2", "sdpa", 0.0),
    ("deepseek_v2_eager", "deepseek_v2", "eager", 0.0),
    ("deepseek_v3", "deepseek_v3", "sdpa", 0.0),
    ("deepseek_v3_eager", "deepseek_v3", "eager", 0.0),
    ("deberta_eager", "deberta", "eager", 0.1),
    ("bert", "bert", "sdpa", 0.1),
    ("bert_eager", "bert", "eager", 0.1),
)
# Config keys a variant sets over its family's: Phi-4-mini's partial rotary embedding (rotating
# 3/4 of each head costs two backward kernels more per layer than rotating all of it).
VARIANT_CONFIGS = {
    "phi3_partial": {"partial_rotary_factor": 0.75},
    "phi3_eager_partial": {"partial_rotary_factor": 0.75},
}


def build(family, layers, shapes, attn, dropout, extra=None):
    cfg = dict(FAMILY_CONFIGS[family])
    cfg.update(extra or {})
    if family == "gpt2":
        cfg.update(n_layer=layers, n_embd=shapes["h"], n_head=shapes["heads"],
                   n_positions=max(128, shapes["s"]), resid_pdrop=dropout, embd_pdrop=dropout,
                   attn_pdrop=dropout)
    elif family == "opt":
        cfg.update(num_hidden_layers=layers, hidden_size=shapes["h"], word_embed_proj_dim=shapes["h"],
                   num_attention_heads=shapes["heads"], ffn_dim=shapes["ffn"],
                   max_position_embeddings=max(128, shapes["s"]), dropout=dropout)
    elif family == "deberta":
        cfg.update(num_hidden_layers=layers, hidden_size=shapes["h"], pooler_hidden_size=shapes["h"],
                   num_attention_heads=shapes["heads"], intermediate_size=shapes["ffn"],
                   max_position_embeddings=max(128, shapes["s"]), hidden_dropout_prob=dropout,
                   attention_probs_dropout_prob=dropout)
    elif family == "bert":
        cfg.update(num_hidden_layers=layers, hidden_size=shapes["h"], num_attention_heads=shapes["heads"],
                   intermediate_size=shapes["ffn"], max_position_embeddings=max(128, shapes["s"]),
                   hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout)
    elif family == "bloom":
        cfg.update(n_layer=layers, hidden_size=shapes["h"], n_head=shapes["heads"])
    elif family in DEEPSEEK:
        cfg.update(num_hidden_layers=layers, hidden_size=shapes["h"], num_attention_heads=shapes["heads"],
                   num_key_value_heads=shapes["heads"])
    elif family in FALCON:
        cfg.update(num_hidden_layers=layers, hidden_size=shapes["h"], num_attention_heads=shapes["heads"],
                   ffn_hidden_size=shapes["ffn"], max_position_embeddings=max(128, shapes["s"]))
        if family == "falcon_new":
            cfg.update(num_kv_heads=max(1, shapes["heads"] // 2))
    else:
        cfg.update(num_hidden_layers=layers, hidden_size=shapes["h"],
                   num_attention_heads=shapes["heads"],
                   num_key_value_heads=max(1, shapes["heads"] // 2),
                   intermediate_size=shapes["ffn"], max_position_embeddings=max(128, shapes["s"]))
        if family in ("qwen3_moe", "qwen2_moe"):
            cfg.update(moe_intermediate_size=shapes["ffn"])
        if family == "qwen2_moe":
            cfg.update(shared_expert_intermediate_size=shapes["ffn"])
        if family in ("qwen3", "qwen3_moe") + GEMMA:
            cfg.update(head_dim=shapes["h"] // shapes["heads"])
        if family in SANDWICH:
            # Every layer a full-attention one, so that layers are alike: under SDPA a sliding
            # layer gets an explicit mask where a full one runs is_causal (11 calls more per
            # layer on the CPU), which FlashAttention-2's window argument does not need.
            cfg.update(layer_types=["full_attention"] * layers)
    config = transformers.AutoConfig.for_model(**cfg)
    config._attn_implementation = attn
    torch.manual_seed(0)
    if family in ("bert", "deberta"):
        cls = transformers.BertForMaskedLM if family == "bert" else transformers.DebertaV2ForSequenceClassification
        model = cls._from_config(config)
    else:
        model = transformers.AutoModelForCausalLM.from_config(config)
    model = model.to(torch.bfloat16).train()
    return model


def role(module, family):
    """The model op a module's own calls go to, or None to look further out."""
    name = type(module).__name__
    if family == "bert":
        return bert_role(name)
    if family == "deberta":
        return deberta_role(name)
    if name in ("LayerNorm", "GPT2RMSNorm", "LlamaRMSNorm", "Qwen2RMSNorm", "Qwen3RMSNorm",
                "MixtralRMSNorm", "Qwen3MoeRMSNorm", "Qwen2MoeRMSNorm", "Phi3RMSNorm",
                "GemmaRMSNorm", "Gemma2RMSNorm", "Gemma3RMSNorm", "DeepseekV2RMSNorm",
                "DeepseekV3RMSNorm"):
        return "norm"
    if name in ("Linear", "Conv1D", "FalconLinear"):
        return "linear"
    # Mixtral's MoE block: the router's calls (its linear too) go to mlp.route; the block's own,
    # the experts' and their act_fn's to mlp.experts. Qwen2-MoE's block's own calls (the
    # reshapes, the shared expert's sigmoid gate, the product and the sum) go to mlp.combine.
    if name.endswith(("TopKRouter", "TopkRouter")):
        return "router"
    # Qwen2-MoE's and DeepSeek's MoE blocks' own calls: the shared expert's (gated) sum
    if (name.endswith("SparseMoeBlock") and family == "qwen2_moe") or name in ("DeepseekV2Moe", "DeepseekV3MoE"):
        return "combine"
    if name.endswith("SparseMoeBlock") or name.endswith("Experts"):
        return "experts"
    if name.endswith("Attention"):
        return "core"
    if name.endswith("MLP") or "Activation" in name or name in ("SiLU", "SiLUActivation",
                                                                "GELUActivation", "GELUTanh", "ReLU",
                                                                "BloomGelu"):
        return "act"
    if name.endswith("Block") or name.endswith("DecoderLayer") or name == "GPTNeoXLayer":
        return "residual"
    if name in ("Embedding", "OPTLearnedPositionalEmbedding") or name.endswith("ScaledWordEmbedding"):
        return "embed"
    if name.endswith("RotaryEmbedding") or name in ("GPT2Model", "LlamaModel", "Qwen2Model",
                                                    "Qwen3Model", "MixtralModel", "Qwen3MoeModel",
                                                    "Qwen2MoeModel", "Phi3Model", "GemmaModel",
                                                    "Gemma2Model", "Gemma3TextModel", "OPTDecoder",
                                                    "OPTModel", "GPTNeoXModel", "BloomModel",
                                                    "FalconModel", "DeepseekV2Model", "DeepseekV3Model"):
        return "embed"
    if name.endswith("ForCausalLM") or name.endswith("LMHeadModel"):
        return "loss"
    if name == "Dropout":
        return None  # charged to the module that holds it
    return None


def bert_role(name):
    """BERT's modules: BertSelfOutput and BertOutput drop out their dense layer's output and add
    the residual (the layer's residual ops); BertIntermediate's own calls none but its GELU's;
    the embeddings' own calls (the sums, the token-type gather) and the base model's (the mask)
    to embed; the masked-LM head's containers have none of their own."""
    if name == "LayerNorm":
        return "norm"
    if name == "Linear":
        return "linear"
    if name in ("BertSelfAttention", "BertAttention"):
        return "core"
    if name in ("BertIntermediate", "GELUActivation"):
        return "act"
    if name in ("BertSelfOutput", "BertOutput", "BertLayer"):
        return "residual"
    if name in ("BertEmbeddings", "Embedding", "BertModel", "BertEncoder"):
        return "embed"
    if name in ("BertForMaskedLM", "BertOnlyMLMHead", "BertLMPredictionHead"):
        return "loss"
    if name == "BertPredictionHeadTransform":
        return "head"
    return None


def deberta_role(name):
    """DeBERTa-v2's modules, as BERT's (bert_role), and: the attention's own calls (the relative
    table's projections' reshapes and repeats, c2p, p2c, their gathers) to the core; ConvLayer's
    own (its permutes and copies, the mask, the add) to conv.residual, its Conv1d, LayerNorm and
    activation to conv, conv_norm, conv.act; the encoder's own (relative positions, the mask)
    to embed; ContextPooler's own and its GELU to pooler and pooler.act, the classifier to head;
    the model's own (dropout, the loss) to loss."""
    if name in ("DisentangledSelfAttention", "DebertaV2Attention"):
        return "core"
    if name == "ConvLayer":
        return "conv"
    if name == "Conv1d":
        return "linear"
    if name in ("DebertaV2Intermediate",):
        return "act"
    if name in ("DebertaV2SelfOutput", "DebertaV2Output", "DebertaV2Layer"):
        return "residual"
    if name in ("DebertaV2Embeddings", "Embedding", "DebertaV2Model", "DebertaV2Encoder"):
        return "embed"
    if name == "ContextPooler":
        return "pooler"
    if name == "DebertaV2ForSequenceClassification":
        return "loss"
    if name == "LayerNorm":
        return "norm"
    if name == "Linear":
        return "linear"
    if name == "GELUActivation":
        return "act"
    return None


def deberta_op_name(role_, name, layer):
    """DeBERTa's model ops (models/op_graph.cc): the projections of the relative table (a second
    call of query_proj or key_proj, marked '#pos' by forward_counts), the ConvLayer's ops, the
    relative table's norm, the pooler and the head."""
    if name.startswith("deberta.encoder.conv"):
        if role_ == "linear":
            return "layers.0.conv"
        if role_ == "norm":
            return "layers.0.conv_norm"
        if role_ == "act":
            return "layers.0.conv.act"
        return "layers.0.conv.residual"
    if name.startswith("pooler"):
        return "pooler.act" if role_ == "act" else "pooler"
    if name == "classifier":
        return "head"
    if role_ == "norm" and name == "deberta.encoder.LayerNorm":
        return "rel_norm"
    if role_ == "norm" and name == "deberta.embeddings.LayerNorm":
        return "embed_norm"
    if role_ == "linear":
        leaf = name.split(f".layer.{layer}.", 1)[1]
        if leaf.endswith("#pos"):
            return f"layers.{layer}." + {"attention.self.query_proj#pos": "attn.pos_q",
                                          "attention.self.key_proj#pos": "attn.pos_k"}[leaf]
        return f"layers.{layer}." + {"attention.self.query_proj": "attn.q_proj",
                                      "attention.self.key_proj": "attn.k_proj",
                                      "attention.self.value_proj": "attn.v_proj",
                                      "attention.output.dense": "attn.out_proj",
                                      "intermediate.dense": "mlp.up", "output.dense": "mlp.down"}[leaf]
    if role_ == "norm":
        return f"layers.{layer}." + ("attn_norm" if ".attention." in name else "mlp_norm")
    return None


def forward_counts(model, family, ids):
    """Forward: calls per model op (aggregated by role and layer), and module calls."""
    stack = []  # (module, role, qualified name)
    names = {m: n for n, m in model.named_modules()}

    def owner():
        for m, r, n in reversed(stack):
            if r is not None:
                return (r, n)
        return ("loss", "")

    module_calls = collections.Counter()
    calls_of = collections.Counter()

    def pre(m, args):
        r = role(m, family)
        name = names.get(m, "")
        # DeBERTa's query_proj and key_proj called a second time, on the relative table
        if family == "deberta" and name.endswith(("query_proj", "key_proj")):
            calls_of[name] += 1
            if calls_of[name] % 2 == 0:
                name += "#pos"
        # an activation made on the fly (ACT2FN[...] in ConvLayer, ContextPooler): its caller's
        if not name and stack:
            name = stack[-1][2] + ".act_fn"
        stack.append((m, r, name))
        module_calls[owner_of_call(m, r, name)] += 1

    def owner_of_call(m, r, name):
        if r is not None:
            return (r, name)
        for mm, rr, n in reversed(stack[:-1]):
            if rr is not None:
                return (rr, n)
        return ("loss", "")

    def post(m, args, out):
        stack.pop()

    h1 = torch.nn.modules.module.register_module_forward_pre_hook(pre)
    h2 = torch.nn.modules.module.register_module_forward_hook(post)
    counter = Counter(owner)
    try:
        with counter:
            if family == "bert":
                out = model(input_ids=ids, labels=ids)
            elif family == "deberta":
                out = model(input_ids=ids, labels=torch.zeros(ids.shape[0], dtype=torch.long))
            else:
                out = model(input_ids=ids, labels=ids, use_cache=False)
    finally:
        h1.remove()
        h2.remove()
    return out.loss, counter.counts, module_calls


def backward_total(loss):
    counter = Counter(lambda: ("all", ""))
    with counter:
        loss.backward()
    return counter.counts[("all", "")]


def part_backward(fn, x, params):
    counter = Counter(lambda: ("all", ""))
    out = fn(x)
    if isinstance(out, tuple):
        out = out[0]
    with counter:
        torch.autograd.grad(out, [x] + [p for p in params if p.requires_grad],
                            torch.ones_like(out))
    return collections.Counter(counter.counts[("all", "")])


def layer_of(name):
    for key in (".h.", ".layers.", ".layer."):
        if key in name:
            rest = name.split(key, 1)[1]
            return int(rest.split(".", 1)[0])
    return None


def bert_op_name(role_, name, layer):
    """BERT's own model ops (models/op_graph.h: the projections, embed_norm, the layers' norms after
    the adds, head.*); None for the ops every family names alike."""
    if role_ == "linear":
        if name.startswith("cls."):
            return "lm_head" if name.endswith("decoder") else "head.dense"
        leaf = {"attention.self.query": "attn.q_proj", "attention.self.key": "attn.k_proj",
                "attention.self.value": "attn.v_proj", "attention.output.dense": "attn.out_proj",
                "intermediate.dense": "mlp.up", "output.dense": "mlp.down"}
        return f"layers.{layer}." + leaf[name.split(f".layer.{layer}.", 1)[1]]
    if role_ == "norm":
        if name.startswith("cls."):
            return "head.norm"
        if layer is None:
            return "embed_norm"
        return f"layers.{layer}." + ("attn_norm" if ".attention." in name else "mlp_norm")
    if role_ in ("act", "head") and name.startswith("cls."):
        return "head.act"
    return None  # the layers' core, act and residual: as every family's


def op_name(role_, name, family):
    """zerosim's model op name (models/op_graph.h) for a role and a module name."""
    layer = layer_of(name)
    if family == "bert" and (op := bert_op_name(role_, name, layer)) is not None:
        return op
    if family == "deberta" and (op := deberta_op_name(role_, name, layer)) is not None:
        return op
    if role_ == "linear":
        leaf = name.rsplit(".", 1)[-1]
        mapping = {"c_attn": "attn.qkv", "q_proj": "attn.q_proj", "k_proj": "attn.k_proj",
                   "v_proj": "attn.v_proj", "o_proj": "attn.out_proj", "c_fc": "mlp.up",
                   "up_proj": "mlp.up", "gate_proj": "mlp.gate", "down_proj": "mlp.down",
                   "qkv_proj": "attn.qkv", "gate_up_proj": "mlp.gate_up", "lm_head": "lm_head",
                   "out_proj": "attn.out_proj", "fc1": "mlp.up", "fc2": "mlp.down",
                   "query_key_value": "attn.qkv", "dense": "attn.out_proj",
                   "dense_h_to_4h": "mlp.up", "dense_4h_to_h": "mlp.down", "q_a_proj": "attn.q_a",
                   "q_b_proj": "attn.q_b", "kv_a_proj_with_mqa": "attn.kv_a", "kv_b_proj": "attn.kv_b"}
        if leaf == "c_proj":
            return f"layers.{layer}." + ("attn.out_proj" if ".attn." in name else "mlp.down")
        if leaf == "shared_expert_gate":  # Qwen2-MoE's shared expert's gate, a Linear h -> 1
            return f"layers.{layer}.mlp.shared_gate"
        if ".shared_expert." in name or ".shared_experts." in name:  # Qwen2-MoE's, DeepSeek's: MLPs
            return f"layers.{layer}.mlp.shared." + mapping[leaf].split(".")[1]
        return mapping[leaf] if layer is None else f"layers.{layer}." + mapping[leaf]
    if role_ == "norm":
        if name.endswith("word_embeddings_layernorm"):  # BLOOM's norm of the embeddings
            return "embed_norm"
        if layer is None:
            return "final_norm"
        if name.endswith((".q_norm", ".k_norm")):  # Qwen3's norms of each head's query and key
            return f"layers.{layer}.attn." + name.rsplit(".", 1)[-1]
        if name.endswith((".q_a_layernorm", ".kv_a_layernorm")):  # DeepSeek's latent norms
            return f"layers.{layer}.attn." + name.rsplit(".", 1)[-1].replace("layernorm", "norm")
        if family in SANDWICH and name.endswith(".post_attention_layernorm"):
            return f"layers.{layer}.attn.post_norm"
        if name.endswith(".post_feedforward_layernorm"):
            return f"layers.{layer}.mlp.post_norm"
        return f"layers.{layer}." + ("attn_norm" if name.endswith(("ln_1", "input_layernorm",
                                                                    "self_attn_layer_norm", "ln_attn"))
                                      else "mlp_norm")
    if role_ == "core":
        return f"layers.{layer}.attn.core"
    if role_ == "act" and ".experts." in name:  # Mixtral's experts' act_fn
        return f"layers.{layer}.mlp.experts"
    if role_ == "act" and ".shared_expert" in name:  # Qwen2-MoE's shared expert and its act_fn
        return f"layers.{layer}.mlp.shared.act"
    if role_ == "combine":
        return f"layers.{layer}.mlp.combine"
    if role_ == "act":
        return f"layers.{layer}.mlp.act"
    if role_ == "router":
        return f"layers.{layer}.mlp.route"
    if role_ == "experts":
        return f"layers.{layer}.mlp.experts"
    if role_ == "residual":
        return f"layers.{layer}.residual"
    return role_  # embed, loss


def kind_of(op):
    """The per-kind key the C++ table uses."""
    if op in ("embed", "loss", "final_norm", "lm_head", "embed_norm", "head.dense", "head.act",
              "head.norm", "rel_norm", "pooler", "pooler.act", "head"):
        return op
    return op.split(".", 2)[2]  # layers.N.x -> attn_norm, attn.qkv, attn.core, mlp.act, residual ...


def settle(parts, total, rest):
    """parts[rest] = what `total` leaves after the other parts, per class. A part alone may make a
    call or two the model does not (GPT-2's isolated layer parts: 33 kernels against 31 in the
    model): the excess comes off the part with the most of that class, so that every class's
    total stays exact."""
    parts[rest] = collections.Counter({c: total[c] - sum(p[c] for k, p in parts.items() if k != rest)
                                       for c in CLASSES})
    for c in CLASSES:
        while parts[rest][c] < 0:
            top = max((k for k in parts if k != rest), key=lambda k: (parts[k][c], k))
            parts[top][c] -= 1
            parts[rest][c] += 1


def measure(family, shapes, attn="sdpa", dropout=0.0, extra=None):
    ids = torch.randint(0, 1024, (shapes["b"], shapes["s"]), generator=torch.Generator().manual_seed(1))
    per_layers = {}
    for layers in (1, 2):
        model = build(family, layers, shapes, attn, dropout, extra)
        loss, fwd, mods = forward_counts(model, family, ids)
        bwd = backward_total(loss)
        per_layers[layers] = (model, fwd, mods, bwd)
    # Forward per model op (the 1-layer model; layer 0's ops are the per-layer ones).
    model, fwd, mods, bwd1 = per_layers[1]
    table = collections.defaultdict(lambda: {"fwd": collections.Counter(), "bwd": collections.Counter(),
                                             "modules": 0})
    for (r, name), c in fwd.items():
        table[kind_of(op_name(r, name, family))]["fwd"].update(c)
    for (r, name), n in mods.items():
        table[kind_of(op_name(r, name, family))]["modules"] += n
    # Check: the 2-layer model's forward is the 1-layer one plus one more layer's ops.
    _, fwd2, _, bwd2 = per_layers[2]
    layer_fwd = sum(sum(c.values()) for (r, n), c in fwd2.items() if layer_of(n) == 1)
    layer_fwd0 = sum(sum(c.values()) for (r, n), c in fwd.items() if layer_of(n) == 0)
    total_fwd1 = sum(sum(c.values()) for c in fwd.values())
    total_fwd2 = sum(sum(c.values()) for c in fwd2.values())
    if family == "deberta" and 0 < total_fwd2 - total_fwd1 - layer_fwd0 <= 2:
        # DeBERTa's attention makes a view or two more in a layer that is neither the first nor
        # the last (its input's and output's layouts): the table holds what one more layer
        # adds, the view(s) in the core's row.
        table["attn.core"]["fwd"]["view"] += total_fwd2 - total_fwd1 - layer_fwd0
        layer_fwd = layer_fwd0 = total_fwd2 - total_fwd1
    assert layer_fwd == layer_fwd0, (family, layer_fwd, layer_fwd0)
    if family == "opt":
        # OPTDecoder's loop draws torch.rand([]) and compares it with layerdrop before every
        # layer, layerdrop 0 or not (rand, lt, and the comparison's bool): calls of the decoder
        # that come once per layer, charged to the layer's residual. The tensor is on the CPU:
        # no kernel launch and no sync with the GPU, so they count as other calls.
        outside1 = collections.Counter()
        outside2 = collections.Counter()
        for (r, n), c in fwd.items():
            if layer_of(n) is None:
                outside1.update(c)
        for (r, n), c in fwd2.items():
            if layer_of(n) is None:
                outside2.update(c)
        per_layer_outside = outside2 - outside1
        table["residual"]["fwd"]["other"] += sum(per_layer_outside.values())
        table["embed"]["fwd"].subtract(per_layer_outside)
        layer_fwd0 += sum(per_layer_outside.values())
    assert total_fwd2 - total_fwd1 == layer_fwd0, (family, total_fwd1, total_fwd2, layer_fwd0)
    # Backward: per layer = the difference; the rest outside the layers.
    per_layer_bwd = {k: bwd2[k] - bwd1[k] for k in CLASSES}
    outside_bwd = {k: bwd1[k] - per_layer_bwd[k] for k in CLASSES}
    # Each part's own backward, alone, to share the counts out.
    layer = (model.transformer.h[0] if family == "gpt2" else
             model.deberta.encoder.layer[0] if family == "deberta" else
             model.bert.encoder.layer[0] if family == "bert" else
             model.model.decoder.layers[0] if family == "opt" else
             model.gpt_neox.layers[0] if family == "gpt_neox" else
             model.transformer.h[0] if family in ("bloom",) + FALCON else model.model.layers[0])
    x = torch.randn(shapes["b"], shapes["s"], shapes["h"], dtype=torch.bfloat16, requires_grad=True)
    parts = {}
    if family == "gpt2":
        parts["attn_norm"] = part_backward(layer.ln_1, x, list(layer.ln_1.parameters()))
        parts["mlp_norm"] = part_backward(layer.ln_2, x, list(layer.ln_2.parameters()))
        parts["attn.qkv"] = part_backward(layer.attn.c_attn, x, list(layer.attn.c_attn.parameters()))
        parts["attn.out_proj"] = part_backward(layer.attn.c_proj, x, list(layer.attn.c_proj.parameters()))
        parts["mlp.up"] = part_backward(layer.mlp.c_fc, x, list(layer.mlp.c_fc.parameters()))
        y = torch.randn(shapes["b"], shapes["s"], layer.mlp.c_proj.nf if hasattr(layer.mlp.c_proj, "nf") else shapes["h"],
                        dtype=torch.bfloat16, requires_grad=True)
        xi = torch.randn(shapes["b"], shapes["s"], layer.mlp.c_fc.nf, dtype=torch.bfloat16, requires_grad=True)
        parts["mlp.down"] = part_backward(layer.mlp.c_proj, xi, list(layer.mlp.c_proj.parameters()))
        attn_all = part_backward(lambda t: layer.attn(t)[0], x, list(layer.attn.parameters()))
        mlp_all = part_backward(layer.mlp, x, list(layer.mlp.parameters()))
        parts["attn.core"] = attn_all - parts["attn.qkv"] - parts["attn.out_proj"]
        parts["mlp.act"] = mlp_all - parts["mlp.up"] - parts["mlp.down"]
    elif family == "bert":
        # BertLayer: attention.self (query, key, value, the core), attention.output (dense,
        # dropout, the add, LayerNorm), intermediate (dense, GELU), output (dense, dropout, the
        # add, LayerNorm); the dropouts and adds are the residual ops' (what the parts leave).
        a, so = layer.attention.self, layer.attention.output
        parts["attn_norm"] = part_backward(so.LayerNorm, x, list(so.LayerNorm.parameters()))
        parts["mlp_norm"] = part_backward(layer.output.LayerNorm, x, list(layer.output.LayerNorm.parameters()))
        for n, op in (("query", "q_proj"), ("key", "k_proj"), ("value", "v_proj")):
            parts["attn." + op] = part_backward(getattr(a, n), x, list(getattr(a, n).parameters()))
        parts["attn.out_proj"] = part_backward(so.dense, x, list(so.dense.parameters()))
        up, down = layer.intermediate.dense, layer.output.dense
        parts["mlp.up"] = part_backward(up, x, list(up.parameters()))
        xi = torch.randn(shapes["b"], shapes["s"], down.in_features, dtype=torch.bfloat16, requires_grad=True)
        parts["mlp.down"] = part_backward(down, xi, list(down.parameters()))
        attn_all = part_backward(lambda t: a(t, attention_mask=None)[0], x, list(a.parameters()))
        parts["attn.core"] = attn_all - parts["attn.q_proj"] - parts["attn.k_proj"] - parts["attn.v_proj"]
        parts["mlp.act"] = part_backward(layer.intermediate, x, list(up.parameters())) - parts["mlp.up"]
    elif family == "opt":
        # OPTDecoderLayer holds its MLP's Linears and activation itself, and drops out the
        # attention's and fc2's outputs (its own calls, the residual's).
        a = layer.self_attn
        parts["attn_norm"] = part_backward(layer.self_attn_layer_norm, x,
                                           list(layer.self_attn_layer_norm.parameters()))
        parts["mlp_norm"] = part_backward(layer.final_layer_norm, x, list(layer.final_layer_norm.parameters()))
        for n in ("q_proj", "k_proj", "v_proj", "out_proj"):
            parts["attn." + n] = part_backward(getattr(a, n), x, list(getattr(a, n).parameters()))
        parts["mlp.up"] = part_backward(layer.fc1, x, list(layer.fc1.parameters()))
        xi = torch.randn(shapes["b"], shapes["s"], layer.fc2.in_features, dtype=torch.bfloat16,
                         requires_grad=True)
        parts["mlp.down"] = part_backward(layer.fc2, xi, list(layer.fc2.parameters()))
        attn_all = part_backward(lambda t: a(t, attention_mask=None)[0], x, list(a.parameters()))
        mlp_params = list(layer.fc1.parameters()) + list(layer.fc2.parameters())
        mlp_all = part_backward(lambda t: layer.fc2(layer.activation_fn(layer.fc1(t))), x, mlp_params)
        parts["attn.core"] = attn_all - sum((parts["attn." + n] for n in ("q_proj", "k_proj", "v_proj",
                                                                          "out_proj")), collections.Counter())
        parts["mlp.act"] = mlp_all - parts["mlp.up"] - parts["mlp.down"]
    elif family == "deberta":
        # DeBERTa's layer: the projections of the hidden states and, again, of the normalized
        # relative table (pos_q, pos_k: query_proj and key_proj on its 2 x buckets rows), the
        # attention's own calls (c2p, p2c, their gathers, the core) the rest of it.
        a, so, enc = layer.attention.self, layer.attention.output, model.deberta.encoder
        b_, s_ = shapes["b"], shapes["s"]
        parts["attn_norm"] = part_backward(so.LayerNorm, x, list(so.LayerNorm.parameters()))
        parts["mlp_norm"] = part_backward(layer.output.LayerNorm, x, list(layer.output.LayerNorm.parameters()))
        for n, op in (("query_proj", "attn.q_proj"), ("key_proj", "attn.k_proj"), ("value_proj", "attn.v_proj")):
            parts[op] = part_backward(getattr(a, n), x, list(getattr(a, n).parameters()))
        rel = enc.get_rel_embedding().detach().requires_grad_(True)
        for n, op in (("query_proj", "attn.pos_q"), ("key_proj", "attn.pos_k")):
            parts[op] = part_backward(getattr(a, n), rel, list(getattr(a, n).parameters()))
        parts["attn.out_proj"] = part_backward(so.dense, x, list(so.dense.parameters()))
        up, down = layer.intermediate.dense, layer.output.dense
        parts["mlp.up"] = part_backward(up, x, list(up.parameters()))
        xi = torch.randn(b_, s_, down.in_features, dtype=torch.bfloat16, requires_grad=True)
        parts["mlp.down"] = part_backward(down, xi, list(down.parameters()))
        mask = enc.get_attention_mask(torch.ones(b_, s_, dtype=torch.long))
        rp = enc.get_rel_pos(x.detach())
        attn_all = part_backward(lambda t: a(t, mask, relative_pos=rp, rel_embeddings=rel)[0], x,
                                 list(a.parameters()) + [rel])
        parts["attn.core"] = attn_all - sum((parts[n] for n in ("attn.q_proj", "attn.k_proj", "attn.v_proj",
                                                                 "attn.pos_q", "attn.pos_k")),
                                            collections.Counter())
        parts["mlp.act"] = part_backward(layer.intermediate, x, list(up.parameters())) - parts["mlp.up"]
    elif family in DEEPSEEK:
        # DeepSeek's latent attention (each projection and latent norm alone, on an input of its
        # own width) and MoE block (router, routed experts, shared experts, their sum).
        a, m = layer.self_attn, layer.mlp
        b_, s_ = shapes["b"], shapes["s"]

        def alone(op, mod, width):
            xi = torch.randn(b_, s_, width, dtype=torch.bfloat16, requires_grad=True)
            parts[op] = part_backward(mod, xi, list(mod.parameters()))

        alone("attn_norm", layer.input_layernorm, shapes["h"])
        alone("mlp_norm", layer.post_attention_layernorm, shapes["h"])
        own = ["attn.kv_a", "attn.kv_a_norm", "attn.kv_b", "attn.out_proj"]
        if a.q_lora_rank is None:
            alone("attn.q_proj", a.q_proj, shapes["h"])
            own.append("attn.q_proj")
        else:
            alone("attn.q_a", a.q_a_proj, shapes["h"])
            alone("attn.q_a_norm", a.q_a_layernorm, a.q_lora_rank)
            alone("attn.q_b", a.q_b_proj, a.q_lora_rank)
            own += ["attn.q_a", "attn.q_a_norm", "attn.q_b"]
        alone("attn.kv_a", a.kv_a_proj_with_mqa, shapes["h"])
        alone("attn.kv_a_norm", a.kv_a_layernorm, a.kv_lora_rank)
        alone("attn.kv_b", a.kv_b_proj, a.kv_lora_rank)
        alone("attn.out_proj", a.o_proj, a.o_proj.in_features)
        pos = torch.arange(s_).unsqueeze(0).expand(b_, -1)
        pe = model.model.rotary_emb(x.detach(), pos)
        attn_all = part_backward(lambda t: a(t, attention_mask=None, position_embeddings=pe)[0], x,
                                 list(a.parameters()))
        parts["attn.core"] = attn_all - sum((parts[n] for n in own), collections.Counter())
        parts["mlp.route"] = part_backward(lambda t: m.gate(t)[1], x, list(m.gate.parameters()))
        se = m.shared_experts
        alone("mlp.shared.gate", se.gate_proj, shapes["h"])
        alone("mlp.shared.up", se.up_proj, shapes["h"])
        alone("mlp.shared.down", se.down_proj, se.down_proj.in_features)
        shared_all = part_backward(se, x, list(se.parameters()))
        parts["mlp.shared.act"] = (shared_all - parts["mlp.shared.gate"] - parts["mlp.shared.up"]
                                   - parts["mlp.shared.down"])
        ex = torch.randn(b_, s_, shapes["h"], dtype=torch.bfloat16, requires_grad=True)
        sh = torch.randn(b_, s_, shapes["h"], dtype=torch.bfloat16, requires_grad=True)
        parts["mlp.combine"] = part_backward(lambda t: ex + t, sh, [ex])
        mlp_all = part_backward(m, x, list(m.parameters()))
        parts["mlp.experts"] = mlp_all - parts["mlp.route"] - shared_all - parts["mlp.combine"]
    elif family in ("bloom",) + FALCON:
        # BLOOM's and Falcon's blocks: query_key_value, dense, dense_h_to_4h, dense_4h_to_h. BLOOM's
        # attention and MLP take the residual and add it themselves (dropout_add): a residual
        # without a gradient here, the add's backward being a pass-through.
        from transformers.masking_utils import create_causal_mask
        a, m = layer.self_attention, layer.mlp
        b_, s_ = shapes["b"], shapes["s"]
        pos = torch.arange(s_).unsqueeze(0).expand(b_, -1)
        mask = create_causal_mask(config=model.config, inputs_embeds=x.detach(),
                                  attention_mask=torch.ones(b_, s_), past_key_values=None,
                                  position_ids=pos)
        norms = ([("attn_norm", layer.input_layernorm), ("mlp_norm", layer.post_attention_layernorm)]
                 if family == "bloom" else
                 [("attn_norm", layer.ln_attn), ("mlp_norm", layer.ln_mlp)] if family == "falcon_new" else
                 [("attn_norm", layer.input_layernorm)])
        for op, norm in norms:
            parts[op] = part_backward(norm, x, list(norm.parameters()))
        qkv, out, up, down = a.query_key_value, a.dense, m.dense_h_to_4h, m.dense_4h_to_h
        parts["attn.qkv"] = part_backward(qkv, x, list(qkv.parameters()))
        xo = torch.randn(b_, s_, out.in_features, dtype=torch.bfloat16, requires_grad=True)
        parts["attn.out_proj"] = part_backward(out, xo, list(out.parameters()))
        parts["mlp.up"] = part_backward(up, x, list(up.parameters()))
        xi = torch.randn(b_, s_, down.in_features, dtype=torch.bfloat16, requires_grad=True)
        parts["mlp.down"] = part_backward(down, xi, list(down.parameters()))
        if family == "bloom":
            res = torch.zeros(b_, s_, shapes["h"], dtype=torch.bfloat16)
            alibi = model.transformer.build_alibi_tensor(torch.ones(b_, s_), a.num_heads, torch.bfloat16)
            attn_all = part_backward(lambda t: a(t, res, alibi=alibi, attention_mask=mask)[0], x,
                                     list(a.parameters()))
            mlp_all = part_backward(lambda t: m(t, res), x, list(m.parameters()))
        else:
            cos, sin = model.transformer.rotary_emb(x.detach(), pos)
            attn_all = part_backward(lambda t: a(t, alibi=None, attention_mask=mask,
                                                 position_embeddings=(cos, sin))[0], x, list(a.parameters()))
            mlp_all = part_backward(m, x, list(m.parameters()))
        parts["attn.core"] = attn_all - parts["attn.qkv"] - parts["attn.out_proj"]
        parts["mlp.act"] = mlp_all - parts["mlp.up"] - parts["mlp.down"]
    elif family in ("gpt_neox", "phi3"):
        # One fused projection into the attention (query_key_value, qkv_proj), its output Linear
        # (dense, o_proj), and a two-Linear MLP (dense_h_to_4h or the fused gate_up_proj, then the
        # down projection).
        if family == "gpt_neox":
            a, m, rope = layer.attention, layer.mlp, model.gpt_neox.rotary_emb
            qkv, out, (up_op, up), down = a.query_key_value, a.dense, ("mlp.up", m.dense_h_to_4h), m.dense_4h_to_h
        else:
            a, m, rope = layer.self_attn, layer.mlp, model.model.rotary_emb
            qkv, out, (up_op, up), down = a.qkv_proj, a.o_proj, ("mlp.gate_up", m.gate_up_proj), m.down_proj
        parts["attn_norm"] = part_backward(layer.input_layernorm, x, list(layer.input_layernorm.parameters()))
        parts["mlp_norm"] = part_backward(layer.post_attention_layernorm, x,
                                          list(layer.post_attention_layernorm.parameters()))
        parts["attn.qkv"] = part_backward(qkv, x, list(qkv.parameters()))
        xo = torch.randn(shapes["b"], shapes["s"], out.in_features, dtype=torch.bfloat16, requires_grad=True)
        parts["attn.out_proj"] = part_backward(out, xo, list(out.parameters()))
        parts[up_op] = part_backward(up, x, list(up.parameters()))
        xi = torch.randn(shapes["b"], shapes["s"], down.in_features, dtype=torch.bfloat16, requires_grad=True)
        parts["mlp.down"] = part_backward(down, xi, list(down.parameters()))
        pos = torch.arange(shapes["s"]).unsqueeze(0).expand(shapes["b"], -1)
        cos, sin = rope(x.detach(), pos)
        attn_all = part_backward(lambda t: a(t, attention_mask=None, position_embeddings=(cos, sin))[0], x,
                                 list(a.parameters()))
        mlp_all = part_backward(m, x, list(m.parameters()))
        parts["attn.core"] = attn_all - parts["attn.qkv"] - parts["attn.out_proj"]
        parts["mlp.act"] = mlp_all - parts[up_op] - parts["mlp.down"]
    else:
        a = layer.self_attn
        parts["attn_norm"] = part_backward(layer.input_layernorm, x, list(layer.input_layernorm.parameters()))
        if family in SANDWICH:
            for op, norm in (("mlp_norm", layer.pre_feedforward_layernorm),
                             ("attn.post_norm", layer.post_attention_layernorm),
                             ("mlp.post_norm", layer.post_feedforward_layernorm)):
                parts[op] = part_backward(norm, x, list(norm.parameters()))
        else:
            parts["mlp_norm"] = part_backward(layer.post_attention_layernorm, x,
                                              list(layer.post_attention_layernorm.parameters()))
        for n in ("q_proj", "k_proj", "v_proj"):
            parts["attn." + n] = part_backward(getattr(a, n), x, list(getattr(a, n).parameters()))
        xo = torch.randn(shapes["b"], shapes["s"], a.o_proj.in_features, dtype=torch.bfloat16, requires_grad=True)
        parts["attn.out_proj"] = part_backward(a.o_proj, xo, list(a.o_proj.parameters()))
        m = layer.mlp
        if family in MOE:
            parts["mlp.route"] = part_backward(lambda t: m.gate(t)[1], x, list(m.gate.parameters()))
        else:
            parts["mlp.gate"] = part_backward(m.gate_proj, x, list(m.gate_proj.parameters()))
        if family not in MOE:
            parts["mlp.up"] = part_backward(m.up_proj, x, list(m.up_proj.parameters()))
            xi = torch.randn(shapes["b"], shapes["s"], m.down_proj.in_features, dtype=torch.bfloat16,
                             requires_grad=True)
            parts["mlp.down"] = part_backward(m.down_proj, xi, list(m.down_proj.parameters()))
        rope = model.model.rotary_emb
        pos = torch.arange(shapes["s"]).unsqueeze(0).expand(shapes["b"], -1)
        # Gemma 3's rotary embedding serves both layer types; layer 0 is a full-attention one.
        cos, sin = rope(x.detach(), pos, "full_attention") if family == "gemma3_text" else rope(x.detach(), pos)
        attn_all = part_backward(lambda t: a(t, attention_mask=None, position_embeddings=(cos, sin))[0], x,
                                 list(a.parameters()))
        mlp_all = part_backward(m, x, list(m.parameters()))
        own = ["q_proj", "k_proj", "v_proj", "out_proj"]
        if family in ("qwen3", "qwen3_moe", "gemma3_text"):
            for n, proj in (("q_norm", a.q_proj), ("k_norm", a.k_proj)):
                xh = torch.randn(shapes["b"], shapes["s"], proj.out_features // a.head_dim, a.head_dim,
                                 dtype=torch.bfloat16, requires_grad=True)
                norm = getattr(a, n)
                parts["attn." + n] = part_backward(norm, xh, list(norm.parameters()))
                own.append(n)
        parts["attn.core"] = attn_all - sum((parts["attn." + n] for n in own), collections.Counter())
        if family == "qwen2_moe":
            se = m.shared_expert
            parts["mlp.shared.gate"] = part_backward(se.gate_proj, x, list(se.gate_proj.parameters()))
            parts["mlp.shared.up"] = part_backward(se.up_proj, x, list(se.up_proj.parameters()))
            xs = torch.randn(shapes["b"], shapes["s"], se.down_proj.in_features, dtype=torch.bfloat16,
                             requires_grad=True)
            parts["mlp.shared.down"] = part_backward(se.down_proj, xs, list(se.down_proj.parameters()))
            shared_all = part_backward(se, x, list(se.parameters()))
            parts["mlp.shared.act"] = (shared_all - parts["mlp.shared.gate"] - parts["mlp.shared.up"]
                                       - parts["mlp.shared.down"])
            parts["mlp.shared_gate"] = part_backward(m.shared_expert_gate, x,
                                                     list(m.shared_expert_gate.parameters()))
            # sigmoid(gate) * shared + experts over the block's [t, h] rows.
            t = shapes["b"] * shapes["s"]
            g = torch.randn(t, 1, dtype=torch.bfloat16, requires_grad=True)
            sh = torch.randn(t, shapes["h"], dtype=torch.bfloat16, requires_grad=True)
            ex = torch.randn(t, shapes["h"], dtype=torch.bfloat16, requires_grad=True)
            parts["mlp.combine"] = part_backward(lambda s_: torch.sigmoid(g) * s_ + ex, sh, [g, ex])
            parts["mlp.experts"] = (mlp_all - parts["mlp.route"] - shared_all - parts["mlp.shared_gate"]
                                    - parts["mlp.combine"])
        elif family in MOE:
            parts["mlp.experts"] = mlp_all - parts["mlp.route"]
        else:
            parts["mlp.act"] = mlp_all - parts["mlp.gate"] - parts["mlp.up"] - parts["mlp.down"]
    settle(parts, per_layer_bwd, "residual")
    # Outside the layers: final norm and LM head alone, the rest to the loss and embedding.
    if family == "bert":
        outside = bert_outside(model, x, ids, shapes)
    elif family == "deberta":
        outside = deberta_outside(model, x, shapes)
    else:
        if family == "gpt2":
            fn, head = model.transformer.ln_f, model.lm_head
        elif family == "opt":
            fn, head = model.model.decoder.final_layer_norm, model.lm_head
        elif family == "gpt_neox":
            fn, head = model.gpt_neox.final_layer_norm, model.lm_head
        elif family in ("bloom",) + FALCON:
            fn, head = model.transformer.ln_f, model.lm_head
        else:
            fn, head = model.model.norm, model.lm_head
        outside = causal_lm_outside(fn, head, x, ids, getattr(model.config, "final_logit_softcapping", None))
        if family == "bloom":
            en = model.transformer.word_embeddings_layernorm
            outside["embed_norm"] = part_backward(en, x, list(en.parameters()))
    settle(outside, outside_bwd, "embed")
    # Totals per class share the counts out in proportion (classes kept exact per layer).
    bwd_parts = dict(parts)
    bwd_parts.update(outside)
    result = {}
    for op, row in table.items():
        result[op] = {"fwd": dict(row["fwd"]), "modules": row["modules"]}
    for op, c in bwd_parts.items():
        result.setdefault(op, {"fwd": {}, "modules": 0})["bwd"] = {k: v for k, v in c.items() if v}
    # Class split of the backward per layer and outside, for the kernels' share.
    result["_layer_bwd_classes"] = per_layer_bwd
    result["_outside_bwd_classes"] = outside_bwd
    return result


def bert_outside(model, x, ids, shapes):
    """BERT's ops outside the layers, each part's backward alone: the embedding's LayerNorm (its
    dropout the embedding's), the head's dense layer, GELU and LayerNorm, the decoder, the loss
    (CrossEntropyLoss on the 16-bit logits over every token)."""
    e, t = model.bert.embeddings, model.cls.predictions.transform
    outside = {"embed_norm": part_backward(e.LayerNorm, x, list(e.LayerNorm.parameters())),
               "head.dense": part_backward(t.dense, x, list(t.dense.parameters())),
               "head.norm": part_backward(t.LayerNorm, x, list(t.LayerNorm.parameters()))}
    outside["head.act"] = part_backward(t, x, list(t.parameters())) - outside["head.dense"] - outside["head.norm"]
    dec = model.cls.predictions.decoder
    outside["lm_head"] = part_backward(dec, x, [dec.weight, dec.bias])
    logits = torch.randn(shapes["b"], shapes["s"], 1024, dtype=torch.bfloat16, requires_grad=True)
    outside["loss"] = part_backward(
        lambda z: torch.nn.functional.cross_entropy(z.view(-1, 1024), ids.view(-1)), logits, [])
    return outside


def deberta_outside(model, x, shapes):
    """DeBERTa's ops outside the layers, each part's backward alone: the embedding's and the
    relative table's LayerNorms; the ConvLayer (its Conv1d, LayerNorm and GELU alone, its own
    calls the rest); the pooler's dense layer and GELU, the classifier, the loss (CrossEntropyLoss
    on b x 3 logits)."""
    e, enc = model.deberta.embeddings, model.deberta.encoder
    conv = enc.conv
    b_, s_, h = shapes["b"], shapes["s"], shapes["h"]
    rel = torch.randn(enc.rel_embeddings.weight.shape, dtype=torch.bfloat16, requires_grad=True)
    outside = {"embed_norm": part_backward(e.LayerNorm, x, list(e.LayerNorm.parameters())),
               "rel_norm": part_backward(enc.LayerNorm, rel, list(enc.LayerNorm.parameters()))}
    xc = torch.randn(b_, h, s_, dtype=torch.bfloat16, requires_grad=True)
    outside["conv"] = part_backward(conv.conv, xc, list(conv.conv.parameters()))
    outside["conv_norm"] = part_backward(conv.LayerNorm, x, list(conv.LayerNorm.parameters()))
    gelu = transformers.activations.ACT2FN[conv.conv_act]
    outside["conv.act"] = part_backward(gelu, x, [])
    res = torch.randn(b_, s_, h, dtype=torch.bfloat16, requires_grad=True)
    ones = torch.ones(b_, s_, dtype=torch.long)
    conv_all = part_backward(lambda t: conv(t, res, ones), x, list(conv.parameters()) + [res])
    outside["conv.residual"] = conv_all - outside["conv"] - outside["conv_norm"] - outside["conv.act"]
    pool = model.pooler
    xp = torch.randn(b_, h, dtype=torch.bfloat16, requires_grad=True)
    outside["pooler"] = part_backward(pool.dense, xp, list(pool.dense.parameters()))
    outside["pooler.act"] = part_backward(gelu, xp, [])
    outside["head"] = part_backward(model.classifier, xp, list(model.classifier.parameters()))
    logits = torch.randn(b_, model.config.num_labels, dtype=torch.bfloat16, requires_grad=True)
    labels = torch.zeros(b_, dtype=torch.long)
    outside["loss"] = part_backward(lambda z: torch.nn.functional.cross_entropy(z, labels), logits, [])
    return outside


def causal_lm_outside(fn, head, x, ids, cap):
    """A causal LM's ops outside the layers: the final norm, the LM head, the loss (Gemma 2's
    soft-capping of the logits, `cap`, in its causal LM's forward, is the loss's)."""
    shapes_b, shapes_s = x.shape[0], x.shape[1]
    outside = {"final_norm": part_backward(fn, x, list(fn.parameters()))}
    # The LM head's weight may be the tied embedding: its gradient counts there either way.
    outside["lm_head"] = part_backward(head, x, [head.weight])

    # The loss's backward (log-softmax and NLL grads, the upcast) against the embedding's.
    logits = torch.randn(shapes_b, shapes_s, 1024, dtype=torch.bfloat16, requires_grad=True)
    from transformers.loss.loss_utils import ForCausalLMLoss
    if cap:
        outside["loss"] = part_backward(lambda t: ForCausalLMLoss(torch.tanh(t / cap) * cap, ids, 1024),
                                        logits, [])
    else:
        outside["loss"] = part_backward(lambda t: ForCausalLMLoss(t, ids, 1024), logits, [])
    return outside


def differ(x, y):
    """The largest difference between two results' counts."""
    if isinstance(x, dict) and isinstance(y, dict):
        return max([differ(x.get(k, 0), y.get(k, 0)) for k in set(x) | set(y)] or [0])
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return abs(x - y)
    return 0 if x == y else 1 << 30


def main():
    notes = rho.install_dropout_cuda_path()
    a = {"b": 2, "s": 64, "h": 128, "heads": 4, "ffn": 344}
    b = {"b": 3, "s": 48, "h": 96, "heads": 6, "ffn": 256}
    out = {"torch": torch.__version__, "transformers": transformers.__version__, "dtype": "bfloat16",
           "attention": "sdpa", "cuda_paths": notes, "families": {}}
    for name, family, attn, dropout in VARIANTS:
        extra = VARIANT_CONFIGS.get(name)
        # BLOOM's ALiBi slopes take 4 forward kernels more (once a step, in the embedding's
        # count) when the head count is not a power of two (BLOOM-176B's 112): 8 heads here.
        b_ = dict(b, heads=8) if family == "bloom" else b
        ma, mb = measure(family, a, attn, dropout, extra), measure(family, b_, attn, dropout, extra)
        # DeBERTa's attention makes a view more or fewer with the shapes (its relative positions'
        # reshapes): one view a layer allowed there.
        bad = [k for k in ma if differ(ma[k], mb.get(k)) > (1 if (family, k) == ("deberta", "attn.core") else 0)]
        if bad or ma.keys() != mb.keys():
            sys.exit(f"{name}: the two shapes disagree at " + ", ".join(bad))
        out["families"][name] = ma
    if "--cxx" in sys.argv:
        print(cxx(out))
        return
    print(json.dumps(out, indent=1, sort_keys=True))


KINDS = ("embed", "embed_norm", "attn_norm", "attn.qkv", "attn.q_proj", "attn.q_a", "attn.q_a_norm", "attn.q_b",
         "attn.kv_a", "attn.kv_a_norm", "attn.kv_b", "attn.q_norm", "attn.k_proj", "attn.k_norm",
         "attn.v_proj", "attn.core",
         "attn.out_proj", "attn.post_norm", "mlp_norm", "mlp.gate_up", "mlp.up", "mlp.gate", "mlp.act",
         "mlp.down", "mlp.post_norm",
         "mlp.shared.gate", "mlp.shared.up", "mlp.shared.act", "mlp.shared.down", "mlp.route",
         "mlp.experts", "mlp.shared_gate", "mlp.combine", "residual",
         "final_norm", "head.dense", "head.act", "head.norm", "lm_head", "loss", "rel_norm", "attn.pos_q",
         "attn.pos_k", "conv", "conv.act", "conv_norm", "conv.residual", "pooler", "pooler.act", "head")


def cxx(out, kinds=KINDS):
    """The rows of models/eager_dispatch_table.h's tables, `kinds` in order for every variant."""
    lines = []
    for fam, t in out["families"].items():
        for k in kinds:
            if k not in t:
                continue
            row = t[k]
            f, b = row["fwd"], row.get("bwd", {})
            fk = f.get("kernel", 0) + f.get("copy", 0)
            bk = b.get("kernel", 0) + b.get("copy", 0)
            lines.append('    {"%s", "%s", {%d, %d, %d}, {%d, %d, %d}, %d},' % (
                fam, k, fk, sum(f.values()) - fk, f.get("scalar_read", 0), bk, sum(b.values()) - bk,
                b.get("scalar_read", 0), row["modules"]))
    return "\n".join(lines)


if __name__ == "__main__":
    main()
