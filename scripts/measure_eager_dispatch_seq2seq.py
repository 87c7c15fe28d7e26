#!/usr/bin/env python3
"""What Hugging Face's eager encoder-decoder modules ask of the host: BART, Blenderbot and T5.

scripts/measure_eager_dispatch.py's method (ATen calls by class and module calls, forward
charged to the innermost module running them, backward per layer from the difference of two
depths shared out in the proportions each part has alone) for transformers'
BartForConditionalGeneration and BlenderbotForConditionalGeneration, whose encoder layers and
decoder layers differ: the encoder layer's entries keep models/op_graph.h's names (attn_norm,
attn.q_proj, ..., mlp.down, residual), the decoder layer's are prefixed "dec." and add the
cross-attention's (dec.cross_norm, dec.cross.q_proj, ..., dec.cross.core). A layer's own calls
(its dropouts and residual adds: two in an encoder layer, three in a decoder layer) are its
"residual" entry. The encoder's per-layer backward is the difference of 2 and 1 encoder layers
(1 decoder layer), the decoder's of 2 and 1 decoder layers; outside the layers: the embeddings
and their norms (BART's layernorm_embedding), the stacks' final norms (Blenderbot's), the LM head
and the loss (final_logits_bias added in the model's forward, CrossEntropyLoss on the logits).
The outside backward left over after the parts is the encoder's embedding's.

Variants: BART with dropout, attention and activation dropout 0.1 (bart-base's and
bart-large's), Blenderbot with dropout 0.1 and the others 0 (blenderbot-400M-distill's), T5 with
dropout 0.1, ReLU and tied-head output scaling (t5-*) or gated GELU (t5-v1_1, flan-t5), each
with SDPA and eager attention. Sequences: the same length for the source and the target. T5's
stacks' first blocks differ from the others (measure_t5).

Run with the oracle's Python (torch, transformers):
  python scripts/measure_eager_dispatch_seq2seq.py > results/measurements/2026-12-05-eager-dispatch-seq2seq.json
  python scripts/measure_eager_dispatch_seq2seq.py --cxx    # kSeq2SeqTable in models/eager_dispatch_table.h
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_eager_dispatch as med  # noqa: E402  (Counter, part_backward, settle, differ, cxx)
import record_host_ops as rho  # noqa: E402  (install_dropout_cuda_path)

import torch  # noqa: E402
import transformers  # noqa: E402

CONFIGS = {
    "bart": {"model_type": "bart", "vocab_size": 1024, "max_position_embeddings": 128, "dropout": 0.1,
             "attention_dropout": 0.1, "activation_dropout": 0.1, "activation_function": "gelu",
             "scale_embedding": False, "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2,
             "decoder_start_token_id": 2, "forced_eos_token_id": None},
    "blenderbot": {"model_type": "blenderbot", "vocab_size": 1024, "max_position_embeddings": 128, "dropout": 0.1,
                   "attention_dropout": 0.0, "activation_dropout": 0.0, "activation_function": "gelu",
                   "scale_embedding": True, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2,
                   "decoder_start_token_id": 1, "forced_eos_token_id": None},
}
VARIANTS = (("bart", "bart", "sdpa"), ("bart_eager", "bart", "eager"),
            ("blenderbot", "blenderbot", "sdpa"), ("blenderbot_eager", "blenderbot", "eager"),
            ("t5", "t5", "sdpa"), ("t5_eager", "t5", "eager"), ("t5_gated", "t5_gated", "sdpa"),
            ("t5_gated_eager", "t5_gated", "eager"))


def build(family, enc, dec, shapes, attn):
    cfg = dict(CONFIGS[family])
    h, heads, ffn = shapes["h"], shapes["heads"], shapes["ffn"]
    cfg.update(d_model=h, encoder_layers=enc, decoder_layers=dec, encoder_attention_heads=heads,
               decoder_attention_heads=heads, encoder_ffn_dim=ffn, decoder_ffn_dim=ffn)
    config = transformers.AutoConfig.for_model(**cfg)
    config._attn_implementation = attn
    torch.manual_seed(0)
    model = transformers.AutoModelForSeq2SeqLM.from_config(config)
    return model.to(torch.bfloat16).train()


def layer_of(name):
    """("enc" or "dec", index) of a module inside a layer, else None."""
    for stack in ("encoder", "decoder"):
        key = f".{stack}.layers."
        if key in name:
            return stack[:3], int(name.split(key, 1)[1].split(".", 1)[0])
    return None


def op_of(module, name):
    """The table's key of the op a module's own calls go to, or None to look further out."""
    cls = type(module).__name__
    where = layer_of(name)
    if cls == "Dropout":
        return None
    if where is None:
        decoder = ".decoder" in name
        if cls == "LayerNorm":
            if name.endswith("layernorm_embedding"):
                return "decoder.embed_norm" if decoder else "embed_norm"
            return "final_norm" if decoder else "encoder.final_norm"  # Blenderbot's stacks' last
        if name == "lm_head":
            return "lm_head"
        if cls.endswith("ForConditionalGeneration") or cls == "CrossEntropyLoss":
            return "loss"  # the model's forward makes its CrossEntropyLoss module there
        return "decoder.embed" if decoder else "embed"  # embeddings, the stacks', the model's
    stack, _ = where
    pre = "dec." if stack == "dec" else ""
    leaf = name.rsplit(".", 1)[-1]
    if cls.endswith(("EncoderLayer", "DecoderLayer")):
        return pre + "residual"
    if cls == "LayerNorm":
        return pre + {"self_attn_layer_norm": "attn_norm", "encoder_attn_layer_norm": "cross_norm",
                      "final_layer_norm": "mlp_norm"}[leaf]
    part = "cross" if ".encoder_attn" in name else "attn"
    if cls == "Linear":
        if leaf in ("fc1", "fc2"):
            return pre + ("mlp.up" if leaf == "fc1" else "mlp.down")
        return f"{pre}{part}." + leaf
    if cls.endswith("Attention"):
        return f"{pre}{part}.core"
    if leaf == "activation_fn":
        return pre + "mlp.act"
    raise ValueError(f"no op for {cls} {name}")


def forward_counts(model, ids, op_of):
    stack = []
    names = {m: n for n, m in model.named_modules()}
    module_calls = collections.Counter()

    def owner():
        for op in reversed(stack):
            if op is not None:
                return op
        return "loss"

    def pre(m, args):
        op = op_of(m, names.get(m, ""))
        stack.append(op)
        module_calls[op if op is not None else owner()] += 1

    def post(m, args, out):
        stack.pop()

    h1 = torch.nn.modules.module.register_module_forward_pre_hook(pre)
    h2 = torch.nn.modules.module.register_module_forward_hook(post)
    counter = med.Counter(lambda: (owner(), ""))
    try:
        with counter:
            out = model(input_ids=ids, labels=ids, use_cache=False)
    finally:
        h1.remove()
        h2.remove()
    fwd = collections.defaultdict(collections.Counter)
    for (op, _), c in counter.counts.items():
        fwd[op].update(c)
    return out.loss, fwd, module_calls


def total(counts, keep):
    return collections.Counter({c: sum(v[c] for k, v in counts.items() if keep(k)) for c in med.CLASSES})


def layer_parts(layer, decoder, shapes):
    """Each part of an encoder or decoder layer alone, backward: the norms, the projections, the
    attention modules (their own calls the core), fc1, fc2, the activation."""
    b, s, h = shapes["b"], shapes["s"], shapes["h"]

    def leaf(*shape):
        return torch.randn(*shape, dtype=torch.bfloat16, requires_grad=True)

    x = leaf(b, s, h)
    pre = "dec." if decoder else ""
    parts = {}
    norms = [("attn_norm", layer.self_attn_layer_norm), ("mlp_norm", layer.final_layer_norm)]
    if decoder:
        norms.append(("cross_norm", layer.encoder_attn_layer_norm))
    for op, norm in norms:
        parts[pre + op] = med.part_backward(norm, x, list(norm.parameters()))
    attns = [("attn", layer.self_attn)] + ([("cross", layer.encoder_attn)] if decoder else [])
    for part, a in attns:
        own = []
        for n in ("q_proj", "k_proj", "v_proj", "out_proj"):
            parts[f"{pre}{part}.{n}"] = med.part_backward(getattr(a, n), x, list(getattr(a, n).parameters()))
            own.append(f"{pre}{part}.{n}")
        if part == "cross":
            enc = leaf(b, s, h)
            whole = med.part_backward(lambda t: a(t, key_value_states=enc)[0], x, list(a.parameters()) + [enc])
        else:
            whole = med.part_backward(lambda t: a(t, attention_mask=None)[0], x, list(a.parameters()))
        parts[f"{pre}{part}.core"] = whole - sum((parts[o] for o in own), collections.Counter())
    parts[pre + "mlp.up"] = med.part_backward(layer.fc1, x, list(layer.fc1.parameters()))
    xi = leaf(b, s, layer.fc2.in_features)
    parts[pre + "mlp.down"] = med.part_backward(layer.fc2, xi, list(layer.fc2.parameters()))
    parts[pre + "mlp.act"] = med.part_backward(layer.activation_fn, xi, [])
    return parts


def outside_parts(model, family, shapes, ids):
    b, s, h = shapes["b"], shapes["s"], shapes["h"]
    x = torch.randn(b, s, h, dtype=torch.bfloat16, requires_grad=True)
    m = model.model
    norms = ([("embed_norm", m.encoder.layernorm_embedding), ("decoder.embed_norm", m.decoder.layernorm_embedding)]
             if family == "bart" else
             [("encoder.final_norm", m.encoder.layer_norm), ("final_norm", m.decoder.layer_norm)])
    parts = {op: med.part_backward(n, x, list(n.parameters())) for op, n in norms}
    parts["lm_head"] = med.part_backward(model.lm_head, x, [model.lm_head.weight])
    v = model.config.vocab_size
    logits = torch.randn(b, s, v, dtype=torch.bfloat16, requires_grad=True)
    bias = model.final_logits_bias.to(torch.bfloat16)
    parts["loss"] = med.part_backward(
        lambda z: torch.nn.functional.cross_entropy((z + bias).view(-1, v), ids.view(-1)), logits, [])
    return parts


def depth_runs(build_fn, op_of_fn, family, shapes, attn):
    """The token ids, and per (encoder layers, decoder layers) of 1+1, 2+1 and 1+2: the model, its
    forward counts and module calls per op, its backward's counts."""
    ids = torch.randint(3, 1024, (shapes["b"], shapes["s"]), generator=torch.Generator().manual_seed(1))
    runs = {}
    for enc, dec in ((1, 1), (2, 1), (1, 2)):
        model = build_fn(family, enc, dec, shapes, attn)
        loss, fwd, mods = forward_counts(model, ids, op_of_fn)
        counter = med.Counter(lambda: ("all", ""))
        with counter:
            loss.backward()
        runs[(enc, dec)] = (model, fwd, mods, counter.counts[("all", "")])
    return ids, runs


