#!/usr/bin/env python3
"""time_host_phases.py - how long REAL DeepSpeed's host side takes per phase of each micro-step, on this
machine's CPU, for the cases that scripts/record_host_ops.py counts (same models, configs, launch and
CUDA-path emulation; imported from it). Times, not counts: use with the recordings in
tests/plan/oracle/host_ops/ to calibrate the host cost per call of each kind of host work.

WHAT IS TIMED (rank 0 and the last rank; per micro-step, per optimizer step after warm-up)
  forward = engine(input_ids, labels, use_cache=False), backward = engine.backward(loss), step = engine.step()
  wall_ns     time.perf_counter_ns around the phase
  cpu_ns      time.thread_time_ns of the main thread (wall >> cpu outside collectives = preempted)
  coll_ns     wall time inside collectives during the phase: outermost deepspeed.comm API calls (every
              deepspeed module's reference wrapped, as record_host_ops.install_comm does) plus
              torch Work.wait() of async handles made outside such a call. host = wall - coll.
  c10d_ns     of which inside the torch.distributed call (the rest of coll_ns is deepspeed.comm's Python)
  wait_ns     of which in Work.wait()
  gc_ns       Python garbage collection during the phase (gc.callbacks)
  n_coll      collective calls (outermost DS calls + Work.wait outside them), to show what ws=1 skips
Nothing else is installed: no dispatch mode, no sys.setprofile, no Tensor.to counters. The CUDA-path
emulation of record_host_ops is kept (accelerator answers like CUDA, no-op Stream/Event, native_dropout,
SDPA dropout_p=0) but its per-method counting wrappers on the accelerator class are removed again.

UNITS (each rank, after init_distributed and a barrier, before the model is built; ws=2: both ranks at once)
  ns per call, median and min of 20 batches: torch.add on two 1-element fp32 / bf16 tensors (1000 calls
  per batch), Tensor.add_ fp32, nn.Identity()(x) vs the bare expression x, a Python function call,
  an empty loop iteration; matmul [1,128]x[128,128] and [64,128]x[128,128] in bf16 and fp32 (100 per batch).

RUN (one case at a time, niced; the oracle venv)
    export DS_ACCELERATOR=cpu TORCH_EXTENSIONS_DIR=/work/oracle/torch_ext
    nice -n 5 /work/oracle/venv/bin/python scripts/time_host_phases.py --matrix --world-sizes 1,2
  --matrix runs every case of record_host_ops' matrix at each world size in a fresh interpreter, GA 1
  cases (and the extras) first, then GPT-2 GA 3, then the other GA 3 cases, and stops starting new cases
  after --budget-min minutes. Per-case results go to --parts (resumable with --skip-existing);
  the JSON and markdown report are assembled at the end (or with --assemble).
  Before each case: if the 1-min load average is > 1.5, wait (up to 60 s) until it drops, unless the
  CPUs were idle over the last 2 s (the load average is then the previous case's own residue).
"""
import argparse
import datetime
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

os.environ.setdefault("DS_ACCELERATOR", "cpu")
os.environ.setdefault("TORCH_EXTENSIONS_DIR", "/work/oracle/torch_ext")

HERE = os.path.abspath(__file__)
SCRIPTS = os.path.dirname(HERE)
REPO = os.path.dirname(SCRIPTS)
sys.path.insert(0, SCRIPTS)
import record_host_ops as rho  # noqa: E402

SCHEMA = "zerosim.host_times.v1"
DEFAULT_JSON = os.path.join(REPO, "reports", "measurements", "2026-11-28-deepspeed-host-times.json")
DEFAULT_MD = os.path.join(REPO, "reports", "measurements", "2026-11-28-deepspeed-host-times.md")
DEFAULT_PARTS = "/tmp/zerosim_host_times_parts"
PHASES = ("forward", "backward", "step")
FIELDS = ("wall_ns", "cpu_ns", "coll_ns", "c10d_ns", "wait_ns", "gc_ns", "n_coll", "n_wait")

# ---------------------------------------------------------------------------------------------
# In the rank: collective / gc timers
# ---------------------------------------------------------------------------------------------


class _Acc:
    __slots__ = ("depth", "c10d_depth", "coll_ns", "c10d_ns", "wait_ns", "gc_ns", "gc_t0", "n_coll", "n_wait")

    def __init__(self):
        self.depth = 0
        self.c10d_depth = 0
        self.gc_t0 = 0
        self.reset()

    def reset(self):
        self.coll_ns = self.c10d_ns = self.wait_ns = self.gc_ns = 0
        self.n_coll = self.n_wait = 0


A = _Acc()
_pc = time.perf_counter_ns

C10D_OPS = ("all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "_all_gather_base",
            "reduce_scatter", "reduce_scatter_tensor", "_reduce_scatter_base", "all_reduce_coalesced",
            "all_gather_coalesced", "all_to_all", "all_to_all_single", "barrier", "monitored_barrier", "send",
            "recv", "isend", "irecv", "gather", "scatter", "broadcast_object_list", "all_gather_object")


