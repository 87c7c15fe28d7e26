#!/usr/bin/env python3
"""Real DeepSpeed training of HF GPT-2 on one GPU, to hold `zerosim simulate` against.

Trains transformers' GPT2LMHeadModel (GPT-2 124M or 350M shapes, no dropout, SDPA attention)
on seeded random tokens through deepspeed.initialize with a client torch.optim.AdamW (the
config's own optimizer, DeepSpeedCPUAdam, when it offloads the optimizer) and the given
ds_config (its bf16/fp16 and ZeRO settings), as one process without a launcher. Prints
one JSON object on stdout, shaped like bench/pytorch_gpt2_baseline.py's: the median step time
after the warmup, tokens/s, and the peak GPU memory of the whole run
(torch.cuda.max_memory_allocated / max_memory_reserved). Everything else goes to stderr.

Usage (on the GPU machine, deepspeed installed; scripts/deepspeed_gpu.sh runs all stages):
  python3 bench/deepspeed_gpt2.py --config bench/configs/deepspeed_gpu/stage2_bf16.json \
      --model gpt2 --micro-batch 8 --seq-len 1024 --steps 12 --warmup 2
"""
import argparse
import json
import os
import statistics
import sys
import time

# DeepSpeed's logger writes to stdout and NCCL or a JIT build may print there too: keep a
# private handle on the real stdout for the one JSON object and point fd 1 at stderr before
# anything is imported.
RESULT_OUT = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)

import torch  # noqa: E402

SHAPES = {  # layers, hidden, heads (openai-community configs)
    "gpt2": (12, 768, 12),
    "gpt2-medium": (24, 1024, 16),
}
VOCAB = 50257
POSITIONS = 1024


def offloads_optimizer(cfg):
    off = cfg.get("zero_optimization", {}).get("offload_optimizer") or {}
    return off.get("device", "none") in ("cpu", "nvme")


def load_config(path, micro_batch):
    with open(path) as f:
        cfg = json.load(f)
    # zerosim's configs may name an optimizer; the client AdamW below replaces it, so that
    # DeepSpeed does not JIT-compile FusedAdam (minutes of nvcc on a machine with no time to
    # spare). With the optimizer offloaded, the config's is kept: DeepSpeed then builds
    # DeepSpeedCPUAdam (runtime/engine.py _configure_basic_optimizer; a client torch optimizer
    # is refused unless zero_force_ds_cpu_optimizer is false), JIT-compiling its C++ op (CPU
    # only, no nvcc) on first use.
    if not offloads_optimizer(cfg):
        cfg.pop("optimizer", None)
    # The data below is shaped by --micro-batch: make DeepSpeed count the same batch.
    cfg["train_micro_batch_size_per_gpu"] = micro_batch
    cfg.pop("train_batch_size", None)
    cfg["zero_allow_untested_optimizer"] = True
    cfg.setdefault("steps_per_print", 1 << 30)
    cfg.setdefault("wall_clock_breakdown", False)
    return cfg


def precision(cfg):
    if cfg.get("bf16", {}).get("enabled"):
        return "bf16"
    if cfg.get("fp16", {}).get("enabled"):
        return "fp16"
    return "fp32"