def add_backward(result, runs, enc_parts, dec_parts, outside):
    """Each part's backward calls into result[op]["bwd"]: an encoder layer's from 2 against 1
    encoder layers, a decoder layer's from 2 against 1 decoder layers, the rest outside them; what
    the parts measured alone leave of each goes to the layer's residual entry and, outside, to the
    embedding (med.settle)."""
    bwd11 = runs[(1, 1)][3]
    enc_bwd = {c: runs[(2, 1)][3][c] - bwd11[c] for c in med.CLASSES}
    dec_bwd = {c: runs[(1, 2)][3][c] - bwd11[c] for c in med.CLASSES}
    out_bwd = {c: bwd11[c] - enc_bwd[c] - dec_bwd[c] for c in med.CLASSES}
    med.settle(enc_parts, enc_bwd, "residual")
    med.settle(dec_parts, dec_bwd, "dec.residual")
    med.settle(outside, out_bwd, "embed")
    for op, c in list(enc_parts.items()) + list(dec_parts.items()) + list(outside.items()):
        result.setdefault(op, {"fwd": {}, "modules": 0})["bwd"] = {k: v for k, v in c.items() if v}


def measure(family, shapes, attn):
    ids, runs = depth_runs(build, op_of, family, shapes, attn)
    model, fwd, mods, _ = runs[(1, 1)]
    base = {k: collections.Counter(v) for k, v in fwd.items()}
    fwd = collections.defaultdict(collections.Counter, {k: collections.Counter(v) for k, v in fwd.items()})
    # Forward: a layer's calls are the same in the deeper models (checked), the 1+1 model's. The
    # stacks' loops draw torch.rand([]) and compare it with layerdrop before every layer (on the
    # host: no kernel, no sync): calls of the stack that come once per layer, moved to the
    # layer's residual entry (as OPT's in measure_eager_dispatch.py).
    for deeper, pre in (((2, 1), ""), ((1, 2), "dec.")):
        _, fwd2, _, _ = runs[deeper]
        def in_layers(k, pre=pre):
            return k.startswith("dec.") if pre else k in LAYER_KEYS
        one = sum(total(base, in_layers).values())
        two = sum(total(fwd2, in_layers).values())
        assert two == 2 * one, (family, attn, deeper, one, two)
        for k in set(fwd) | set(fwd2):
            if in_layers(k) or k.startswith("dec.") or k in LAYER_KEYS:
                continue
            extra = collections.Counter(fwd2.get(k, {})) - base.get(k, collections.Counter())
            assert not (base.get(k, collections.Counter()) - collections.Counter(fwd2.get(k, {}))), k
            if extra:
                fwd[pre + "residual"]["other"] += sum(extra.values())
                fwd[k].subtract(extra)
    result = {op: {"fwd": dict(c), "modules": mods[op]} for op, c in fwd.items()}
    add_backward(result, runs, layer_parts(model.model.encoder.layers[0], False, shapes),
                 layer_parts(model.model.decoder.layers[0], True, shapes),
                 outside_parts(model, family, shapes, ids))
    return result