def install_comm_timers():
    """Time the outermost deepspeed.comm calls (references in every deepspeed module replaced, as
    record_host_ops.install_comm), torch.distributed's collectives inside them, and Work.wait()."""
    import deepspeed  # noqa: F401
    import deepspeed.comm.comm as dcomm
    import torch
    import torch.distributed as tdist
    for m in ("deepspeed.runtime.engine", "deepspeed.runtime.zero.stage_1_and_2", "deepspeed.runtime.zero.stage3",
              "deepspeed.runtime.zero.partition_parameters", "deepspeed.runtime.zero.partitioned_param_coordinator",
              "deepspeed.runtime.comm.coalesced_collectives", "deepspeed.runtime.utils",
              "deepspeed.runtime.bf16_optimizer", "deepspeed.runtime.fp16.unfused_optimizer",
              "deepspeed.runtime.zero.parameter_offload"):
        try:
            __import__(m)
        except Exception:
            pass

    def mk_ds(fn):

        def w(*a, **k):
            if A.depth:
                return fn(*a, **k)
            A.depth = 1
            t0 = _pc()
            try:
                return fn(*a, **k)
            finally:
                A.coll_ns += _pc() - t0
                A.n_coll += 1
                A.depth = 0

        w.__name__ = getattr(fn, "__name__", "w")
        w.__wrapped__ = fn
        return w

    originals = {}
    for op in rho.DS_OPS:
        orig = getattr(dcomm, op, None)
        if orig is not None:
            originals[id(orig)] = (orig, mk_ds(orig))
    n = rho.rebind_in_deepspeed(originals)

    def mk_c10d(fn):

        def w(*a, **k):
            if A.c10d_depth:
                return fn(*a, **k)
            A.c10d_depth = 1
            t0 = _pc()
            try:
                return fn(*a, **k)
            finally:
                A.c10d_ns += _pc() - t0
                A.c10d_depth = 0

        w.__name__ = getattr(fn, "__name__", "w")
        w.__wrapped__ = fn
        return w

    n_c10d = 0
    for op in C10D_OPS:
        fn = getattr(tdist, op, None)
        if fn is not None:
            setattr(tdist, op, mk_c10d(fn))
            n_c10d += 1

    Work = torch._C._distributed_c10d.Work
    orig_wait = Work.wait

    def wait(self, *a, **k):
        if A.depth:  # inside a DS collective call: already in coll_ns
            t0 = _pc()
            try:
                return orig_wait(self, *a, **k)
            finally:
                A.wait_ns += _pc() - t0
                A.n_wait += 1
        A.depth = 1
        t0 = _pc()
        try:
            return orig_wait(self, *a, **k)
        finally:
            dt = _pc() - t0
            A.coll_ns += dt
            A.wait_ns += dt
            A.n_wait += 1
            A.n_coll += 1
            A.depth = 0

    Work.wait = wait

    def gc_cb(phase, info):
        if phase == "start":
            A.gc_t0 = _pc()
        elif A.gc_t0:
            A.gc_ns += _pc() - A.gc_t0
            A.gc_t0 = 0

    gc.callbacks.append(gc_cb)
    return {"ds_refs_wrapped": n, "c10d_ops_wrapped": n_c10d, "work_wait": True, "gc_callback": True}


def install_accelerator_cuda_paths(cuda_paths):
    """record_host_ops.install_accelerator (CUDA answers, FakeStream/FakeEvent, record_stream), then its
    per-method counting wrappers taken off again and the emulated answers replaced by plain functions."""
    info = rho.install_accelerator(cuda_paths)
    from deepspeed.accelerator import get_accelerator
    cls = type(get_accelerator())
    restored = 0
    for name, attr in list(vars(cls).items()):
        orig = getattr(attr, "_host_ops_orig", None)
        if orig is not None:
            setattr(cls, name, orig)
            restored += 1
    if cuda_paths:
        for nm in ("is_synchronized_device", "resolves_data_dependency", "handles_memory_backpressure",
                   "use_host_timers"):
            setattr(cls, nm, lambda self: False)
        default = rho._DEFAULT_STREAM
        ctx = rho._StreamCtx()
        cls.current_stream = lambda self, device_index=None: default
        cls.default_stream = lambda self, device_index=None: default
        cls.stream = lambda self, s: ctx
    info["counting_wrappers_removed"] = restored
    return info


# ---------------------------------------------------------------------------------------------
# Units
# ---------------------------------------------------------------------------------------------


