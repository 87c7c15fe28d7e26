#!/usr/bin/env python3
"""What autograd keeps of one attention module's eager core, per attention score (b x a x s x s).

Runs transformers' GPT2Attention and LlamaAttention (bf16, training mode, eager attention, 4
heads of 32, b = 2, s = 256) under torch.autograd.graph.saved_tensors_hooks and prints, per
module, the bytes of every distinct saved storage divided by the number of scores, and the
score-sized tensors among them (dtype, bytes per score). models/op_graph.cc's saved tensors of
attn.core follow it: GPT-2's softmax keeps its bf16 output (2 bytes a score); Llama's and its
copies' softmax(..., dtype=torch.float32).to(query.dtype) keeps the fp32 output (4) and P.V the
bf16 cast (2).

Run with the oracle's Python:
  python scripts/measure_attention_saved.py > results/measurements/2026-12-05-attention-saved.txt
"""
import torch
from transformers import GPT2Config, LlamaConfig
from transformers.masking_utils import create_causal_mask
from transformers.models.gpt2.modeling_gpt2 import GPT2Attention
from transformers.models.llama.modeling_llama import LlamaAttention, LlamaRotaryEmbedding

B, S, H, HEADS = 2, 256, 128, 4


def saved_storages(fn):
    seen = {}

    def pack(t):
        seen[t.untyped_storage().data_ptr()] = (t.untyped_storage().nbytes(), t.dtype, tuple(t.shape))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return seen.values()


def report(name, storages):
    scores = B * HEADS * S * S
    total = sum(n for n, _, _ in storages) / scores
    big = sorted((n / scores, str(dtype), shape) for n, dtype, shape in storages if n >= scores)
    print(f"{name}: {total:.3f} bytes saved per score; score-sized: {big}")


def main():
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, bf16, eager attention, b={B}, s={S}, hidden={H}, heads={HEADS}")
    x = torch.randn(B, S, H, dtype=torch.bfloat16, requires_grad=True)
    pos = torch.arange(S)[None].expand(B, -1)

    g = GPT2Config(n_embd=H, n_head=HEADS, n_layer=1, n_positions=S, attn_pdrop=0.0, resid_pdrop=0.0)
    g._attn_implementation = "eager"
    gpt2 = GPT2Attention(g, layer_idx=0).to(torch.bfloat16).train()
    gmask = create_causal_mask(config=g, inputs_embeds=x, attention_mask=torch.ones(B, S),
                               past_key_values=None, position_ids=pos)
    report("GPT2Attention", saved_storages(lambda: gpt2(x, attention_mask=gmask)))

    c = LlamaConfig(hidden_size=H, num_attention_heads=HEADS, num_key_value_heads=HEADS,
                    intermediate_size=256, num_hidden_layers=1, vocab_size=100, max_position_embeddings=S)
    c._attn_implementation = "eager"
    llama = LlamaAttention(c, 0).to(torch.bfloat16).train()
    cos, sin = LlamaRotaryEmbedding(c)(x, pos)
    mask = create_causal_mask(config=c, inputs_embeds=x, attention_mask=torch.ones(B, S),
                              past_key_values=None, position_ids=pos)
    report("LlamaAttention", saved_storages(lambda: llama(x, attention_mask=mask,
                                                         position_embeddings=(cos, sin))))


if __name__ == "__main__":
    main()