LAYER_KEYS = ("attn_norm", "attn.q_proj", "attn.k_proj", "attn.v_proj", "attn.core", "attn.out_proj",
              "residual", "mlp_norm", "mlp.up", "mlp.act", "mlp.down")
KINDS = (("embed", "embed_norm", "encoder.final_norm") + LAYER_KEYS +
         tuple("dec." + k for k in LAYER_KEYS) +
         ("dec.cross_norm", "dec.cross.q_proj", "dec.cross.k_proj", "dec.cross.v_proj", "dec.cross.core",
          "dec.cross.out_proj", "decoder.embed", "decoder.embed_norm", "final_norm", "lm_head", "loss",
          "mlp.gate", "dec.mlp.gate", "attn.bias", "dec.attn.bias", "dec.cross.bias"))

# ---- T5 -------------------------------------------------------------------------------------------
# T5ForConditionalGeneration (modeling_t5.py): T5Stack's blocks, each T5LayerSelfAttention (+
# T5LayerCrossAttention in the decoder) and T5LayerFF, their layer_norm (T5LayerNorm), the
# attention's q, k, v, o (bias-free), DenseReluDense (wi, act, dropout, wo; gated: act(wi_0) * wi_1).
# A stack's first block computes the relative position bias (compute_bias: the buckets, the
# relative_attention_bias embedding, a permute) that the others take as it is, and the decoder's
# first cross-attention a zero bias; those calls are the entries attn.bias, dec.attn.bias and
# dec.cross.bias, added to the first block's cores. The other layers add the shared bias's
# gradient into it in backward: a non-first layer's entries hold that.