def time_units(batches=20, n=1000, n_mm=100):
    import torch
    import torch.nn as nn
    pc = time.perf_counter_ns

    def loop_empty(r):
        t0 = pc()
        for _ in r:
            pass
        return pc() - t0

    def loop_expr(r, x):
        t0 = pc()
        for _ in r:
            x
        return pc() - t0

    def loop_call1(r, f, x):
        t0 = pc()
        for _ in r:
            f(x)
        return pc() - t0

    def loop_call2(r, f, x, y):
        t0 = pc()
        for _ in r:
            f(x, y)
        return pc() - t0

    def pyfn(x):
        return x

    def stat(loop, args, calls):
        r = range(calls)
        loop(r, *args)  # warm
        v = sorted(loop(r, *args) / calls for _ in range(batches))
        return {"median_ns": round(statistics.median(v), 1), "min_ns": round(v[0], 1),
                "max_ns": round(v[-1], 1), "calls_per_batch": calls, "batches": batches}

    out = {}
    a32, b32 = torch.ones(1), torch.ones(1)
    a16, b16 = torch.ones(1, dtype=torch.bfloat16), torch.ones(1, dtype=torch.bfloat16)
    out["loop_iteration_empty"] = stat(loop_empty, (), n)
    out["bare_expression_x"] = stat(loop_expr, (a32,), n)
    out["python_fn_call"] = stat(loop_call1, (pyfn, a32), n)
    out["torch_add_fp32_1elem"] = stat(loop_call2, (torch.add, a32, b32), n)
    out["torch_add_bf16_1elem"] = stat(loop_call2, (torch.add, a16, b16), n)
    c32 = torch.ones(1)
    out["tensor_add__fp32_1elem"] = stat(loop_call2, (torch.Tensor.add_, c32, b32), n)
    ident = nn.Identity()
    out["nn_identity_call"] = stat(loop_call1, (ident, a32), n)
    out["nn_module_call_overhead"] = {
        "median_ns": round(out["nn_identity_call"]["median_ns"] - out["bare_expression_x"]["median_ns"], 1),
        "min_ns": round(out["nn_identity_call"]["min_ns"] - out["bare_expression_x"]["min_ns"], 1),
        "note": "nn.Identity()(x) minus the bare expression x, per call"}
    g = torch.Generator().manual_seed(0)
    for dt, nm in ((torch.bfloat16, "bf16"), (torch.float32, "fp32")):
        w = torch.randn(128, 128, generator=g).to(dt)
        for m in (1, 64):
            x = torch.randn(m, 128, generator=g).to(dt)
            out[f"matmul_{nm}_{m}x128x128"] = stat(loop_call2, (torch.matmul, x, w), n_mm)
    out["note"] = ("ns per call incl. the loop iteration (loop_iteration_empty, not subtracted); median/min/max "
                   "of `batches` batches; 1 torch thread")
    return out


# ---------------------------------------------------------------------------------------------
# In the rank: the run
# ---------------------------------------------------------------------------------------------


def _proc_stat():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal guest guest_nice
    busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
    return {"busy": busy, "steal": v[7] if len(v) > 7 else 0, "total": sum(v[:8])}


def _loadavg():
    with open("/proc/loadavg") as f:
        p = f.read().split()
    return [float(p[0]), float(p[1]), float(p[2]), p[3]]


def _self_cpu_s():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def worker(rank, a, tmpdir):
    rho.run_rank(_worker_body, rank, a, tmpdir)


