#!/usr/bin/env python3
"""Host memory each rank uses while Hugging Face transformers' `from_pretrained` loads a
checkpoint under DeepSpeed ZeRO-2 and ZeRO-3, measured on the CPU.

What it does: builds a Llama model from a config (no download; ~220M parameters by default),
saves it with `save_pretrained` as bf16 safetensors in a temporary directory, then for each case
starts a fresh group of WS ranks (multiprocessing spawn, gloo on 127.0.0.1, RANK /
LOCAL_RANK / WORLD_SIZE / LOCAL_SIZE set as a launcher would, `deepspeed.init_distributed
(dist_backend="gloo")`, DS_ACCELERATOR=cpu). In each rank it keeps an `HfDeepSpeedConfig`
alive for the case's ZeRO stage (bf16 on, micro-batch 1, accumulation 1) and calls
`AutoModelForCausalLM.from_pretrained(dir)` (default dtype, i.e. "auto" = the checkpoint's bf16;
or dtype=torch.float32 for the "fp32" case). Around the call it reads /proc/self/status
(RssAnon, RssFile, VmRSS, VmHWM) and ru_maxrss before and after, and a background thread samples
RssAnon / RssFile / VmRSS every --poll-ms (5 ms) during the call to get the peak. A fresh process
group per case keeps VmHWM and ru_maxrss meaningful per case. It also records: the status after
malloc_trim(0) (what the allocator merely retains), after reading every weight once (when mmap'd
pages become resident), the bytes of the parameters (and, for ZeRO-3, of the state dict) that are
views of the mmap'd .safetensors file (/proc/self/maps), and, for ZeRO-3, the status at the end of
each loading phase (wrappers around transformers' load_state_dict and
_load_state_dict_into_zero3_model).

Cases: s2 (stage 2, dtype auto), s2fp32 (stage 2, dtype float32), s3 (stage 3, dtype auto),
and with --initialize also s2init / s3init (deepspeed.initialize with torch AdamW after the load,
memory recorded after it).

Output: one JSON line per (case, rank) on stdout with the parameter count, the checkpoint's bytes
(file size and params x bytes per parameter), the peak extra RssAnon over the before-value
during the load, the extra after, the same for VmRSS and RssFile, and the ratios of the extra
anonymous memory to params x checkpoint bytes per parameter. --out also writes them to a file.

HfDeepSpeedConfig needs accelerate, which the oracle venv lacks: put the copy that
scripts/check_tuned_config_hf.sh installs (build/hf-check/pylib, accelerate 1.15.0) on PYTHONPATH.
Run from the repo root (a case takes ~15-30 s on 2 vCPUs with the default model):

  DS_ACCELERATOR=cpu PYTHONPATH=build/hf-check/pylib /work/oracle/venv/bin/python \\
      scripts/measure_model_load.py --repeats 2 --out /tmp/model_load.jsonl
"""
import argparse
import gc
import json
import os
import resource
import shutil
import sys
import tempfile
import threading
import time

STATUS_KEYS = ("RssAnon", "RssFile", "RssShmem", "VmRSS", "VmHWM")


def proc_status():
    """The STATUS_KEYS fields of /proc/self/status, in bytes."""
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in STATUS_KEYS:
                out[key] = int(rest.split()[0]) * 1024
    return out


def maxrss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


class PeakPoller:
    """Samples /proc/self/status on a thread and keeps the maximum of each field."""

    def __init__(self, period_s):
        self.period_s = period_s
        self.peak = {}
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

        self.phases = []
        self._phase_peak = {}

    def _sample(self):
        s = proc_status()
        for k, v in s.items():
            if v > self.peak.get(k, -1):
                self.peak[k] = v
            if v > self._phase_peak.get(k, -1):
                self._phase_peak[k] = v
        self.samples += 1

    def mark(self, label, **extra):
        """Ends a phase: records the status now and the peak since the previous mark."""
        self._sample()
        self.phases.append(dict(label=label, now=proc_status(), peak=dict(self._phase_peak), **extra))
        self._phase_peak = {}

    def _run(self):
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.period_s)

    def __enter__(self):
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._sample()