T5_CONFIGS = {
    # t5-small .. t5-11b: ReLU, tied embeddings (the decoder's output scaled by d_model^-0.5)
    "t5": {"feed_forward_proj": "relu", "tie_word_embeddings": True},
    # t5-v1_1, flan-t5: gated GELU (gelu_new), untied
    "t5_gated": {"feed_forward_proj": "gated-gelu", "tie_word_embeddings": False},
}


def t5_build(family, enc, dec, shapes, attn):
    h, heads = shapes["h"], shapes["heads"]
    config = transformers.T5Config(vocab_size=1024, d_model=h, d_kv=h // heads, d_ff=shapes["ffn"],
                                   num_layers=enc, num_decoder_layers=dec, num_heads=heads, dropout_rate=0.1,
                                   pad_token_id=0, eos_token_id=1, decoder_start_token_id=0,
                                   **T5_CONFIGS[family])
    config._attn_implementation = attn
    torch.manual_seed(0)
    model = transformers.T5ForConditionalGeneration(config)
    return model.to(torch.bfloat16).train()


def t5_layer_of(name):
    """("enc" or "dec", block index) of a module inside a block, else None."""
    for stack in ("encoder", "decoder"):
        if name.startswith(f"{stack}.block."):
            return stack[:3], int(name.split(".")[2])
    return None