def _worker_body(rank, a, result):
    ws = a["world_size"]
    os.environ.update({
        "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(ws), "LOCAL_WORLD_SIZE": str(ws),
        "LOCAL_SIZE": str(ws), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(a["port"]), "DS_ACCELERATOR": "cpu"
    })
    import torch
    torch.set_num_threads(1)
    import deepspeed
    result["comm_timers"] = install_comm_timers()
    result["cpu_fixes"] = rho.apply_cpu_fixes()
    result["accelerator"] = install_accelerator_cuda_paths(a["cuda_paths"])
    result["dropout"] = rho.install_dropout_cuda_path() if a["cuda_paths"] else None
    deepspeed.init_distributed(dist_backend="gloo", timeout=datetime.timedelta(seconds=300))
    torch.distributed.barrier()
    result["units"] = time_units()
    torch.distributed.barrier()

    cfg = a["ds_config"]
    stage = int(cfg.get("zero_optimization", {}).get("stage", 0))
    torch.manual_seed(1234)
    resolved = rho.resolve_model_class(a["model"])
    if stage == 3:
        with deepspeed.zero.Init(config_dict_or_path=cfg):
            model = rho.build_model(resolved)
    else:
        model = rho.build_model(resolved)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    opt = engine.optimizer
    inner = getattr(opt, "optimizer", None)
    seen, n_t, numel = set(), 0, 0
    for p in engine.module.parameters():
        if id(p) in seen:
            continue
        seen.add(id(p))
        n_t += 1
        numel += int(getattr(p, "ds_numel", p.numel()))
    result["model"] = {"n_param_tensors": n_t, "n_params": numel,
                       "n_modules": sum(1 for _ in engine.module.modules())}
    result["engine"] = {
        "optimizer_class": type(opt).__module__ + "." + type(opt).__name__ if opt is not None else None,
        "inner_optimizer_class": (type(inner).__module__ + "." + type(inner).__name__) if inner is not None else None,
        "zero_stage": engine.zero_optimization_stage(), "bf16": bool(engine.bfloat16_enabled()),
        "gradient_accumulation_steps": engine.gradient_accumulation_steps(),
        "dp_world_size": engine.dp_world_size,
    }
    for k in ("overlap_comm", "contiguous_gradients", "partition_gradients", "cpu_offload", "offload_optimizer",
              "offload_param", "partition_count"):
        v = getattr(opt, k, None)
        if isinstance(v, (bool, int, float, str)):
            result["engine"][k] = v

    vocab = resolved[1].vocab_size
    g = torch.Generator().manual_seed(42 + rank)
    mb, seq = engine.train_micro_batch_size_per_gpu(), a["seq_len"]
    ga = engine.gradient_accumulation_steps()
    warm, timed = a["warmup_steps"], a["timed_steps"]
    # samples[m][phase][field] -> list over timed optimizer steps
    samples = [{ph: {f: [] for f in FIELDS} for ph in PHASES} for _ in range(ga)]
    boundaries = [None] * ga
    losses = []
    pc, tt = time.perf_counter_ns, time.thread_time_ns

    def snap(dst, w0, c0):
        w1, c1 = pc(), tt()
        dst["wall_ns"].append(w1 - w0)
        dst["cpu_ns"].append(c1 - c0)
        dst["coll_ns"].append(A.coll_ns)
        dst["c10d_ns"].append(A.c10d_ns)
        dst["wait_ns"].append(A.wait_ns)
        dst["gc_ns"].append(A.gc_ns)
        dst["n_coll"].append(A.n_coll)
        dst["n_wait"].append(A.n_wait)

    window = {}
    for it in range(warm + timed):
        rec = it >= warm
        if it == warm:
            window = {"stat0": _proc_stat(), "self0": _self_cpu_s(), "t0": time.time(), "load0": _loadavg()}
        for m in range(ga):
            ids = torch.randint(0, vocab, (mb, seq), generator=g)
            A.reset()
            w0, c0 = pc(), tt()
            out = engine(input_ids=ids, labels=ids, use_cache=False)
            if rec:
                snap(samples[m]["forward"], w0, c0)
            loss = out.loss
            A.reset()
            w0, c0 = pc(), tt()
            engine.backward(loss)
            if rec:
                snap(samples[m]["backward"], w0, c0)
            bnd = bool(engine.is_gradient_accumulation_boundary())
            A.reset()
            w0, c0 = pc(), tt()
            engine.step()
            if rec:
                snap(samples[m]["step"], w0, c0)
                boundaries[m] = bnd
            losses.append(float(loss.detach().float()))
            del out, loss
    st1 = _proc_stat()
    wall = time.time() - window["t0"]
    hz = os.sysconf("SC_CLK_TCK")
    result["window"] = {
        "wall_s": round(wall, 3), "self_cpu_s": round(_self_cpu_s() - window["self0"], 3),
        "host_busy_cores": round((st1["busy"] - window["stat0"]["busy"]) / hz / wall, 3),
        "host_steal_cores": round((st1["steal"] - window["stat0"]["steal"]) / hz / wall, 3),
        "load_start": window["load0"], "load_end": _loadavg(),
    }
    result["samples"] = samples
    result["boundaries"] = boundaries
    result["losses_first_last"] = [round(losses[0], 4), round(losses[-1], 4)]
    result["global_steps"] = engine.global_steps
    result["ga"] = ga
    try:
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()
    except Exception:
        pass


# ---------------------------------------------------------------------------------------------
# Parent: one case
# ---------------------------------------------------------------------------------------------


def _med(v):
    return int(statistics.median(v)) if v else None


def summarize_rank(r):
    """raw samples -> per micro-step per phase stats."""
    out = []
    for m, d in enumerate(r["samples"]):
        row = {"micro": m, "boundary": r["boundaries"][m]}
        for ph in PHASES:
            s = d[ph]
            host = [w - c for w, c in zip(s["wall_ns"], s["coll_ns"])]
            row[ph] = {
                "median_ns": _med(s["wall_ns"]), "min_ns": min(s["wall_ns"]), "max_ns": max(s["wall_ns"]),
                "collective_ns": _med(s["coll_ns"]), "host_ns": _med(host), "host_min_ns": min(host),
                "cpu_ns": _med(s["cpu_ns"]), "c10d_ns": _med(s["c10d_ns"]), "wait_ns": _med(s["wait_ns"]),
                "gc_ns": _med(s["gc_ns"]), "gc_max_ns": max(s["gc_ns"]),
                "n_coll": _med(s["n_coll"]), "n_coll_range": [min(s["n_coll"]), max(s["n_coll"])],
                "n": len(s["wall_ns"]),
            }
        out.append(row)
    return out