def ds_config(stage):
    cfg = {
        "train_micro_batch_size_per_gpu": 1,
        "gradient_accumulation_steps": 1,
        "bf16": {"enabled": True},
        "zero_optimization": {"stage": stage},
        "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
    }
    if stage == 3:
        cfg["zero_optimization"]["stage3_param_persistence_threshold"] = 0
    return cfg


def safetensors_ranges():
    ranges = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5].endswith(".safetensors"):
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                ranges.append((lo, hi))
    return ranges


def file_backed_bytes(tensors):
    """Bytes of these tensors' storage that lie in a mapping of a .safetensors file (the
    mmap'd checkpoint itself, not a copy), from /proc/self/maps."""
    ranges = safetensors_ranges()
    total = 0
    for t in tensors:
        ptr = t.data_ptr()
        if any(lo <= ptr < hi for lo, hi in ranges):
            total += t.numel() * t.element_size()
    return total


def local_tensors(model):
    for p in model.parameters():
        t = getattr(p, "ds_tensor", None)
        yield p.data if t is None else t


def instrument_phases(poller_box):
    """Wraps the two ZeRO-3 loading steps of transformers' modeling_utils (load_state_dict of a
    checkpoint file, _load_state_dict_into_zero3_model) so the poller marks phase ends: model
    built (zero.Init + weight init), state dict read, weights copied into the partitions."""
    from transformers import modeling_utils as mu
    orig_lsd, orig_z3 = mu.load_state_dict, mu._load_state_dict_into_zero3_model

    def lsd(*args, **kw):
        poll = poller_box[0]
        if poll:
            poll.mark("build_model")
        sd = orig_lsd(*args, **kw)
        if poll:
            tensors = [v for v in sd.values() if hasattr(v, "data_ptr")]
            poll.mark("read_state_dict",
                      state_dict_bytes=sum(t.numel() * t.element_size() for t in tensors),
                      state_dict_file_backed_bytes=file_backed_bytes(tensors))
        return sd

    def z3(*args, **kw):
        out = orig_z3(*args, **kw)
        if poller_box[0]:
            poller_box[0].mark("copy_into_partitions")
        return out

    mu.load_state_dict, mu._load_state_dict_into_zero3_model = lsd, z3


def malloc_trim():
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass


def local_param_bytes(model):
    """Bytes of parameter storage this rank holds (ZeRO-3: its partition, ds_tensor)."""
    return sum(t.numel() * t.element_size() for t in local_tensors(model))