T5_LINEARS = {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "out_proj", "wi": "mlp.up", "wi_1": "mlp.up",
              "wi_0": "mlp.gate", "wo": "mlp.down"}


def t5_op_of(module, name):
    """The table's key of the op a module's own calls go to ("first." + it in a stack's first
    block), or None to look further out."""
    cls = type(module).__name__
    where = t5_layer_of(name)
    if cls == "Dropout" or (cls == "Embedding" and where is None):
        return None  # the shared embedding: the stack calling it
    if where is None:
        if cls == "T5LayerNorm":
            return "final_norm" if name.startswith("decoder") else "encoder.final_norm"
        if name == "lm_head":
            return "lm_head"
        if cls in ("T5ForConditionalGeneration", "CrossEntropyLoss"):
            return "loss"
        if cls == "T5Stack":
            return "decoder.embed" if name == "decoder" else "embed"
        raise ValueError(f"no op for {cls} {name}")
    stack, block = where
    pre = ("first." if block == 0 else "") + ("dec." if stack == "dec" else "")
    sub = name.split(".")[4:]  # after <stack>.block.N.layer: [i, module, ...]
    if cls in ("T5Block", "T5LayerSelfAttention", "T5LayerCrossAttention", "T5LayerFF"):
        return pre + "residual"
    if cls == "T5LayerNorm":
        if sub[0] == "0":
            return pre + "attn_norm"
        return pre + ("cross_norm" if stack == "dec" and sub[0] == "1" else "mlp_norm")
    part = "cross" if "EncDecAttention" in sub else "attn"
    leaf = sub[-1]
    if cls == "Linear":
        op = T5_LINEARS[leaf]
        return pre + (op if op.startswith("mlp.") else f"{part}.{op}")
    if cls in ("T5Attention", "Embedding"):  # the relative_attention_bias table: compute_bias's
        return f"{pre}{part}.core"
    if cls.startswith("T5Dense") or leaf == "act":
        return pre + "mlp.act"
    raise ValueError(f"no op for {cls} {name}")