def run_case(args):
    spec = dict(rho.FAMILIES[args.family])
    if args.n_layers is not None:
        spec[rho.LAYER_KEY[args.family]] = args.n_layers
    cname, _, cfg = rho.effective_config(args.config, args.ga, args.micro_batch, args.world_size)
    port = rho.free_port()
    a = {"world_size": args.world_size, "port": port, "ds_config": cfg, "model": spec, "seq_len": args.seq_len,
         "warmup_steps": args.warmup_steps, "timed_steps": args.timed_steps, "cuda_paths": args.cuda_paths}
    ranks, err, wall = rho.run_ranks(worker, a, args.world_size, args.timeout, "host_times_", poll_s=2)
    ok = err is None and all(r.get("ok") for r in ranks)
    case = rho.case_name(args.family, cname, args.ga, args.n_layers)
    res = {"case": case, "world_size": args.world_size, "family": args.family, "config": cname, "ga": args.ga,
           "n_layers": args.n_layers, "micro_batch": args.micro_batch, "seq_len": args.seq_len,
           "warmup_steps": args.warmup_steps, "timed_steps": args.timed_steps, "cuda_paths": args.cuda_paths,
           "ok": ok, "wall_seconds": wall, "pre": json.loads(args.pre) if args.pre else None}
    if ok:
        rk = [0] if args.world_size == 1 else [0, args.world_size - 1]
        r0 = ranks[0]
        res["model"] = r0["model"]
        res["engine"] = r0["engine"]
        res["comm_timers"] = r0["comm_timers"]
        res["cpu_fixes"] = r0["cpu_fixes"]
        res["global_steps_after"] = r0["global_steps"]
        res["losses_rank0_first_last"] = r0["losses_first_last"]
        res["ranks"] = {}
        for i in rk:
            r = ranks[i]
            res["ranks"][str(i)] = {"micro": summarize_rank(r), "units": r["units"], "window": r["window"],
                                    "samples_wall_us": [{ph: [round(x / 1000, 1) for x in d[ph]["wall_ns"]]
                                                         for ph in PHASES} for d in r["samples"]],
                                    "samples_coll_us": [{ph: [round(x / 1000, 1) for x in d[ph]["coll_ns"]]
                                                         for ph in PHASES} for d in r["samples"]]}
        # foreign CPU during the timed window (rank 0's window; all ranks' own CPU subtracted)
        w0 = ranks[0]["window"]
        own = sum(r["window"]["self_cpu_s"] for r in ranks) / w0["wall_s"]
        res["timed_window"] = {"wall_s": w0["wall_s"], "host_busy_cores": w0["host_busy_cores"],
                               "own_cores": round(own, 3), "foreign_cores_est": round(w0["host_busy_cores"] - own, 3),
                               "steal_cores": w0["host_steal_cores"], "load_start": w0["load_start"],
                               "load_end": w0["load_end"]}
    else:
        res["error"] = err or "; ".join(f"rank{r.get('rank')}: {r.get('error')}" for r in ranks if not r.get("ok"))
        res["failure"] = [{"rank": r.get("rank"), "error": r.get("error"),
                           "traceback": (r.get("traceback") or "")[-3000:], "log_tail": r.get("log_tail")}
                          for r in ranks if not r.get("ok")]
    out = args.out or os.path.join(args.parts, f"{case}_ws{args.world_size}.json")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(res, f, separators=(",", ":"))
    brief = {"case": case, "ws": args.world_size, "ok": ok, "wall_s": wall}
    if ok:
        mi = res["ranks"]["0"]["micro"][-1]
        brief["ms_last_micro"] = {ph: round(mi[ph]["median_ns"] / 1e6, 2) for ph in PHASES}
        brief["foreign_cores"] = res["timed_window"]["foreign_cores_est"]
    else:
        brief["error"] = res["error"][:300]
    print(json.dumps(brief), flush=True)
    return 0 if ok else 1


# ---------------------------------------------------------------------------------------------
# Matrix driver
# ---------------------------------------------------------------------------------------------


def _busy_cores(dt=2.0):
    s0 = _proc_stat()
    time.sleep(dt)
    s1 = _proc_stat()
    hz = os.sysconf("SC_CLK_TCK")
    return round((s1["busy"] - s0["busy"]) / hz / dt, 3)


def _top_procs(n=3):
    try:
        out = subprocess.run(["ps", "-eo", "pcpu,comm", "--sort=-pcpu"], capture_output=True, text=True).stdout
        return [" ".join(l.split()) for l in out.splitlines()[1:1 + n]]
    except Exception:
        return []


def wait_quiet(max_wait=60.0, limit=1.5):
    t0 = time.time()
    waited = 0.0
    while True:
        la = _loadavg()
        busy = _busy_cores()
        if la[0] <= limit:
            reason = "load<=limit"
            break
        if busy < 0.2:
            reason = "load>limit but cpus idle over 2 s (residue of the previous case)"
            break
        waited = time.time() - t0
        if waited >= max_wait:
            reason = "load>limit after max wait"
            break
        time.sleep(3)
    return {"load1": la[0], "load5": la[1], "busy_cores_2s": busy, "waited_s": round(time.time() - t0, 1),
            "reason": reason, "top": _top_procs()}


def ordered_cases(args):
    cases = rho.matrix_cases(args.families.split(",") if args.families else None,
                             args.configs.split(",") if args.configs else None)
    pri = []
    for c in cases:
        fam, cfg, ga, nl = c
        p = 0 if ga == 1 else (1 if fam == "gpt2" else 2)
        pri.append((p, c))
    return [c for _, c in sorted(pri, key=lambda x: x[0])]