def trace_steps(engine, batches, path, steps=2):
    """Where a step's time goes: the host's own time (Python, dispatch, DeepSpeed's hooks) against
    the GPU's kernels, from torch.profiler over `steps` more steps. The measured steps above are
    not profiled (the profiler slows the host). None, with the error on stderr, if it fails."""
    try:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(steps):
                for x in batches:
                    loss = engine(input_ids=x, labels=x).loss
                    engine.backward(loss)
                    engine.step()
            torch.cuda.synchronize()
            wall_s = (time.perf_counter() - t0) / steps
        events = prof.key_averages()
        # Host: the time inside the ops the profiler saw (Python between them is not in it).
        cpu_s = sum(e.self_cpu_time_total for e in events) * 1e-6 / steps
        dev_s = sum(getattr(e, "self_device_time_total", None) or
                    getattr(e, "self_cuda_time_total", 0) for e in events) * 1e-6 / steps
        ops = sum(e.count for e in events) / steps
        with open(path, "w") as f:
            f.write(f"per step: {wall_s * 1e3:.2f} ms wall under the profiler, host time inside "
                    f"ops {cpu_s * 1e3:.2f} ms, device kernels {dev_s * 1e3:.2f} ms, "
                    f"{ops:.0f} profiled host ops\n\n")
            f.write(events.table(sort_by="self_cpu_time_total", row_limit=40))
        return {"steps": steps, "wall_s_per_step_profiled": wall_s,
                "host_in_ops_s_per_step": cpu_s, "device_s_per_step": dev_s,
                "host_ops_per_step": ops}
    except Exception as e:  # the measurement above stands without it
        print(f"trace failed: {e!r}", file=sys.stderr)
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True, help="ds_config.json")
    ap.add_argument("--model", default="gpt2", choices=sorted(SHAPES))
    ap.add_argument("--micro-batch", type=int, default=8)
    ap.add_argument("--seq-len", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--warmup", type=int, default=2, help="steps left out of the median")
    ap.add_argument("--lr", type=float, default=6e-4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--trace", help="after the timed steps, profile two more with torch.profiler "
                    "and write the host and device time per step and the top ops to this file")
    a = ap.parse_args()

    # One process, no launcher: give torch.distributed the env a launcher would.
    for k, v in (("MASTER_ADDR", "127.0.0.1"), ("MASTER_PORT", "29511"), ("RANK", "0"),
                 ("LOCAL_RANK", "0"), ("WORLD_SIZE", "1")):
        os.environ.setdefault(k, v)

    import deepspeed
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = load_config(a.config, a.micro_batch)
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    deepspeed.init_distributed(dist_backend="nccl")
    torch.manual_seed(a.seed)

    layers, h, heads = SHAPES[a.model]
    mcfg = GPT2Config(vocab_size=VOCAB, n_positions=POSITIONS, n_embd=h, n_layer=layers,
                      n_head=heads, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                      use_cache=False,  # training: no KV cache to allocate
                      attn_implementation="sdpa")
    model = GPT2LMHeadModel(mcfg)
    model.train()
    # Counted before initialize: ZeRO-3 partitions the parameters (numel 0 afterwards).
    # parameters() yields the tied wte/lm_head weight once.
    params = sum(p.numel() for p in model.parameters())
    if "optimizer" in cfg:  # offloaded: DeepSpeed's own (DeepSpeedCPUAdam)
        opt = None
        engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                               config=cfg)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.95), eps=1e-8,
                                weight_decay=0.0, fused=False)
        engine, _, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=cfg)
    gas = engine.gradient_accumulation_steps()

    dev = engine.device
    # All batches made up front so that the timed steps hold no data generation.
    gen = torch.Generator().manual_seed(a.seed)
    data = torch.randint(0, VOCAB, (a.steps, gas, a.micro_batch, a.seq_len), generator=gen)
    data = data.to(dev)

    times, losses = [], []
    for step in range(a.steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for micro in range(gas):
            x = data[step, micro]
            loss = engine(input_ids=x, labels=x).loss
            engine.backward(loss)
            engine.step()  # steps the optimizer at the last micro-step only
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
        print(f"step {step}: {times[-1] * 1e3:.1f} ms, loss {losses[-1]:.4f}", file=sys.stderr)

    profile = trace_steps(engine, data[-1], a.trace) if a.trace else None

    timed = times[a.warmup:] or times
    step_s = statistics.median(timed)
    tokens = a.micro_batch * a.seq_len * gas
    result = {
        "backend": f"deepspeed {deepspeed.__version__} torch {torch.__version__}",
        "device": torch.cuda.get_device_name(),
        "model": {"name": a.model, "params": params},
        "batch": {"micro_batch_per_gpu": a.micro_batch, "gradient_accumulation_steps": gas},
        "seq_len": a.seq_len,
        "zero_stage": engine.zero_optimization_stage(),
        "precision": precision(cfg),
        "optimizer": type(engine.optimizer).__name__ + (
            " over client torch.optim.AdamW" if opt is not None else " over DeepSpeed's "
            + type(getattr(engine.optimizer, "optimizer", engine.optimizer)).__name__),
        "time": {"step_s": step_s, "steps_s": times},
        "throughput": {"tokens_per_s": tokens / step_s},
        "memory": {"gpu": {"peak_bytes": torch.cuda.max_memory_allocated(),
                           "reserved_bytes": torch.cuda.max_memory_reserved()}},
        "losses": losses,
    }
    if profile:
        result["profile"] = profile
    RESULT_OUT.write(json.dumps(result, indent=2) + "\n")
    RESULT_OUT.flush()
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