def t5_layer_parts(block, decoder, shapes):
    """Each part of a block that is not its stack's first, alone, backward: the norms, the
    projections, the attention modules over a position bias that takes a gradient (the cross-
    attention's: zeros that do not), wi (wi_1), wi_0, wo, the activation with DenseReluDense's
    own calls (the dropout; the gated product)."""
    b, s, h, heads = shapes["b"], shapes["s"], shapes["h"], shapes["heads"]

    def leaf(*shape):
        return torch.randn(*shape, dtype=torch.bfloat16, requires_grad=True)

    x = leaf(b, s, h)
    pre = "dec." if decoder else ""
    parts = {}
    norms = [("attn_norm", block.layer[0]), ("mlp_norm", block.layer[-1])]
    if decoder:
        norms.append(("cross_norm", block.layer[1]))
    for op, sub in norms:
        parts[pre + op] = med.part_backward(sub.layer_norm, x, list(sub.layer_norm.parameters()))
    attns = [("attn", block.layer[0].SelfAttention)]
    if decoder:
        attns.append(("cross", block.layer[1].EncDecAttention))
    for part, a in attns:
        own = []
        for n, op in (("q", "q_proj"), ("k", "k_proj"), ("v", "v_proj"), ("o", "out_proj")):
            parts[f"{pre}{part}.{op}"] = med.part_backward(getattr(a, n), x, list(getattr(a, n).parameters()))
            own.append(f"{pre}{part}.{op}")
        if part == "cross":
            enc = leaf(b, s, h)
            zero = torch.zeros(1, heads, s, s, dtype=torch.bfloat16)
            whole = med.part_backward(lambda t: a(t, key_value_states=enc, position_bias=zero)[0], x,
                                      list(a.parameters()) + [enc])
        else:
            bias = leaf(1, heads, s, s)
            whole = med.part_backward(lambda t: a(t, position_bias=bias)[0], x, list(a.parameters()) + [bias])
        parts[f"{pre}{part}.core"] = whole - sum((parts[o] for o in own), collections.Counter())
    d = block.layer[-1].DenseReluDense
    xi = leaf(b, s, d.wo.in_features)
    gated = hasattr(d, "wi_0")
    up = d.wi_1 if gated else d.wi
    parts[pre + "mlp.up"] = med.part_backward(up, x, list(up.parameters()))
    if gated:
        parts[pre + "mlp.gate"] = med.part_backward(d.wi_0, x, list(d.wi_0.parameters()))
        u = leaf(b, s, d.wo.in_features)
        parts[pre + "mlp.act"] = med.part_backward(lambda g: d.dropout(d.act(g) * u), xi, [u])
    else:
        parts[pre + "mlp.act"] = med.part_backward(lambda t: d.dropout(d.act(t)), xi, [])
    parts[pre + "mlp.down"] = med.part_backward(d.wo, xi, list(d.wo.parameters()))
    return parts


def bias_backward(attn, s):
    """compute_bias's backward into the relative_attention_bias table."""
    counter = med.Counter(lambda: ("all", ""))
    out = attn.compute_bias(s, s)
    with counter:
        torch.autograd.grad(out, [attn.relative_attention_bias.weight], torch.ones_like(out))
    return collections.Counter(counter.counts[("all", "")])


def t5_outside_parts(model, shapes, ids):
    b, s, h, v = shapes["b"], shapes["s"], shapes["h"], model.config.vocab_size
    x = torch.randn(b, s, h, dtype=torch.bfloat16, requires_grad=True)
    parts = {op: med.part_backward(n, x, list(n.parameters()))
             for op, n in (("encoder.final_norm", model.encoder.final_layer_norm),
                           ("final_norm", model.decoder.final_layer_norm))}
    parts["lm_head"] = med.part_backward(model.lm_head, x, [model.lm_head.weight])
    logits = torch.randn(b, s, v, dtype=torch.bfloat16, requires_grad=True)
    parts["loss"] = med.part_backward(
        lambda z: torch.nn.functional.cross_entropy(z.view(-1, v), ids.view(-1)), logits, [])
    parts["attn.bias"] = bias_backward(model.encoder.block[0].layer[0].SelfAttention, s)
    parts["dec.attn.bias"] = bias_backward(model.decoder.block[0].layer[0].SelfAttention, s)
    parts["dec.cross.bias"] = collections.Counter()  # zeros, no gradient
    return parts