def rank_main(rank, a, case, ckpt, q):
    os.environ.update({
        "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(a.world_size),
        "LOCAL_SIZE": str(a.world_size), "LOCAL_WORLD_SIZE": str(a.world_size),
        "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(a.port), "DS_ACCELERATOR": "cpu",
    })
    import torch
    torch.set_num_threads(1)
    import deepspeed
    import transformers
    from transformers import AutoModelForCausalLM
    from transformers.integrations import HfDeepSpeedConfig, is_deepspeed_zero3_enabled
    transformers.logging.set_verbosity_error()
    deepspeed.init_distributed(dist_backend="gloo")
    dist = torch.distributed

    stage = case["stage"]
    cfg = ds_config(stage)
    dschf = HfDeepSpeedConfig(cfg)  # noqa: F841  kept alive: is_deepspeed_zero3_enabled reads it
    zero3 = is_deepspeed_zero3_enabled()
    kwargs = {}
    if case["dtype"] == "float32":
        kwargs["dtype"] = torch.float32

    poller_box = [None]
    instrument_phases(poller_box)
    gc.collect()
    dist.barrier()
    before = proc_status()
    before_maxrss = maxrss_bytes()
    t0 = time.perf_counter()
    with PeakPoller(a.poll_ms / 1000.0) as poll:
        poller_box[0] = poll
        model = AutoModelForCausalLM.from_pretrained(ckpt["dir"], **kwargs)
        poll.mark("rest_of_from_pretrained")
        poller_box[0] = None
    load_s = time.perf_counter() - t0
    gc.collect()
    after = proc_status()
    after_maxrss = maxrss_bytes()
    first = next(model.parameters())
    model_dtype = str(first.dtype).replace("torch.", "")
    held = local_param_bytes(model)
    mapped = file_backed_bytes(list(local_tensors(model)))
    malloc_trim()
    trimmed = proc_status()
    with torch.no_grad():  # read every weight once, as a first forward would
        for t in local_tensors(model):
            t.sum()
    touched = proc_status()

    init = None
    if case.get("initialize"):
        dist.barrier()
        t1 = time.perf_counter()
        with PeakPoller(a.poll_ms / 1000.0) as ipoll:
            engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                                   config=cfg)
        gc.collect()
        ia = proc_status()
        init = {"init_s": round(time.perf_counter() - t1, 2),
                "init_peak_extra_anon": ipoll.peak["RssAnon"] - before["RssAnon"],
                "init_after_extra_anon": ia["RssAnon"] - before["RssAnon"],
                "init_after_extra_vmrss": ia["VmRSS"] - before["VmRSS"]}
        del engine

    unit = ckpt["params"] * ckpt["bytes_per_param"]
    rec = {
        "case": case["name"], "stage": stage, "rank": rank, "world_size": a.world_size,
        "zero3_enabled": zero3, "load_dtype": case["dtype"], "model_dtype": model_dtype,
        "params": ckpt["params"], "ckpt_bytes_per_param": ckpt["bytes_per_param"],
        "ckpt_param_bytes": unit, "ckpt_file_bytes": ckpt["file_bytes"],
        "local_param_bytes_after": held, "file_backed_param_bytes": mapped,
        "after_trim_extra_anon": trimmed["RssAnon"] - before["RssAnon"],
        "touched_extra_anon": touched["RssAnon"] - before["RssAnon"],
        "touched_extra_file": touched["RssFile"] - before["RssFile"],
        "before": before, "after": after, "peak": poll.peak, "poll_samples": poll.samples,
        "before_maxrss": before_maxrss, "after_maxrss": after_maxrss,
        "peak_extra_anon": poll.peak["RssAnon"] - before["RssAnon"],
        "after_extra_anon": after["RssAnon"] - before["RssAnon"],
        "peak_extra_file": poll.peak["RssFile"] - before["RssFile"],
        "after_extra_file": after["RssFile"] - before["RssFile"],
        "peak_extra_vmrss": poll.peak["VmRSS"] - before["VmRSS"],
        "after_extra_vmrss": after["VmRSS"] - before["VmRSS"],
        "hwm_extra": after["VmHWM"] - before["VmHWM"],
        "maxrss_extra": after_maxrss - before_maxrss,
        "load_s": round(load_s, 2),
        "phases": [dict(ph, now_extra_anon=ph["now"]["RssAnon"] - before["RssAnon"],
                        peak_extra_anon=ph["peak"]["RssAnon"] - before["RssAnon"],
                        peak_extra_file=ph["peak"]["RssFile"] - before["RssFile"])
                   for ph in poll.phases],
    }
    rec["ratio_peak_anon"] = round(rec["peak_extra_anon"] / unit, 3)
    rec["ratio_after_anon"] = round(rec["after_extra_anon"] / unit, 3)
    rec["ratio_peak_vmrss"] = round(rec["peak_extra_vmrss"] / unit, 3)
    rec["ratio_local_params"] = round(held / unit, 3)
    if init:
        rec.update(init)
        rec["ratio_init_peak_anon"] = round(init["init_peak_extra_anon"] / unit, 3)
        rec["ratio_init_after_anon"] = round(init["init_after_extra_anon"] / unit, 3)
    q.put(rec)
    dist.barrier()
    dist.destroy_process_group()


