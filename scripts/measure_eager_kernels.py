#!/usr/bin/env python3
"""What Hugging Face's eager PyTorch modules launch: kernels and bytes per model op.

zerosim prices a model op either as one ideal fused kernel (every operand read once, models/
op_costs.h) or as eager PyTorch runs it: one kernel per ATen operator, each reading its inputs and
writing its outputs in HBM. This script records the second from the real modules. It runs each
HF module of a block (GPT-2: LayerNorm, the attention module with the eager core, the MLP's
NewGELUActivation and dropout, the residual adds; Llama: RMSNorm, the attention module with
rotary embeddings, SiLU-and-multiply; the causal-LM loss of both) forward and backward under a
TorchDispatchMode that sees every ATen call autograd makes, in bf16, in training mode.

For every call that launches a kernel (views, detach and other metadata-only operators are not
kernels) it records the bytes read (each input tensor once, at most its storage: a broadcast
mask is read once) and written (each output). GEMMs (mm, addmm, bmm, baddbmm) are priced by
zerosim's GEMM model and reported apart. Each kernel is assigned to the largest tensor it
touches, whose element count names a size class: hidden (t*h), ffn (t*I), qkv (t*3h), score
(b*a*s*s), logits (t*V) or param (anything smaller: bias and norm-weight gradients). The shapes
are chosen so that the classes have distinct sizes. Output: per (family, op), per pass, the
kernel count and, per class, bytes per element of the class, split into 16-bit tensors (which
scale with the training dtype) and others (fp32 upcasts, bool masks, int64 labels: fixed).

Run with a Python that has torch and transformers (the oracle's venv does):
  python scripts/measure_eager_kernels.py > results/measurements/2026-11-25-eager-kernels.json
  python scripts/measure_eager_kernels.py --cxx   # the table in sim/eager_kernels.cc
It takes a few seconds on a CPU. The numbers do not depend on the shapes chosen (the script
checks two shapes agree).
"""

import json
import os
import sys

import torch
import transformers
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_host_ops as rho  # noqa: E402  (mqa_as_cuda)

aten = torch.ops.aten
GEMMS = {aten.mm.default, aten.addmm.default, aten.bmm.default, aten.baddbmm.default}
# Fused attention cores (SDPA's backends): zerosim prices them with its flash-attention model.
CORES = {"aten::_scaled_dot_product_flash_attention_for_cpu",
         "aten::_scaled_dot_product_flash_attention_for_cpu_backward",
         "aten::_scaled_dot_product_efficient_attention",
         "aten::_scaled_dot_product_efficient_attention_backward",
         "aten::_scaled_dot_product_flash_attention",
         "aten::_scaled_dot_product_flash_attention_backward"}


def is_kernel(func, args, out):
    if func.is_view:
        return False
    name = func.name()
    if name in ("aten::detach", "aten::lift_fresh", "aten::alias", "aten::_reshape_alias",
                "aten::sym_size", "aten::sym_stride", "aten::sym_numel", "aten::is_same_size",
                "aten::empty.memory_format", "aten::_unsafe_view", "aten::empty_strided", "aten::empty_like",
                "aten::new_empty_strided", "aten::new_empty", "aten::_local_scalar_dense",
                "aten::set_.source_Storage_storage_offset"):
        return False
    return True


def tensors(x):
    if isinstance(x, torch.Tensor):
        yield x
    elif isinstance(x, (list, tuple)):
        for y in x:
            yield from tensors(y)
    elif isinstance(x, dict):
        for y in x.values():
            yield from tensors(y)


def nbytes(t):
    return min(t.numel() * t.element_size(), t.untyped_storage().nbytes())


class Recorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if not is_kernel(func, args, out):
            return out
        ins = list(tensors(args)) + list(tensors(kwargs))
        outs = list(tensors(out))
        if func.name().endswith("_") or "out" in kwargs:  # in place: writes its first input
            outs = outs or ins[:1]
        seen, reads = set(), []
        for t in ins:
            key = (t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape))
            if key not in seen:
                seen.add(key)
                reads.append(t)
        self.calls.append((func, reads, outs))
        return out


