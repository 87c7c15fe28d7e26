#!/usr/bin/env python3
"""The PyTorch reference for `zerosim run`: trains the same GPT-2 on the same GPU.

Same model (GPT-2 124M or 350M shapes, tied embeddings, no dropout, tanh GELU), same batch,
sequence length and precision (bf16 autocast over fp32 master weights, AdamW fused, gradient
clipping 1.0), on byte-level tokens of a text file or seeded random tokens, as `zerosim run
--backend cuda` trains it. Prints one JSON object with the measured tokens/s, TFLOP/s, MFU and
peak memory (torch.cuda.max_memory_allocated / reserved). The comparison the issue asks for is
the ratio of tokens/s; TFLOP/s and MFU here use the usual count (3 x the forward FLOPs:
2 N per token for the matmuls, the tied LM head included, plus 4 L s h per token for the
attention core, causal masking not discounted), close to but not identical with zerosim's
per-op count (models/op_costs.h adds the elementwise ops).

Usage (on the GPU machine, PyTorch installed):
  python3 bench/pytorch_gpt2_baseline.py --model gpt2 --micro-batch 8 --seq-len 1024 \
      --steps 30 [--grad-accum 1] [--data FILE] [--compile] [--peak-tflops 989]
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

SHAPES = {  # layers, hidden, heads (openai-community configs)
    "gpt2": (12, 768, 12),
    "gpt2-medium": (24, 1024, 16),
}
VOCAB = 50257
POSITIONS = 1024


class Block(nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(h)
        self.attn = nn.Linear(h, 3 * h)
        self.proj = nn.Linear(h, h)
        self.ln_2 = nn.LayerNorm(h)
        self.fc = nn.Linear(h, 4 * h)
        self.fc_proj = nn.Linear(4 * h, h)
        self.heads = heads

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.attn(self.ln_1(x)).split(h, dim=2)
        shape = (b, s, self.heads, h // self.heads)
        q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, s, h))
        return x + self.fc_proj(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))


class Gpt2(nn.Module):
    def __init__(self, layers, h, heads):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, h)
        self.wpe = nn.Embedding(POSITIONS, h)
        self.blocks = nn.ModuleList(Block(h, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(h)
        self.lm_head = nn.Linear(h, VOCAB, bias=False)
        self.lm_head.weight = self.wte.weight  # tied, as GPT-2
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif p.dim() >= 2:
                std = 0.02 / math.sqrt(2 * layers) if name.endswith(("proj.weight",)) else 0.02
                nn.init.normal_(p, 0.0, std)

    def forward(self, idx, targets):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.lm_head(self.ln_f(x)).float()
        return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))


def forward_flops(layers, h, s, params):
    """Forward FLOPs per token: 2 N for the matmuls (the tied LM head counted once in N, used
    twice: embedding lookups cost no FLOPs), plus the attention core 4 s h per layer (QK^T and
    PV), no causal discount."""
    return 2 * params + 4 * layers * s * h


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="gpt2", choices=sorted(SHAPES))
    ap.add_argument("--micro-batch", type=int, default=8)
    ap.add_argument("--grad-accum", type=int, default=1)
    ap.add_argument("--seq-len", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5, help="steps left out of the timing")
    ap.add_argument("--lr", type=float, default=6e-4)
    ap.add_argument("--data", help="train on this file's bytes (default: random tokens)")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model")
    ap.add_argument("--peak-tflops", type=float, default=989.0,
                    help="dense bf16 peak of the GPU for MFU (H100 SXM: 989)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    dev = torch.device("cuda")
    layers, h, heads = SHAPES[a.model]
    model = Gpt2(layers, h, heads).to(dev)
    params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.95), weight_decay=0.0,
                            fused=True)
    step_model = torch.compile(model) if a.compile else model
    if a.data:
        data = torch.tensor(list(open(a.data, "rb").read()), dtype=torch.long)
    else:
        data = torch.randint(0, VOCAB, (1 << 22,))
    tokens = a.micro_batch * a.seq_len
    cursor = 0

    def batch():
        nonlocal cursor
        rows = []
        for _ in range(a.micro_batch):
            if cursor + a.seq_len + 1 > len(data):
                cursor = 0
            rows.append(data[cursor:cursor + a.seq_len + 1])
            cursor += a.seq_len
        t = torch.stack(rows).to(dev, non_blocking=True)
        return t[:, :-1], t[:, 1:]

    times, losses = [], []
    for step in range(a.steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(a.grad_accum):
            x, y = batch()
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = step_model(x, y) / a.grad_accum
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item() * a.grad_accum)
    timed = times[a.warmup:] or times
    step_s = sum(timed) / len(timed)
    tok_s = tokens * a.grad_accum / step_s
    flops = 3 * forward_flops(layers, h, a.seq_len, params) * tokens * a.grad_accum
    print(json.dumps({
        "backend": "pytorch " + torch.__version__,
        "device": torch.cuda.get_device_name(),
        "model": {"name": a.model, "params": params},
        "batch": {"micro_batch_per_gpu": a.micro_batch,
                  "gradient_accumulation_steps": a.grad_accum},
        "seq_len": a.seq_len,
        "compiled": a.compile,
        "time": {"step_s": step_s},
        "throughput": {"tokens_per_s": tok_s, "tflops_per_gpu": flops / step_s / 1e12,
                       "mfu": flops / step_s / (a.peak_tflops * 1e12)},
        "memory": {"gpu": {"peak_bytes": torch.cuda.max_memory_allocated(),
                           "reserved_bytes": torch.cuda.max_memory_reserved()}},
        "losses": losses,
    }, indent=2))


if __name__ == "__main__":
    main()