T5_LAYER_KEYS = LAYER_KEYS + ("mlp.gate",)
T5_DEC_KEYS = tuple("dec." + k for k in T5_LAYER_KEYS) + (
    "dec.cross_norm", "dec.cross.q_proj", "dec.cross.k_proj", "dec.cross.v_proj", "dec.cross.core",
    "dec.cross.out_proj")
# What a stack's first block does beyond the others, in the core that does it.
T5_FIRST = {"attn.core": "attn.bias", "dec.attn.core": "dec.attn.bias", "dec.cross.core": "dec.cross.bias"}


def measure_t5(family, shapes, attn):
    ids, runs = depth_runs(t5_build, t5_op_of, family, shapes, attn)
    _, base, base_mods, _ = runs[(1, 1)]
    fwd, mods = {}, {}
    for deeper, keys in (((2, 1), T5_LAYER_KEYS), ((1, 2), T5_DEC_KEYS)):
        _, fwd2, mods2, _ = runs[deeper]
        for k in set(base) | set(fwd2):  # the first block's calls are the same in the deeper model
            if k.startswith("first."):
                assert base.get(k) == fwd2.get(k) and base_mods[k] == mods2[k], (family, attn, deeper, k)
        for k in keys:  # a block that is not the first: the deeper model's second
            if k not in fwd2 and "first." + k not in base:
                continue  # T5DenseActDense's missing wi_0
            fwd[k], mods[k] = collections.Counter(fwd2.get(k, {})), mods2[k]
            extra = collections.Counter(base.get("first." + k, {}))
            extra.subtract(fwd[k])
            extra_mods = base_mods["first." + k] - mods[k]
            if k in T5_FIRST:
                assert min(extra.values(), default=0) >= 0 and extra_mods >= 0, (family, attn, k)
                fwd[T5_FIRST[k]], mods[T5_FIRST[k]] = +extra, extra_mods
            else:
                assert not any(extra.values()) and extra_mods == 0, (family, attn, k, extra)
        # Outside the blocks: the 1+1 model's; calls of a stack that come once per block go to
        # the block's residual entry.
        pre = "dec." if deeper == (1, 2) else ""
        for k in base:
            if k.startswith("first.") or k in fwd:
                continue
            extra = collections.Counter(fwd2.get(k, {})) - base[k]
            assert not (base[k] - collections.Counter(fwd2.get(k, {}))), k
            if extra:
                fwd[pre + "residual"]["other"] += sum(extra.values())
            fwd.setdefault(k, collections.Counter(base[k]))
            mods.setdefault(k, base_mods[k])
    result = {op: {"fwd": {k: v for k, v in c.items() if v}, "modules": mods[op]} for op, c in fwd.items()}
    add_backward(result, runs, t5_layer_parts(runs[(2, 1)][0].encoder.block[1], False, shapes),
                 t5_layer_parts(runs[(1, 2)][0].decoder.block[1], True, shapes),
                 t5_outside_parts(runs[(1, 1)][0], shapes, ids))
    return result


def main():
    notes = rho.install_dropout_cuda_path()
    a = {"b": 2, "s": 64, "h": 128, "heads": 4, "ffn": 344}
    b = {"b": 3, "s": 48, "h": 96, "heads": 6, "ffn": 256}
    out = {"torch": torch.__version__, "transformers": transformers.__version__, "dtype": "bfloat16",
           "cuda_paths": notes, "families": {}}
    for name, family, attn in VARIANTS:
        how = measure_t5 if family.startswith("t5") else measure
        ma, mb = how(family, a, attn), how(family, b, attn)
        bad = [k for k in ma if med.differ(ma[k], mb.get(k)) > 0]
        if bad or ma.keys() != mb.keys():
            sys.exit(f"{name}: the two shapes disagree at " + ", ".join(bad))
        unknown = set(ma) - set(KINDS)
        if unknown:
            sys.exit(f"{name}: ops outside the table's kinds: " + ", ".join(sorted(unknown)))
        out["families"][name] = ma
    if "--cxx" in sys.argv:
        print(med.cxx(out, KINDS))
        return
    print(json.dumps(out, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