def build_checkpoint(a, path):
    """Saves a random bf16 Llama as safetensors in `path` from a child process (so this parent
    stays small: a spawned rank starts with ru_maxrss inherited from it); returns its
    description."""
    import multiprocessing as mp
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_build_checkpoint, args=(a, path, q))
    p.start()
    desc = q.get(timeout=a.case_timeout)
    p.join()
    return desc


def _build_checkpoint(a, path, q):
    import torch
    import transformers
    cfg = transformers.LlamaConfig(
        hidden_size=a.hidden, intermediate_size=a.intermediate, num_hidden_layers=a.layers,
        num_attention_heads=a.heads, num_key_value_heads=a.heads, vocab_size=a.vocab,
        tie_word_embeddings=False, pad_token_id=None, dtype="bfloat16")
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg).to(torch.bfloat16)
    params = sum(p.numel() for p in model.parameters())
    model.save_pretrained(path, safe_serialization=True)
    del model
    gc.collect()
    files = [f for f in os.listdir(path) if f.endswith(".safetensors")]
    q.put({"dir": path, "params": params, "bytes_per_param": 2, "files": sorted(files),
            "file_bytes": sum(os.path.getsize(os.path.join(path, f)) for f in files)})


def run_case(a, case, ckpt):
    import multiprocessing as mp  # not torch.multiprocessing: the parent stays without torch
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=rank_main, args=(r, a, case, ckpt, q)) for r in range(a.world_size)]
    for p in procs:
        p.start()
    recs = []
    deadline = time.time() + a.case_timeout
    while len(recs) < a.world_size and time.time() < deadline:
        try:
            recs.append(q.get(timeout=1.0))
        except Exception:
            if any(p.exitcode not in (None, 0) for p in procs):
                break
    for p in procs:
        p.join(timeout=30)
        if p.is_alive():
            p.kill()
            p.join()
    if len(recs) < a.world_size:
        raise SystemExit(f"case {case['name']}: {len(recs)}/{a.world_size} ranks reported "
                         f"(exit codes {[p.exitcode for p in procs]})")
    a.port += 1
    return sorted(recs, key=lambda r: r["rank"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--world-size", type=int, default=2)
    ap.add_argument("--port", type=int, default=29611)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--intermediate", type=int, default=2816)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--repeats", type=int, default=1, help="runs of every case")
    ap.add_argument("--cases", default="s2,s2fp32,s3", help="comma list of s2,s2fp32,s3,s3fp32")
    ap.add_argument("--initialize", action="store_true",
                    help="also run s2init/s3init: deepspeed.initialize after the load")
    ap.add_argument("--poll-ms", type=float, default=5.0)
    ap.add_argument("--case-timeout", type=float, default=300.0)
    ap.add_argument("--out", help="also write the JSON lines here")
    a = ap.parse_args()
    os.environ.setdefault("DS_ACCELERATOR", "cpu")

    all_cases = {
        "s2": {"stage": 2, "dtype": "auto"}, "s2fp32": {"stage": 2, "dtype": "float32"},
        "s3": {"stage": 3, "dtype": "auto"}, "s3fp32": {"stage": 3, "dtype": "float32"},
        "s2init": {"stage": 2, "dtype": "auto", "initialize": True},
        "s3init": {"stage": 3, "dtype": "auto", "initialize": True},
    }
    names = a.cases.split(",") + (["s2init", "s3init"] if a.initialize else [])
    tmp = tempfile.mkdtemp(prefix="zerosim_model_load_")
    out = open(a.out, "w") if a.out else None
    try:
        ckpt = build_checkpoint(a, tmp)
        print(json.dumps({"checkpoint": ckpt}), flush=True)
        for rep in range(a.repeats):
            for name in names:
                case = dict(all_cases[name], name=name)
                for rec in run_case(a, case, ckpt):
                    rec["repeat"] = rep
                    line = json.dumps(rec, sort_keys=True)
                    print(line, flush=True)
                    if out:
                        out.write(line + "\n")
                        out.flush()
    finally:
        if out:
            out.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