class Shapes:
    def __init__(self, b, s, h, heads, ffn, vocab, kv_heads=None):
        self.b, self.s, self.h, self.a, self.ffn, self.v = b, s, h, heads, ffn, vocab
        self.kv = heads if kv_heads is None else kv_heads
        self.t = b * s
        self.classes = {
            self.t * self.v: "logits",
            self.b * self.a * self.s * self.s: "score",
            self.t * self.ffn: "ffn",
            # the fused projection's output, t x (q + 2 kv)
            self.t * (self.h + 2 * self.kv * (self.h // self.a)): "qkv",
            self.t * self.h: "hidden",
        }
        assert len(self.classes) == 5, "size classes collide: pick other shapes"

    def classify(self, numel):
        return self.classes.get(numel, "param")

    def scale(self, numel):
        """(class, elements per class element): Phi-3's fused gate_up output, t x 2I, is the ffn
        class twice over."""
        if numel == 2 * self.t * self.ffn:
            return "ffn", 2.0
        return self.classify(numel), 1.0


def cuda_dropout(calls):
    """On CUDA, training dropout is one native_dropout kernel (read x; write y and a bool mask);
    on the CPU it runs as bernoulli_ (the mask), div_ (its scale) and mul. The three are merged
    into one kernel reading x and writing y and a 1-byte mask."""
    out, i = [], 0
    while i < len(calls):
        func, reads, writes = calls[i]
        base = lambda j: calls[j][0].name().split(".")[0]
        if (base(i) == "aten::bernoulli_" and i + 2 < len(calls) and base(i + 1) == "aten::div_"
                and base(i + 2) == "aten::mul"):
            mask = writes[0]
            _, mul_reads, mul_writes = calls[i + 2]
            x = [t for t in mul_reads if t.untyped_storage().data_ptr() !=
                 mask.untyped_storage().data_ptr()]
            out.append((aten.native_dropout.default, x,
                        mul_writes + [torch.empty(mask.shape, dtype=torch.bool)]))
            i += 3
            continue
        out.append(calls[i])
        i += 1
    return out


def tally(calls, shapes):
    """Kernels and bytes per class (16-bit and other) of a list of recorded calls."""
    out = {"kernels": 0, "gemm_kernels": 0, "core_kernels": 0, "bytes": {}, "ops": []}
    for func, reads, writes in cuda_dropout(calls):
        if func in GEMMS:
            out["gemm_kernels"] += 1
            continue
        if func.name() in CORES:
            out["core_kernels"] += 1
            continue
        out["kernels"] += 1
        touched = reads + writes
        numel = max(t.numel() for t in touched) if touched else 1
        cls, times = shapes.scale(numel) if touched else ("param", 1.0)
        numel /= times
        if cls == "score":  # T5's position bias, one score matrix for the batch: not counted
            touched = [t for t in touched if t.numel() * shapes.b != numel]
        b16 = sum(nbytes(t) for t in touched if t.dtype in (torch.bfloat16, torch.float16))
        other = sum(nbytes(t) for t in touched if t.dtype not in (torch.bfloat16, torch.float16))
        acc = out["bytes"].setdefault(cls, [0.0, 0.0])
        if cls == "param":  # tiny: absolute bytes are meaningless, count the kernel only
            pass
        else:
            acc[0] += b16 / numel
            acc[1] += other / numel
        out["ops"].append(f"{func.name()}[{cls}]")
    for cls in out["bytes"]:
        out["bytes"][cls] = [round(x, 4) for x in out["bytes"][cls]]
    return out


def run(fn, inputs, shapes, params=()):
    """fn(*inputs) forward and backward; returns (forward tally, backward tally). Backward is
    torch.autograd.grad over the inputs and `params`, so no AccumulateGrad copy into a leaf's
    .grad is recorded: inside a model the input gradient flows on to the op before."""
    rec = Recorder()
    with rec:
        out = fn(*inputs)
    fwd = list(rec.calls)
    if isinstance(out, tuple):
        out = out[0]
    grad = torch.ones_like(out)
    wrt = list(inputs) + [p for p in params if p.requires_grad]
    rec = Recorder()
    with rec:
        torch.autograd.grad(out, wrt, grad)
    return tally(fwd, shapes), tally(list(rec.calls), shapes)


def leaf(*shape, dtype=torch.bfloat16):
    return torch.randn(*shape, dtype=dtype).requires_grad_(True)


def residual(shapes):
    """x + f(x): the add, and in backward the add with which autograd sums the two gradient
    streams of x (the skip and the branch). f = x * 2 is measured alone and taken off."""
    b, s, h = shapes.b, shapes.s, shapes.h
    both = run(lambda x: x + x * 2, [leaf(b, s, h)], shapes)
    branch = run(lambda x: x * 2, [leaf(b, s, h)], shapes)
    out = []
    for whole, part in zip(both, branch):
        d = {"kernels": whole["kernels"] - part["kernels"], "gemm_kernels": 0, "core_kernels": 0,
             "bytes": {c: [round(x - y, 4) for x, y in zip(v, part["bytes"].get(c, [0, 0]))]
                       for c, v in whole["bytes"].items()},
             "ops": [o for o in whole["ops"]]}
        out.append(d)
    return tuple(out)


def gpt2_parts(shapes, attn="eager", dropout=0.1):
    from transformers import GPT2Config
    from transformers.models.gpt2.modeling_gpt2 import GPT2Block
    cfg = GPT2Config(n_embd=shapes.h, n_head=shapes.a, n_inner=shapes.ffn, n_layer=1,
                     n_positions=max(64, shapes.s), vocab_size=shapes.v, bos_token_id=0,
                     eos_token_id=0, resid_pdrop=dropout, attn_pdrop=dropout, embd_pdrop=dropout)
    cfg._attn_implementation = attn
    block = GPT2Block(cfg).to(torch.bfloat16).train()
    b, s, h = shapes.b, shapes.s, shapes.h
    from transformers.masking_utils import create_causal_mask

    def causal_mask(x):
        # What GPT2Model hands its blocks for eager attention: an additive [b, 1, s, s] mask.
        pos = torch.arange(s).unsqueeze(0).expand(b, s)
        return create_causal_mask(config=cfg, inputs_embeds=x, attention_mask=torch.ones(b, s),
                                  past_key_values=None,
                                  position_ids=pos)

    x0 = torch.randn(b, s, h, dtype=torch.bfloat16)
    mask = causal_mask(x0)
    parts = {}
    parts["norm"] = run(lambda x: block.ln_1(x), [leaf(b, s, h)], shapes,
                        list(block.ln_1.parameters()))
    parts["attention"] = run(lambda x: block.attn(x, attention_mask=mask)[0], [leaf(b, s, h)],
                             shapes, list(block.attn.parameters()))
    parts["mlp"] = run(lambda x: block.mlp(x), [leaf(b, s, h)], shapes,
                       list(block.mlp.parameters()))
    return parts


def decoder_layer_parts(layer, rope, cfg, shapes):
    """A rotary decoder layer's norm, attention module (projections included) and MLP, each
    alone, forward and backward."""
    b, s, h = shapes.b, shapes.s, shapes.h
    x0 = torch.randn(b, s, h, dtype=torch.bfloat16)
    pos = torch.arange(s).unsqueeze(0).expand(b, s)
    cos, sin = rope(x0, pos)
    from transformers.masking_utils import create_causal_mask
    mask = create_causal_mask(config=cfg, inputs_embeds=x0, attention_mask=torch.ones(b, s),
                              past_key_values=None,
                              position_ids=pos)
    parts = {}
    parts["norm"] = run(lambda x: layer.input_layernorm(x), [leaf(b, s, h)], shapes,
                        list(layer.input_layernorm.parameters()))
    parts["attention"] = run(
        lambda x: layer.self_attn(x, attention_mask=mask, position_embeddings=(cos, sin))[0],
        [leaf(b, s, h)], shapes, list(layer.self_attn.parameters()))
    parts["mlp"] = run(lambda x: layer.mlp(x), [leaf(b, s, h)], shapes,
                       list(layer.mlp.parameters()))
    return parts


def llama_parts(shapes, attn="eager"):
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding
    cfg = LlamaConfig(hidden_size=shapes.h, num_attention_heads=shapes.a,
                      num_key_value_heads=shapes.a, intermediate_size=shapes.ffn,
                      num_hidden_layers=1, vocab_size=shapes.v,
                      max_position_embeddings=max(64, shapes.s))
    cfg._attn_implementation = attn
    layer = LlamaDecoderLayer(cfg, layer_idx=0).to(torch.bfloat16).train()
    return decoder_layer_parts(layer, LlamaRotaryEmbedding(cfg), cfg, shapes)


def phi3_parts(shapes, attn="eager"):
    """Phi-3's decoder layer: one qkv_proj and one gate_up_proj (the slices and chunk are views),
    RoPE on the whole of each head (a partial rotation's tensors are of no size class here)."""
    from transformers import Phi3Config
    from transformers.models.phi3.modeling_phi3 import Phi3DecoderLayer, Phi3RotaryEmbedding
    cfg = Phi3Config(hidden_size=shapes.h, num_attention_heads=shapes.a,
                     num_key_value_heads=shapes.a, intermediate_size=shapes.ffn,
                     num_hidden_layers=1, vocab_size=shapes.v, pad_token_id=None,
                     max_position_embeddings=max(64, shapes.s))
    cfg._attn_implementation = attn
    layer = Phi3DecoderLayer(cfg, layer_idx=0).to(torch.bfloat16).train()
    return decoder_layer_parts(layer, Phi3RotaryEmbedding(cfg), cfg, shapes)


def gemma_parts(shapes, version, attn="eager"):
    """Gemma's decoder layer (gemma, gemma2): (1 + w) RMSNorms computed in fp32, gelu_pytorch_tanh
    gating, head_dim 16 here; Gemma 2's eager attention soft-caps its scores (50)."""
    from transformers import Gemma2Config, GemmaConfig
    from transformers.models.gemma.modeling_gemma import GemmaDecoderLayer, GemmaRotaryEmbedding
    from transformers.models.gemma2.modeling_gemma2 import Gemma2DecoderLayer, Gemma2RotaryEmbedding
    config, layer_cls, rope_cls = ((GemmaConfig, GemmaDecoderLayer, GemmaRotaryEmbedding) if version == 1
                                   else (Gemma2Config, Gemma2DecoderLayer, Gemma2RotaryEmbedding))
    cfg = config(hidden_size=shapes.h, num_attention_heads=shapes.a, num_key_value_heads=shapes.a,
                 head_dim=shapes.h // shapes.a, intermediate_size=shapes.ffn, num_hidden_layers=1,
                 vocab_size=shapes.v, pad_token_id=None, max_position_embeddings=max(64, shapes.s))
    cfg._attn_implementation = attn
    layer = layer_cls(cfg, layer_idx=0).to(torch.bfloat16).train()
    return decoder_layer_parts(layer, rope_cls(cfg), cfg, shapes)


def opt_parts(shapes, attn="eager", dropout=0.1):
    """OPT's decoder layer: LayerNorm, attention scaling q after q_proj, ReLU between fc1 and fc2;
    the layer drops out the attention's and fc2's outputs, charged here to the attention and the
    MLP as GPT-2's resid_dropout is."""
    from transformers import OPTConfig
    from transformers.masking_utils import create_causal_mask
    from transformers.models.opt.modeling_opt import OPTDecoderLayer
    cfg = OPTConfig(hidden_size=shapes.h, num_attention_heads=shapes.a, ffn_dim=shapes.ffn,
                    num_hidden_layers=1, vocab_size=shapes.v, pad_token_id=None,
                    word_embed_proj_dim=shapes.h, max_position_embeddings=max(64, shapes.s),
                    dropout=dropout)
    cfg._attn_implementation = attn
    layer = OPTDecoderLayer(cfg, layer_idx=0).to(torch.bfloat16).train()
    b, s, h = shapes.b, shapes.s, shapes.h
    x0 = torch.randn(b, s, h, dtype=torch.bfloat16)
    mask = create_causal_mask(config=cfg, inputs_embeds=x0, attention_mask=torch.ones(b, s),
                              past_key_values=None, position_ids=torch.arange(s).unsqueeze(0))
    drop = lambda t: torch.nn.functional.dropout(t, p=dropout, training=True)  # noqa: E731
    parts = {}
    parts["norm"] = run(lambda x: layer.self_attn_layer_norm(x), [leaf(b, s, h)], shapes,
                        list(layer.self_attn_layer_norm.parameters()))
    parts["attention"] = run(lambda x: drop(layer.self_attn(x, attention_mask=mask)[0]),
                             [leaf(b, s, h)], shapes, list(layer.self_attn.parameters()))
    mlp_params = list(layer.fc1.parameters()) + list(layer.fc2.parameters())
    parts["mlp"] = run(lambda x: drop(layer.fc2(layer.activation_fn(layer.fc1(x)))), [leaf(b, s, h)],
                       shapes, mlp_params)
    return parts


def seq2seq_parts(shapes, family, attn="eager"):
    """BART's and Blenderbot's encoder layer (the decoder's self- and cross-attention are the same
    module): LayerNorm, BartAttention (q, k, v, out_proj and the core, a padding-free batch) and
    the layer's dropout of its output, fc1, GELU, the activation dropout, fc2 and its dropout. The
    dropouts are charged to the attention and the MLP as GPT-2's resid_dropout is. BART: every
    dropout 0.1 (bart-base, bart-large); Blenderbot: 0.1 after the attention and fc2 only
    (blenderbot-400M-distill). Under SDPA the probabilities' dropout is measured at 0, as BERT's."""
    from transformers import BartConfig, BlenderbotConfig
    from transformers.models.bart.modeling_bart import BartEncoderLayer
    from transformers.models.blenderbot.modeling_blenderbot import BlenderbotEncoderLayer
    bart = family == "bart"
    attn_drop, act_drop = (0.1, 0.1) if bart else (0.0, 0.0)
    config, layer_cls = (BartConfig, BartEncoderLayer) if bart else (BlenderbotConfig, BlenderbotEncoderLayer)
    cfg = config(d_model=shapes.h, encoder_attention_heads=shapes.a, encoder_ffn_dim=shapes.ffn,
                 encoder_layers=1, decoder_layers=1, vocab_size=shapes.v, max_position_embeddings=max(64, shapes.s),
                 dropout=0.1, attention_dropout=attn_drop if attn == "eager" else 0.0,
                 activation_dropout=act_drop, activation_function="gelu")
    cfg._attn_implementation = attn
    layer = layer_cls(cfg).to(torch.bfloat16).train()
    b, s, h = shapes.b, shapes.s, shapes.h
    drop = lambda t, p: torch.nn.functional.dropout(t, p=p, training=True)  # noqa: E731
    a = layer.self_attn
    mlp_params = list(layer.fc1.parameters()) + list(layer.fc2.parameters())
    return {"norm": run(lambda x: layer.self_attn_layer_norm(x), [leaf(b, s, h)], shapes,
                        list(layer.self_attn_layer_norm.parameters())),
            "attention": run(lambda x: drop(a(x, attention_mask=None)[0], 0.1), [leaf(b, s, h)], shapes,
                             list(a.parameters())),
            "mlp": run(lambda x: drop(layer.fc2(drop(layer.activation_fn(layer.fc1(x)), act_drop)), 0.1),
                       [leaf(b, s, h)], shapes, mlp_params)}


def gpt_neox_parts(shapes, attn="eager"):
    """GPT-NeoX's layer: LayerNorm, one query_key_value split per head, GELU; RoPE on the whole of
    each head here (Pythia's quarter leaves tensors of no size class)."""
    from transformers import GPTNeoXConfig
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXLayer, GPTNeoXRotaryEmbedding
    cfg = GPTNeoXConfig(hidden_size=shapes.h, num_attention_heads=shapes.a,
                        intermediate_size=shapes.ffn, num_hidden_layers=1, vocab_size=shapes.v,
                        max_position_embeddings=max(64, shapes.s), rotary_pct=1.0)
    cfg._attn_implementation = attn
    layer = GPTNeoXLayer(cfg, 0).to(torch.bfloat16).train()
    layer.self_attn = layer.attention  # decoder_layer_parts' names
    return decoder_layer_parts(layer, GPTNeoXRotaryEmbedding(cfg), cfg, shapes)


def bloom_parts(shapes):
    """BLOOM's block (eager: it has no SDPA path): LayerNorm; the attention with ALiBi added by
    baddbmm, the mask added, an fp32 softmax, hidden_dropout 0; the MLP with BloomGelu (a tanh
    GELU in an autograd Function of its own). The attention and the MLP add the residual
    themselves (dropout_add): that add is zerosim's residual op, so it is measured without it."""
    from transformers import BloomConfig
    from transformers.masking_utils import create_causal_mask
    from transformers.models.bloom import modeling_bloom
    cfg = BloomConfig(hidden_size=shapes.h, n_head=shapes.a, n_layer=1, vocab_size=shapes.v,
                      pad_token_id=None, hidden_dropout=0.0, attention_dropout=0.0)
    cfg._attn_implementation = "eager"
    assert shapes.ffn == 4 * shapes.h, "BLOOM's MLP is 4h wide"
    layer = modeling_bloom.BloomBlock(cfg, layer_idx=0).to(torch.bfloat16).train()
    b, s, h = shapes.b, shapes.s, shapes.h
    x0 = torch.randn(b, s, h, dtype=torch.bfloat16)
    ones = torch.ones(b, s)
    mask = create_causal_mask(config=cfg, inputs_embeds=x0, attention_mask=ones, past_key_values=None)
    alibi = modeling_bloom.build_alibi_tensor(ones, shapes.a, torch.bfloat16)
    res = torch.zeros(b, s, h, dtype=torch.bfloat16)
    orig = modeling_bloom.dropout_add
    modeling_bloom.dropout_add = lambda x, residual, prob, training: torch.nn.functional.dropout(
        x, p=prob, training=training)
    try:
        a, m = layer.self_attention, layer.mlp
        parts = {"norm": run(lambda x: layer.input_layernorm(x), [leaf(b, s, h)], shapes,
                             list(layer.input_layernorm.parameters())),
                 "attention": run(lambda x: a(x, res, alibi=alibi, attention_mask=mask)[0], [leaf(b, s, h)],
                                  shapes, list(a.parameters())),
                 "mlp": run(lambda x: m(x, res), [leaf(b, s, h)], shapes, list(m.parameters()))}
    finally:
        modeling_bloom.dropout_add = orig
    return parts


def falcon_parts(shapes, attn="eager"):
    """Falcon's decoder layer (FalconLinears without biases, rotary on the whole of each head,
    GELU, dropout 0): Falcon-7B's one key and value head (multi_query) when shapes.kv is 1, else
    the new decoder architecture's shapes.kv groups broadcast to every head."""
    from transformers import FalconConfig
    from transformers.masking_utils import create_causal_mask
    from transformers.models.falcon.modeling_falcon import FalconDecoderLayer, FalconRotaryEmbedding
    new = shapes.kv != 1
    cfg = FalconConfig(hidden_size=shapes.h, num_attention_heads=shapes.a, ffn_hidden_size=shapes.ffn,
                       num_hidden_layers=1, vocab_size=shapes.v, pad_token_id=None,
                       max_position_embeddings=max(64, shapes.s), new_decoder_architecture=new,
                       num_kv_heads=shapes.kv if new else None)
    cfg._attn_implementation = attn
    layer = FalconDecoderLayer(cfg, layer_idx=0).to(torch.bfloat16).train()
    b, s, h = shapes.b, shapes.s, shapes.h
    x0 = torch.randn(b, s, h, dtype=torch.bfloat16)
    pos = torch.arange(s).unsqueeze(0).expand(b, s)
    cos, sin = FalconRotaryEmbedding(cfg)(x0, pos)
    mask = create_causal_mask(config=cfg, inputs_embeds=x0, attention_mask=torch.ones(b, s),
                              past_key_values=None, position_ids=pos)
    norm = layer.ln_attn if new else layer.input_layernorm
    a = layer.self_attention
    # Falcon-7B's one key and value head under SDPA: CUDA's fused kernels take it, the CPU's
    # flash kernel does not (scripts/record_host_ops.py mqa_as_cuda).
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def fused_mqa(q, k, v, *args, **kwargs):
        k, v = rho.mqa_as_cuda(q, k, v)
        return sdpa(q, k, v, *args, **kwargs)

    torch.nn.functional.scaled_dot_product_attention = fused_mqa
    try:
        return {"norm": run(lambda x: norm(x), [leaf(b, s, h)], shapes, list(norm.parameters())),
                "attention": run(lambda x: a(x, None, mask, position_embeddings=(cos, sin))[0],
                                 [leaf(b, s, h)], shapes, list(a.parameters())),
                "mlp": run(lambda x: layer.mlp(x), [leaf(b, s, h)], shapes, list(layer.mlp.parameters()))}
    finally:
        torch.nn.functional.scaled_dot_product_attention = sdpa


def bert_parts(shapes, attn="eager", dropout=0.1):
    """BERT's layer: the attention (query, key, value, the core without a causal mask or padding,
    as BertModel runs a batch without padding), output.dense and its dropout; LayerNorm (after
    the add); the MLP (intermediate.dense, GELU, output.dense, dropout). The dropouts are charged
    to the attention and the MLP as GPT-2's resid_dropout is. Under SDPA the probabilities'
    dropout is measured at 0: on the CPU SDPA falls back to its unfused math path when dropout >
    0, where CUDA's fused kernels apply it inside (the kernel count is the same)."""
    from transformers import BertConfig
    from transformers.models.bert.modeling_bert import BertLayer
    cfg = BertConfig(hidden_size=shapes.h, num_attention_heads=shapes.a, intermediate_size=shapes.ffn,
                     num_hidden_layers=1, vocab_size=shapes.v, pad_token_id=None,
                     max_position_embeddings=max(64, shapes.s), hidden_dropout_prob=dropout,
                     attention_probs_dropout_prob=dropout if attn == "eager" else 0.0)
    cfg._attn_implementation = attn
    layer = BertLayer(cfg, layer_idx=0).to(torch.bfloat16).train()
    b, s, h = shapes.b, shapes.s, shapes.h
    a, so, out = layer.attention.self, layer.attention.output, layer.output
    parts = {}
    parts["norm"] = run(lambda x: so.LayerNorm(x), [leaf(b, s, h)], shapes, list(so.LayerNorm.parameters()))
    parts["attention"] = run(lambda x: so.dropout(so.dense(a(x, attention_mask=None)[0])), [leaf(b, s, h)],
                             shapes, list(a.parameters()) + list(so.dense.parameters()))
    mlp_params = list(layer.intermediate.parameters()) + list(out.dense.parameters())
    parts["mlp"] = run(lambda x: out.dropout(out.dense(layer.intermediate(x))), [leaf(b, s, h)], shapes,
                       mlp_params)
    return parts


def t5_parts(shapes, attn="eager", gated=False):
    """A T5 block that is not its stack's first (an encoder block): T5LayerNorm; T5Attention (q, k,
    v, o without biases, the core over the shared relative position bias, which takes a gradient:
    the first block computes it, every block adds into its gradient) and the sublayer's dropout;
    DenseReluDense (ReLU; gated: gelu_new(wi_0) * wi_1) with its dropout and the sublayer's. The
    dropouts are charged to the attention and the MLP as GPT-2's resid_dropout is. The bias's own
    bytes (1 x heads x s x s, read by the scores' add and written by its gradient's sum over the
    batch) are not counted (tally): 1/b of a score element's each. Under SDPA the bias is
    the mask of CUDA's memory-efficient kernel (scripts/record_host_ops.py trainable_mask_as_cuda)
    and the probabilities' dropout is measured at 0, as BERT's."""
    from transformers import T5Config
    from transformers.models.t5.modeling_t5 import T5Block
    cfg = T5Config(d_model=shapes.h, d_kv=shapes.h // shapes.a, d_ff=shapes.ffn, num_heads=shapes.a,
                   num_layers=2, vocab_size=shapes.v, dropout_rate=0.1,
                   feed_forward_proj="gated-gelu" if gated else "relu")
    cfg._attn_implementation = attn
    block = T5Block(cfg, has_relative_attention_bias=False, layer_idx=1).to(torch.bfloat16).train()
    b, s, h = shapes.b, shapes.s, shapes.h
    sa, ff = block.layer[0], block.layer[1]
    bias = leaf(1, shapes.a, s, s)
    sdpa = torch.nn.functional.scaled_dot_product_attention
    trainable_mask = rho.trainable_mask_as_cuda()

    def memory_efficient(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, **kwargs):
        if attn_mask is not None and attn_mask.requires_grad:
            return trainable_mask(q, k, v, attn_mask, is_causal, scale)
        return sdpa(q, k, v, attn_mask, 0.0, is_causal, scale=scale, **kwargs)

    torch.nn.functional.scaled_dot_product_attention = memory_efficient
    try:
        return {"norm": run(lambda x: sa.layer_norm(x), [leaf(b, s, h)], shapes, list(sa.layer_norm.parameters())),
                "attention": run(lambda x: sa.dropout(sa.SelfAttention(x, position_bias=bias)[0]), [leaf(b, s, h)],
                                 shapes, list(sa.SelfAttention.parameters()) + [bias]),
                "mlp": run(lambda x: ff.dropout(ff.DenseReluDense(x)), [leaf(b, s, h)], shapes,
                           list(ff.DenseReluDense.parameters()))}
    finally:
        torch.nn.functional.scaled_dot_product_attention = sdpa


def softcap_part(shapes):
    """Gemma 2's logit soft-capping, cap * tanh(x / cap), over the logits."""
    return run(lambda t: torch.tanh(t / 30.0) * 30.0, [leaf(shapes.b, shapes.s, shapes.v)], shapes)


def loss_part(shapes):
    from transformers.loss.loss_utils import ForCausalLMLoss
    labels = torch.randint(0, shapes.v, (shapes.b, shapes.s))
    return run(lambda logits: ForCausalLMLoss(logits, labels, shapes.v),
               [leaf(shapes.b, shapes.s, shapes.v)], shapes)


def measure(shapes):
    torch.manual_seed(0)
    def with_kv(kv):
        return Shapes(shapes.b, shapes.s, shapes.h, shapes.a, shapes.ffn, shapes.v, kv_heads=kv)
    bloom = Shapes(shapes.b, shapes.s, shapes.h, shapes.a, 4 * shapes.h, shapes.v)
    return {"bloom": bloom_parts(bloom),
            "falcon": falcon_parts(with_kv(1)), "falcon_sdpa": falcon_parts(with_kv(1), "sdpa"),
            "falcon_new": falcon_parts(with_kv(2)), "falcon_new_sdpa": falcon_parts(with_kv(2), "sdpa"),
            "gpt2": gpt2_parts(shapes), "gpt2_sdpa": gpt2_parts(shapes, "sdpa"),
            "gpt2_nodropout": gpt2_parts(shapes, dropout=0.0),
            "gpt2_sdpa_nodropout": gpt2_parts(shapes, "sdpa", dropout=0.0),
            "llama": llama_parts(shapes), "llama_sdpa": llama_parts(shapes, "sdpa"),
            "phi3": phi3_parts(shapes), "phi3_sdpa": phi3_parts(shapes, "sdpa"),
            "gemma": gemma_parts(shapes, 1), "gemma_sdpa": gemma_parts(shapes, 1, "sdpa"),
            "gemma2": gemma_parts(shapes, 2), "gemma2_sdpa": gemma_parts(shapes, 2, "sdpa"),
            "opt": opt_parts(shapes), "opt_sdpa": opt_parts(shapes, "sdpa"),
            "bart": seq2seq_parts(shapes, "bart"), "bart_sdpa": seq2seq_parts(shapes, "bart", "sdpa"),
            "blenderbot": seq2seq_parts(shapes, "blenderbot"),
            "blenderbot_sdpa": seq2seq_parts(shapes, "blenderbot", "sdpa"),
            "gpt_neox": gpt_neox_parts(shapes), "gpt_neox_sdpa": gpt_neox_parts(shapes, "sdpa"),
            "bert": bert_parts(shapes), "bert_sdpa": bert_parts(shapes, "sdpa"),
            "t5": t5_parts(shapes), "t5_sdpa": t5_parts(shapes, "sdpa"), "t5_gated": t5_parts(shapes, gated=True),
            "softcap": softcap_part(shapes),
            "residual": residual(shapes), "loss": loss_part(shapes)}


def summary(m):
    def strip(part):
        fwd, bwd = part
        return {p: {k: v for k, v in d.items() if k != "ops"} for p, d in (("fwd", fwd),
                                                                             ("bwd", bwd))}
    out = {}
    for fam in FAMILIES:
        out[fam] = {op: strip(v) for op, v in m[fam].items()}
    for part in ("residual", "loss", "softcap"):
        out[part] = strip(m[part])
    return out


FAMILIES = ("gpt2", "gpt2_sdpa", "gpt2_nodropout", "gpt2_sdpa_nodropout", "llama", "llama_sdpa",
            "phi3", "phi3_sdpa", "gemma", "gemma_sdpa", "gemma2", "gemma2_sdpa", "opt", "opt_sdpa",
            "gpt_neox", "gpt_neox_sdpa", "bloom", "falcon", "falcon_sdpa", "falcon_new",
            "falcon_new_sdpa", "bart", "bart_sdpa", "blenderbot", "blenderbot_sdpa", "bert", "bert_sdpa", "t5",
            "t5_sdpa", "t5_gated")


def with_cuda_dropout(m):
    """GPT-2 under SDPA with dropout: on the CPU SDPA falls back to its unfused math path when
    dropout > 0, while CUDA's flash and memory-efficient kernels apply the dropout inside. So
    the CUDA module is the no-dropout SDPA module plus the residual dropout on c_proj's output,
    which is what the MLP module's dropout costs (GPT-2 eager with dropout minus without)."""
    out = {}
    for op, (fwd, bwd) in m["gpt2_sdpa_nodropout"].items():
        if op != "attention":
            out[op] = m["gpt2_sdpa"][op]
            continue
        parts = []
        for i, base in enumerate((fwd, bwd)):
            drop, nodrop = m["gpt2"]["mlp"][i], m["gpt2_nodropout"]["mlp"][i]
            d = {"kernels": base["kernels"] + drop["kernels"] - nodrop["kernels"],
                 "gemm_kernels": base["gemm_kernels"], "core_kernels": base["core_kernels"],
                 "bytes": {}, "ops": base["ops"] + ["aten::native_dropout[hidden]"]}
            for c in set(base["bytes"]) | set(drop["bytes"]):
                d["bytes"][c] = [round(x + y - z, 4) for x, y, z in zip(
                    base["bytes"].get(c, [0, 0]), drop["bytes"].get(c, [0, 0]),
                    nodrop["bytes"].get(c, [0, 0]))]
            parts.append(d)
        out[op] = tuple(parts)
    m["gpt2_sdpa"] = out


CLASSES = ("hidden", "ffn", "qkv", "score", "logits")


def cxx(summary):
    """The table for sim/eager_kernels.cc."""
    def pas(d):
        b = ", ".join("{%g, %g}" % tuple(d["bytes"].get(c, [0, 0])) for c in CLASSES)
        return "{%d, {%s}}" % (d["kernels"], b)
    lines = []
    for fam in FAMILIES:
        for op in ("norm", "attention", "mlp"):
            v = summary[fam][op]
            lines.append("    {\"%s\", \"%s\", {%s, %s}}," % (fam, op, pas(v["fwd"]), pas(v["bwd"])))
    for part in ("residual", "loss", "softcap"):
        v = summary[part]
        lines.append("    {\"any\", \"%s\", {%s, %s}}," % (part, pas(v["fwd"]), pas(v["bwd"])))
    return "\n".join(lines)


def main():
    a = Shapes(b=3, s=40, h=64, heads=4, ffn=256, vocab=1000)
    b = Shapes(b=2, s=56, h=96, heads=6, ffn=352, vocab=1200)
    ma, mb = measure(a), measure(b)
    with_cuda_dropout(ma)
    with_cuda_dropout(mb)
    sa, sb = summary(ma), summary(mb)
    # Kernels that write a parameter-sized result (bias and norm-weight gradients) read a
    # class-sized input: their bytes per element differ by the small ratio of the two sizes.
    def flat(x, path=""):
        if isinstance(x, dict):
            for k, v in x.items():
                yield from flat(v, path + "/" + k)
        elif isinstance(x, list):
            for i, v in enumerate(x):
                yield from flat(v, path + "/" + str(i))
        else:
            yield path, x
    fa, fb = dict(flat(sa)), dict(flat(sb))
    bad = [k for k in fa if k not in fb or abs(fa[k] - fb[k]) > 0.05 * max(1.0, abs(fa[k]))]
    if bad or fa.keys() != fb.keys():
        sys.exit("the two shapes disagree beyond 5%: " + ", ".join(bad))
    ops = {fam: {op: {p: d["ops"] for p, d in zip(("fwd", "bwd"), v)}
                 for op, v in ma[fam].items()} for fam in FAMILIES}
    for part in ("residual", "loss", "softcap"):
        ops[part] = {p: d["ops"] for p, d in zip(("fwd", "bwd"), ma[part])}
    if "--cxx" in sys.argv:
        print(cxx(sa))
        return
    print(json.dumps({"torch": torch.__version__, "transformers": transformers.__version__,
                      "dtype": "bfloat16", "per_op": sa, "kernels": ops}, indent=1,
                     sort_keys=True))


if __name__ == "__main__":
    main()
