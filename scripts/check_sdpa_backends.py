#!/usr/bin/env python3
"""Which SDPA backend PyTorch picks on this GPU for the attention shapes zerosim prices as fused,
and what autograd keeps of it.

zerosim prices scaled_dot_product_attention as one fused kernel that keeps q, k, v and the
softmax statistics. Two families call it with shapes the CPU's flash kernel refuses, so the
CPU measurements (scripts/measure_eager_dispatch.py, measure_eager_kernels.py) reshape them and
this GPU check says whether that is what CUDA does:
  - Falcon-7B: 71 query heads, one key/value head (multi-query), no enable_gqa
    (modeling_falcon.py FalconAttention); the CPU falls back to the math path (fp32 copies and
    the score matrix kept: about 4 bytes a score more).
  - DeepSeek-V2/V3: a query/key head dim of 192 and a value head dim of 128
    (modeling_deepseek_v2.py DeepseekV2Attention).
  - T5: the relative position bias (1 x heads x s x s) as a float mask that takes a gradient
    (integrations/sdpa_attention.py create_position_bias_mask); the CPU falls back to the math
    path, the measurements take CUDA's memory-efficient kernel (scripts/record_host_ops.py
    trainable_mask_as_cuda).
For each shape: whether each fused backend alone accepts it (torch.nn.attention.sdpa_kernel),
the kernels the default choice launches forward and backward (torch.profiler), and the bytes
autograd saves per attention score (saved-tensor hooks).

Needs only PyTorch and a CUDA device. scripts/gpu_evidence.sh runs it:
  python3 scripts/check_sdpa_backends.py > sdpa_backends.json
"""
import json
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile

# name: (batch, query heads, key/value heads, sequence, query/key head dim, value head dim, a
# trainable bias instead of the causal mask)
SHAPES = {
    "falcon7b_mqa": (1, 71, 1, 2048, 64, 64, False),
    "deepseek_mla": (1, 16, 16, 2048, 192, 128, False),
    "t5_trainable_bias": (2, 16, 16, 512, 64, 64, True),
    "llama_mha_reference": (1, 32, 32, 2048, 128, 128, False),
}
BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
            "cudnn": SDPBackend.CUDNN_ATTENTION, "math": SDPBackend.MATH}


def tensors(b, hq, hkv, s, dqk, dv, bias):
    def t(*shape):
        return torch.randn(*shape, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    return t(b, hq, s, dqk), t(b, hkv, s, dqk), t(b, hkv, s, dv), t(1, hq, s, s) if bias else None


def attention(q, k, v, bias):
    if bias is None:
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)


def run(q, k, v, bias):
    attention(q, k, v, bias).sum().backward()
    torch.cuda.synchronize()


def saved_bytes(q, k, v, bias):
    seen = {}

    def pack(x):
        seen[x.untyped_storage().data_ptr()] = x.untyped_storage().nbytes()
        return x

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
        out = attention(q, k, v, bias)
    out.sum().backward()
    return sum(seen.values())


def check(shape):
    b, hq, hkv, s, dqk, dv, bias = shape
    result = {"shape": {"batch": b, "query_heads": hq, "kv_heads": hkv, "seq": s, "qk_head_dim": dqk,
                        "v_head_dim": dv, "trainable_bias": bias}, "accepts": {}}
    for name, backend in BACKENDS.items():
        try:
            with sdpa_kernel([backend]):
                run(*tensors(*shape))
            result["accepts"][name] = True
        except RuntimeError as e:
            result["accepts"][name] = str(e).splitlines()[0][:200]
    q, k, v, mask = tensors(*shape)
    run(q, k, v, mask)  # warm-up
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        run(q, k, v, mask)
    result["aten_ops"] = sorted({e.name for e in prof.events()
                                 if e.name.startswith("aten::") and "attention" in e.name})
    result["cuda_kernels"] = sorted({e.name[:120] for e in prof.events()
                                     if e.device_type == torch.autograd.DeviceType.CUDA})[:40]
    result["saved_bytes_per_score"] = saved_bytes(*tensors(*shape)) / (b * hq * s * s)
    return result


def main():
    if not torch.cuda.is_available():
        sys.exit("check_sdpa_backends.py: no CUDA device")
    out = {"torch": torch.__version__, "cuda": torch.version.cuda,
           "cudnn": torch.backends.cudnn.version(), "device": torch.cuda.get_device_name(),
           "shapes": {name: check(shape) for name, shape in SHAPES.items()}}
    print(json.dumps(out, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