def run_matrix(args):
    wss = [int(x) for x in args.world_sizes.split(",")]
    only = set(args.only.split(",")) if args.only else None
    t_start = time.time()
    os.makedirs(args.parts, exist_ok=True)
    rc_all = 0
    skipped = []
    for (fam, cfg, ga, nl) in ordered_cases(args):
        name = rho.case_name(fam, cfg, ga, nl)
        if only and name not in only:
            continue
        for ws in wss:
            out = os.path.join(args.parts, f"{name}_ws{ws}.json")
            if args.skip_existing and os.path.exists(out):
                continue
            if (time.time() - t_start) / 60 > args.budget_min:
                skipped.append(f"{name}_ws{ws}")
                continue
            pre = wait_quiet()
            cmd = [sys.executable, HERE, "--family", fam, "--config", cfg, "--ga", str(ga), "--world-size", str(ws),
                   "--micro-batch", str(args.micro_batch), "--seq-len", str(args.seq_len), "--warmup-steps",
                   str(args.warmup_steps), "--timed-steps", str(args.timed_steps), "--out", out, "--timeout",
                   str(args.timeout), "--parts", args.parts, "--pre", json.dumps(pre)]
            if nl is not None:
                cmd += ["--n-layers", str(nl)]
            if not args.cuda_paths:
                cmd.append("--cpu-paths")
            t0 = time.time()
            rc = subprocess.call(cmd)
            print(f"# {name} ws={ws}: rc={rc} {time.time() - t0:.0f}s (elapsed {(time.time() - t_start) / 60:.1f} min, "
                  f"pre load {pre['load1']}, busy {pre['busy_cores_2s']})", flush=True)
            rc_all |= rc
    if skipped:
        print(f"# budget {args.budget_min} min reached; not run: {skipped}", flush=True)
    with open(os.path.join(args.parts, "_driver.json"), "w") as f:
        json.dump({"command": args.command_line, "budget_min": args.budget_min, "skipped_for_budget": skipped,
                   "elapsed_min": round((time.time() - t_start) / 60, 1),
                   "started": datetime.datetime.fromtimestamp(t_start, datetime.timezone.utc).isoformat()}, f)
    assemble(args)
    return rc_all


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------


def _versions():
    out = {"python": sys.version.split()[0]}
    try:
        r = subprocess.run([sys.executable, "-c", "import torch,deepspeed,transformers;"
                            "print(torch.__version__,deepspeed.__version__,transformers.__version__)"],
                           capture_output=True, text=True, timeout=120)
        t, d, tr = r.stdout.split()[-3:]
        out.update(torch=t, deepspeed=d, transformers=tr)
    except Exception as e:
        out["error"] = str(e)
    return out


def _machine():
    m = {"hostname_kind": "development VM", "platform": platform.platform()}
    try:
        lines = subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
        for l in lines:
            k, _, v = l.partition(":")
            k, v = k.strip(), v.strip()
            if k in ("Model name", "CPU(s)", "Thread(s) per core", "Core(s) per socket", "Socket(s)",
                     "Hypervisor vendor", "L2 cache", "L3 cache"):
                m[k] = v
        flags = open("/proc/cpuinfo").read()
        m["isa"] = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f" {f}" in flags]
    except Exception as e:
        m["error"] = str(e)
    return m


def _git_rev():
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
    except Exception:
        return None


def _unit_rows(units):
    keys = ("torch_add_fp32_1elem", "torch_add_bf16_1elem", "tensor_add__fp32_1elem", "nn_identity_call",
            "bare_expression_x", "nn_module_call_overhead", "python_fn_call", "loop_iteration_empty",
            "matmul_bf16_1x128x128", "matmul_fp32_1x128x128", "matmul_bf16_64x128x128", "matmul_fp32_64x128x128")
    return [(k, units[k]) for k in keys if k in units]


def assemble(args):
    parts = []
    for fn in sorted(os.listdir(args.parts)):
        if fn.endswith(".json") and not fn.startswith("_"):
            with open(os.path.join(args.parts, fn)) as f:
                parts.append(json.load(f))
    drv = {}
    dp = os.path.join(args.parts, "_driver.json")
    if os.path.exists(dp):
        with open(dp) as f:
            drv = json.load(f)
    order = {rho.case_name(*c[:3], c[3]): i for i, c in enumerate(ordered_cases(args))}
    parts.sort(key=lambda r: (order.get(r["case"], 999), r["world_size"]))
    # unit figures: pooled over the ws=1 runs (rank 0), median of the per-run medians
    pooled = {}
    for r in parts:
        if r.get("ok") and r["world_size"] == 1:
            for k, v in r["ranks"]["0"]["units"].items():
                if isinstance(v, dict) and "median_ns" in v:
                    pooled.setdefault(k, {"medians": [], "mins": []})
                    pooled[k]["medians"].append(v["median_ns"])
                    pooled[k]["mins"].append(v["min_ns"])
    units = {k: {"median_of_run_medians_ns": round(statistics.median(v["medians"]), 1),
                 "min_ns": round(min(v["mins"]), 1), "runs": len(v["medians"]),
                 "run_medians_p10_p90_ns": [round(sorted(v["medians"])[int(0.1 * (len(v["medians"]) - 1))], 1),
                                            round(sorted(v["medians"])[int(0.9 * (len(v["medians"]) - 1))], 1)]}
             for k, v in pooled.items()}
    pooled2 = {}
    for r in parts:
        if r.get("ok") and r["world_size"] == 2:
            for rk in r["ranks"].values():
                for k, v in rk["units"].items():
                    if isinstance(v, dict) and "median_ns" in v:
                        pooled2.setdefault(k, []).append(v["median_ns"])
    units_ws2 = {k: {"median_of_run_medians_ns": round(statistics.median(v), 1), "runs": len(v)}
                 for k, v in pooled2.items()}
    cases = []
    for r in parts:
        c = {k: r.get(k) for k in ("case", "world_size", "family", "config", "ga", "n_layers", "ok", "wall_seconds",
                                   "pre", "timed_window", "model", "engine", "global_steps_after",
                                   "losses_rank0_first_last", "error", "failure", "cpu_fixes")}
        c = {k: v for k, v in c.items() if v is not None}
        if r.get("ok"):
            c["ranks"] = {k: {"micro": v["micro"], "units": v["units"], "samples_wall_us": v["samples_wall_us"],
                              "samples_coll_us": v["samples_coll_us"]} for k, v in r["ranks"].items()}
            c["comm_timers"] = r.get("comm_timers")
        cases.append(c)
    doc = {
        "schema": SCHEMA,
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "date": "2026-11-28",
        "tool": "scripts/time_host_phases.py",
        "git_rev": _git_rev(),
        "command": drv.get("command") or args.command_line,
        "driver": drv,
        "machine": _machine(),
        "versions": _versions(),
        "setup": {"accelerator": "cpu (DS_ACCELERATOR=cpu) with record_host_ops' CUDA-path emulation",
                  "backend": "gloo", "torch_threads_per_rank": 1, "micro_batch": args.micro_batch,
                  "seq_len": args.seq_len, "warmup_steps": args.warmup_steps, "timed_steps": args.timed_steps,
                  "families": rho.FAMILIES, "configs": rho.CONFIGS, "nice": 5},
        "definitions": {
            "phases": "forward = engine(input_ids, labels, use_cache=False); backward = engine.backward(loss); "
                      "step = engine.step() (non-boundary micro-steps: bookkeeping)",
            "median_ns/min_ns/max_ns": "wall time (perf_counter_ns) of the phase at that micro-step over the timed "
                                       "optimizer steps",
            "collective_ns": "median over timed steps of the wall time inside collectives in the phase: outermost "
                             "deepspeed.comm API calls + Work.wait() outside them",
            "host_ns": "median over timed steps of (wall - collective); host_min_ns its min",
            "cpu_ns": "median main-thread CPU time (thread_time_ns); wall >> cpu + collective = preempted",
            "c10d_ns": "of collective_ns, the part inside torch.distributed's call (rest: deepspeed.comm Python)",
            "wait_ns": "median time in Work.wait()",
            "gc_ns": "median Python GC time in the phase (gc_max_ns the largest)",
            "n_coll": "collective calls in the phase (median, range)",
            "timed_window": "host CPU busy (all processes, /proc/stat) during rank 0's timed loop, our ranks' own "
                            "CPU (getrusage), foreign = busy - own (approximate: windows differ slightly), steal",
            "pre": "load average and 2-s CPU busy just before the case was started, and what waited",
            "units": "per case per rank, measured in the rank process before the model is built (ws=2: both ranks "
                     "at once, one on each core); top-level 'units' pools the ws=1 runs",
        },
        "units": units,
        "units_ws2_both_ranks": units_ws2,
        "cases": cases,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        f.write(rho._dump_compact(doc))
    write_md(doc, args.md)
    print(f"wrote {args.json} ({os.path.getsize(args.json)} bytes) and {args.md}")


def _ms(ns):
    return "-" if ns is None else f"{ns / 1e6:.2f}"


def write_md(doc, path):
    L = []
    v = doc["versions"]
    m = doc["machine"]
    L.append("# DeepSpeed host time per phase on this CPU (tiny models)\n")
    L.append(f"- Machine: {m.get('Model name')} ({m.get('CPU(s)')} CPUs, {m.get('Hypervisor vendor', '')} VM; "
             f"ISA {', '.join(m.get('isa', []))}), {doc['date']}.")
    L.append(f"- Versions: torch {v.get('torch')}, DeepSpeed {v.get('deepspeed')}, transformers {v.get('transformers')}, "
             f"Python {v.get('python')}; git {doc.get('git_rev')}.")
    L.append(f"- Command: `{doc['command']}`")
    s = doc["setup"]
    L.append(f"- Runs: DS_ACCELERATOR=cpu, gloo, 1 torch thread per rank, bf16 model / fp32 master (record_host_ops "
             f"CONFIGS), micro-batch {s['micro_batch']}, seq {s['seq_len']}, {s['warmup_steps']} warm-up + "
             f"{s['timed_steps']} timed optimizer steps; record_host_ops' CUDA-path emulation, no counters.")
    L.append("- Every figure below is the median over the timed steps (rank 0); the JSON has min/max, the "
             "collective time, CPU time, GC time and the raw samples, and the last rank at ws=2.\n")
    L.append("## Units (ns per call; ws=1 runs pooled: median of the per-run medians, [p10, p90] of those, min)\n")
    L.append("| unit | median | p10-p90 of runs | min |")
    L.append("|---|---:|---:|---:|")
    for k, u in _unit_rows(doc["units"]):
        L.append(f"| {k} | {u['median_of_run_medians_ns']:.0f} | {u['run_medians_p10_p90_ns'][0]:.0f}-"
                 f"{u['run_medians_p10_p90_ns'][1]:.0f} | {u['min_ns']:.0f} |")
    if doc.get("units_ws2_both_ranks"):
        u2 = doc["units_ws2_both_ranks"]
        L.append("\nAt ws=2 (both ranks timing at once): " + ", ".join(
            f"{k} {u2[k]['median_of_run_medians_ns']:.0f}" for k in ("torch_add_fp32_1elem", "nn_module_call_overhead",
                                                                      "matmul_bf16_64x128x128") if k in u2) + " ns.")
    L.append("\n## Per-phase medians (ms), rank 0\n")
    L.append("host = wall - time inside collectives (median of the per-step differences). `coll` = time inside "
             "collectives. GA 3 rows: micro 0 (non-boundary) and the boundary micro-step. `foreign` = other "
             "processes' CPU (cores) during the timed loop; `pre load` = 1-min load average before the case.\n")
    L.append("| case | ws | micro | fwd | fwd min | bwd | bwd min | step | step min | coll f/b/s | host f/b/s | "
             "n_coll f/b/s | foreign | pre load |")
    L.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|---|---:|---:|")
    fails = []
    for c in doc["cases"]:
        if not c.get("ok"):
            fails.append(c)
            L.append(f"| {c['case']} | {c['world_size']} | FAILED: {str(c.get('error', ''))[:100]} |" + " |" * 11)
            continue
        micro = c["ranks"]["0"]["micro"]
        rows = [micro[0]] if len(micro) == 1 else [micro[0], micro[-1]]
        for i, mi in enumerate(rows):
            f, b, st = mi["forward"], mi["backward"], mi["step"]
            lab = f"{mi['micro']}{' (bnd)' if mi['boundary'] and len(micro) > 1 else ''}"
            tw = c.get("timed_window", {})
            pre = c.get("pre") or {}
            L.append(f"| {c['case'] if i == 0 else ''} | {c['world_size']} | {lab} | {_ms(f['median_ns'])} | "
                     f"{_ms(f['min_ns'])} | {_ms(b['median_ns'])} | {_ms(b['min_ns'])} | {_ms(st['median_ns'])} | "
                     f"{_ms(st['min_ns'])} | {_ms(f['collective_ns'])}/{_ms(b['collective_ns'])}/"
                     f"{_ms(st['collective_ns'])} | {_ms(f['host_ns'])}/{_ms(b['host_ns'])}/{_ms(st['host_ns'])} | "
                     f"{f['n_coll']}/{b['n_coll']}/{st['n_coll']} | {tw.get('foreign_cores_est', '')} | "
                     f"{pre.get('load1', '')} |")
    L.append("")
    L.extend(doc.get("md_notes", []))
    if fails:
        L.append("\n## Failures\n")
        for c in fails:
            L.append(f"- {c['case']} ws={c['world_size']}: {str(c.get('error', ''))[:300]}")
    skipped = (doc.get("driver") or {}).get("skipped_for_budget")
    if skipped:
        L.append(f"\nNot run (time budget): {', '.join(skipped)}")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", choices=sorted(rho.FAMILIES), default="gpt2")
    ap.add_argument("--config", default="s2_b5e4")
    ap.add_argument("--n-layers", type=int, default=None)
    ap.add_argument("--ga", type=int, default=1)
    ap.add_argument("--micro-batch", type=int, default=1)
    ap.add_argument("--seq-len", type=int, default=64)
    ap.add_argument("--world-size", type=int, default=1)
    ap.add_argument("--warmup-steps", type=int, default=2)
    ap.add_argument("--timed-steps", type=int, default=12)
    ap.add_argument("--cpu-paths", dest="cuda_paths", action="store_false")
    ap.add_argument("--out", default=None, help="per-case JSON (default: PARTS/<case>_ws<N>.json)")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--pre", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--matrix", action="store_true")
    ap.add_argument("--world-sizes", default="1,2")
    ap.add_argument("--families", default=None)
    ap.add_argument("--configs", default=None)
    ap.add_argument("--only", default=None)
    ap.add_argument("--skip-existing", action="store_true")
    ap.add_argument("--budget-min", type=float, default=70.0)
    ap.add_argument("--parts", default=DEFAULT_PARTS)
    ap.add_argument("--json", default=DEFAULT_JSON)
    ap.add_argument("--md", default=DEFAULT_MD)
    ap.add_argument("--assemble", action="store_true", help="only assemble the JSON / markdown from --parts")
    args = ap.parse_args()
    import shlex
    nic = os.nice(0)
    args.command_line = (f"nice -n {nic} " if nic else "") + shlex.join(
        [f"DS_ACCELERATOR={os.environ.get('DS_ACCELERATOR')}",
         f"TORCH_EXTENSIONS_DIR={os.environ.get('TORCH_EXTENSIONS_DIR')}", sys.executable,
         os.path.relpath(HERE, REPO)] + sys.argv[1:])
    if args.assemble:
        assemble(args)
        return 0
    if args.matrix:
        return run_matrix(args)
    return run_case(args)


if __name__ == "__main__":
    sys.exit(main())
