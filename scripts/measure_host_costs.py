#!/usr/bin/env python3
"""measure_host_costs.py - how much host (Python / CPU dispatch) time real DeepSpeed spends in its
ZeRO hooks and engine calls, measured on deliberately tiny models so that the data work is negligible
and what is left is Python / dispatch overhead. Input for the simulator's host-overhead model.

WHAT IT MEASURES (all with time.perf_counter_ns)
  1. PyTorch eager dispatch reference (the "unit"): ns per aten op for
       (a) torch.add on two 1-element fp32 tensors in a tight Python loop,
       (b) the same with requires_grad inputs (forward incl. autograd graph recording),
       (c) autograd backward per node (chain of N tiny adds, backward time / N),
     plus extras: (d) per node of a Python torch.autograd.Function chain (what ZeRO-3's module
     hooks insert), (e) an empty post-accumulate-grad hook per parameter, (f) a bare Python call,
     and the cost of this script's own timing wrapper (used to correct nested measurements).
     Measured at the start and again at the end (drift check, the machine is shared).
  2. ZeRO-1/2 (overlap_comm false/true, contiguous_gradients default=true): the per-parameter
     post-accumulate-grad hook `grad_handling_hook` (closure made in
     stage_1_and_2.py DeepSpeedZeroOptimizer.create_gradient_handling_hooks) and its pieces
     (process_gradients, reduce_ready_partitions_and_remove_grads,
     reduce_independent_p_g_buckets_and_remove_grads, reduce_ipg_grads, average_tensor, ...).
  3. ZeRO-3: parameter_offload.py DeepSpeedZeRoOffload._register_deepspeed_module hook closures
     (_pre_forward_module_hook, _post_forward_module_hook, _pre_backward_module_hook,
     _post_backward_module_hook, PreBackwardFunctionForModule.backward,
     PostBackwardFunctionModule.backward), PartitionedParameterCoordinator.fetch_sub_module /
     release_sub_module (partitioned_param_coordinator.py) and the stage-3 per-parameter grad hook
     `reduce_partition_and_remove_grads` (stage3.py create_reduce_and_remove_grad_hooks) + pieces;
     all_gather launches per fetch.
  4. Engine level: engine.forward minus the HF module's own forward, engine.backward minus
     torch.autograd.backward, the backward epilogue, engine.step (boundary / non-boundary micro-step)
     minus the inner torch AdamW step, at stages 0, 1, 2, 3; plus a plain-PyTorch (no DeepSpeed)
     reference loop on the same model.
  5. Machine: lscpu model name / clocks, python / torch / deepspeed / transformers versions.

HOW
  * Launch exactly like /work/shared/deepspeed-oracle/trace_comm.py (copied, not imported): the CPU
    accelerator (DS_ACCELERATOR=cpu), torch.multiprocessing spawn of WS processes, gloo on
    127.0.0.1, LOCAL_SIZE/LOCAL_RANK set, 1 torch thread per rank; tiny HF GPT-2 and Llama built
    from a config (no download); ZeRO-3 models built under deepspeed.zero.Init. bf16 training
    (bf16.enabled=true, torch AdamW via torch_adam, gradient_clipping 1.0), micro-batch 1, seq 32,
    gradient_accumulation_steps 2 (so per-micro-step and per-optimizer-step costs both show),
    reduce_bucket_size / prefetch bucket 5e4 (as the oracle configs), stage3 persistence threshold 0.
  * Every deepspeed.comm API function and torch.distributed collective is wrapped (installed before
    engine init, dormant until measuring); the outermost collective's time - and the time in
    torch Work.wait() of async handles - is "comm time" and is credited to every enclosing probe,
    so each probe is reported with and without the time inside collectives.
  * Three measurement passes on the same engine, each 2-5 warm-up + N timed optimizer steps:
      L1 "engine":  only engine-level probes (HF module.forward, torch.autograd.backward,
                    engine._backward_epilogue, ZeRO optimizer.step, inner AdamW.step) + comm;
      L2 "hooks":   + the whole hook closures (grad hooks, ZeRO-3 module hooks);
      L3 "pieces":  + the DeepSpeed functions the hooks call (fetch/release, reduce_* ...).
    A probe's numbers are taken from the lowest pass that has it (fewest nested probes). Each
    probe also records how many probe wrappers ran inside it; "corr" values subtract that count
    times the measured wrapper cost.
  * Stats: median / p10 / p90 over calls (per-call costs) and over timed optimizer steps
    (per-step totals). Rank 0 is reported in the markdown tables; all ranks are in the JSON.

RUN (one at a time, niced; the oracle venv)
    cd /work/main && DS_ACCELERATOR=cpu TORCH_EXTENSIONS_DIR=/work/oracle_runs/home_0196/torch_ext \
      nice -n 10 /work/oracle_runs/home_0196/venv/bin/python scripts/measure_host_costs.py \
      --out-json results/measurements/2026-11-25-deepspeed-host-costs.json --tables-md /tmp/host_cost_tables.md
  Options: --only NAME[,NAME] (run names, e.g. gpt2_ws2_s3), --models gpt2,llama, --world-sizes 2,1,
  --configs s0,s1,s1ovl,s2,s2ovl,s3,s3pf0, --timed-steps 20, --warmup-steps 5, --ga 2, --seq-len 32.
  Shared machine: each run records rank 0's main-thread CPU share (thread_time / wall) per pass;
  --merge re-runs the selected runs into an existing --out-json and keeps, per run, the one with the higher
  CPU share (--rerun-below-share X only re-runs runs below X; --wait-quiet S waits up to S s for an idle
  machine before each run); --report-only [--merge-from OTHER.json] re-makes the markdown tables (and merges
  another output: better runs + its microbenchmarks, pooled into unit (a)).
  Expected run time on the 2-core AMD EPYC VM: 7-9 min for the full matrix (28 runs of 10-35 s each, mostly
  process spawn, imports and engine init; 0.03-0.3 s per timed optimizer step) + ~30 s of microbenchmarks; with --wait-quiet
  add up to S seconds per run. Output JSON ~3.5 MB.
"""
import argparse
import collections
import datetime
import gc
import json
import math
import os
import platform
import subprocess
import sys
import threading
import time

os.environ.setdefault("DS_ACCELERATOR", "cpu")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_host_ops as rho  # noqa: E402  the rank launcher and worker shell

_pc = time.perf_counter_ns
_get_ident = threading.get_ident

# ---------------------------------------------------------------------------------------------
# Probe machinery
# ---------------------------------------------------------------------------------------------


class Prof:

    def __init__(self):
        self.level = 0  # 0: everything dormant; >=1 comm probes active; probes installed per pass
        self.recording = False
        self.phase = "none"
        self.step = -1
        self.micro = -1
        self.stack = []  # active frames: [comm_ns, nested_probe_calls, comm_ops dict or None]
        self.comm_depth = 0
        self.recs = []
        self.main_tid = _get_ident()
        self.other_thread_calls = 0
        self.patched_work_types = set()
        self.installed = []  # (level, name, where)


P = Prof()


def make_probe(name, fn, key_fn=None):
    """Time every call of fn (active from installation on)."""

    def probe(*a, **k):
        if _get_ident() != P.main_tid:
            P.other_thread_calls += 1
            return fn(*a, **k)
        st = P.stack
        for f in st:
            f[1] += 1
        fr = [0, 0, None]
        st.append(fr)
        t0 = _pc()
        try:
            return fn(*a, **k)
        finally:
            t1 = _pc()
            st.pop()
            if P.recording:
                key = None
                if key_fn is not None:
                    try:
                        key = key_fn(a, k)
                    except Exception:
                        key = "?"
                P.recs.append((name, key, t1 - t0, fr[0], fr[1], fr[2], P.phase, P.step, P.micro))

    probe._probe_orig = fn
    probe.__name__ = getattr(fn, "__name__", name)
    probe.__qualname__ = getattr(fn, "__qualname__", name)
    return probe


def _credit_comm(d, op):
    for f in P.stack:
        f[0] += d
        if op is not None:
            ops = f[2]
            if ops is None:
                ops = f[2] = {}
            ops[op] = ops.get(op, 0) + 1


def make_comm_probe(op, fn):
    """Collective wrapper: dormant while P.level < 1; the outermost collective's time is credited
    to every enclosing probe (comm_ns) and counted per op."""

    def comm_probe(*a, **k):
        if P.level < 1 or _get_ident() != P.main_tid:
            return fn(*a, **k)
        if P.comm_depth > 0:
            P.comm_depth += 1
            try:
                return fn(*a, **k)
            finally:
                P.comm_depth -= 1
        for f in P.stack:
            f[1] += 1
        P.comm_depth = 1
        t0 = _pc()
        try:
            res = fn(*a, **k)
        finally:
            t1 = _pc()
            P.comm_depth = 0
        d = t1 - t0
        _credit_comm(d, op)
        if P.recording:
            P.recs.append(("comm:" + op, None, d, d, 0, None, P.phase, P.step, P.micro))
        if res is not None and hasattr(res, "wait") and type(res) not in P.patched_work_types:
            _patch_work_type(type(res))
        return res

    comm_probe._probe_orig = fn
    comm_probe.__name__ = getattr(fn, "__name__", op)
    comm_probe.__qualname__ = getattr(fn, "__qualname__", op)
    return comm_probe


def _patch_work_type(cls):
    """Async collectives return a torch Work (or DS handle); time spent in .wait() is comm time."""
    P.patched_work_types.add(cls)
    orig = getattr(cls, "wait", None)
    if orig is None or getattr(orig, "_probe_orig", None) is not None:
        return
    try:
        setattr(cls, "wait", make_comm_probe("wait", orig))
    except Exception:
        pass


TORCH_OPS = [
    "all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "_all_gather_base", "reduce_scatter",
    "reduce_scatter_tensor", "_reduce_scatter_base", "all_reduce_coalesced", "all_gather_coalesced",
    "all_to_all", "all_to_all_single", "barrier", "send", "recv", "isend", "irecv", "gather", "scatter",
    "broadcast_object_list", "all_gather_object"
]
DS_OPS = [
    "all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "allgather_fn", "reduce_scatter",
    "reduce_scatter_tensor", "reduce_scatter_fn", "all_reduce_coalesced", "all_gather_coalesced",
    "inference_all_reduce", "all_to_all", "all_to_all_single", "barrier", "send", "recv", "isend", "irecv", "gather",
    "scatter", "broadcast_object_list", "all_gather_object"
]


def install_comm_probes():
    """Same two layers as the oracle's Tracer: torch.distributed (+ distributed_c10d) and every
    deepspeed module's reference to a deepspeed.comm API function."""
    import torch.distributed as tdist
    import torch.distributed.distributed_c10d as c10d
    n = 0
    for op in TORCH_OPS:
        orig = getattr(c10d, op, None) or getattr(tdist, op, None)
        if orig is None or hasattr(orig, "_probe_orig"):
            continue
        w = make_comm_probe("torch." + op, orig)
        for owner in (c10d, tdist):
            if getattr(owner, op, None) is orig:
                setattr(owner, op, w)
                n += 1
    try:
        import torch._C._distributed_c10d as C
        _patch_work_type(C.Work)
    except Exception:
        pass
    import deepspeed  # noqa: F401
    import deepspeed.comm.comm as dcomm
    import deepspeed.runtime.engine  # noqa: F401
    import deepspeed.runtime.zero.stage_1_and_2  # noqa: F401
    import deepspeed.runtime.zero.stage3  # noqa: F401
    import deepspeed.runtime.zero.partition_parameters  # noqa: F401
    import deepspeed.runtime.zero.partitioned_param_coordinator  # noqa: F401
    import deepspeed.runtime.comm.coalesced_collectives  # noqa: F401
    import deepspeed.runtime.utils  # noqa: F401
    try:
        import deepspeed.runtime.bf16_optimizer  # noqa: F401
    except Exception:
        pass
    originals = {}
    for op in DS_OPS:
        orig = getattr(dcomm, op, None)
        if orig is None or hasattr(orig, "_probe_orig"):
            continue
        originals[id(orig)] = (orig, make_comm_probe("ds." + op, orig))
    for modname, mod in list(sys.modules.items()):
        if mod is None or not (modname == "deepspeed" or modname.startswith("deepspeed.")):
            continue
        d = getattr(mod, "__dict__", None)
        if not d:
            continue
        for attr, val in list(d.items()):
            hit = originals.get(id(val))
            if hit is not None and hit[0] is val:
                setattr(mod, attr, hit[1])
                n += 1
    return n


def patch_attr(owner, attr, name, level, key_fn=None, where=None):
    """Replace owner.attr (instance attribute, class attribute or module global) by a probe."""
    try:
        if isinstance(owner, type):
            orig = owner.__dict__.get(attr)
            if orig is None:
                for base in owner.__mro__:
                    if attr in base.__dict__:
                        orig = base.__dict__[attr]
                        break
            if orig is None:
                return False
            if isinstance(orig, staticmethod):
                setattr(owner, attr, staticmethod(make_probe(name, orig.__func__, key_fn)))
            else:
                setattr(owner, attr, make_probe(name, orig, key_fn))
        else:
            orig = getattr(owner, attr, None)
            if orig is None or not callable(orig):
                return False
            if getattr(orig, "_probe_orig", None) is not None:
                return False
            setattr(owner, attr, make_probe(name, orig, key_fn))
        P.installed.append((level, name, where or f"{type(owner).__name__}.{attr}"))
        return True
    except Exception as e:
        P.installed.append((level, name, f"FAILED {e!r}"))
        return False


def real_name(fn, depth=0):
    """Name of the function under DeepSpeed's instrument_w_nvtx ('wrapped_fn') / compiler.disable."""
    if fn is None or depth > 6:
        return None
    name = getattr(fn, "__name__", None)
    if hasattr(fn, "_probe_orig"):
        return real_name(fn._probe_orig, depth + 1)
    if name in ("wrapped_fn", "_fn", "wrapper", "inner", None) or hasattr(fn, "__wrapped__"):
        w = getattr(fn, "__wrapped__", None)
        if w is not None:
            return real_name(w, depth + 1)
        for c in getattr(fn, "__closure__", None) or ():
            try:
                v = c.cell_contents
            except ValueError:
                continue
            if callable(v) and hasattr(v, "__code__"):
                return real_name(v, depth + 1)
    return name


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------


def quantile(sorted_xs, q):
    if not sorted_xs:
        return None
    if len(sorted_xs) == 1:
        return sorted_xs[0]
    pos = q * (len(sorted_xs) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def stats(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return {"n": 0}
    return {"n": len(xs), "median": quantile(xs, 0.5), "p10": quantile(xs, 0.1), "p90": quantile(xs, 0.9),
            "mean": sum(xs) / len(xs), "min": xs[0], "max": xs[-1]}


# ---------------------------------------------------------------------------------------------
# 1. Eager microbenchmarks (+ this script's own wrapper cost)
# ---------------------------------------------------------------------------------------------


def microbench(reps=200, inner=1000, chain=1000, chain_reps=60):
    import torch
    torch.set_num_threads(1)
    res = {"torch_threads": torch.get_num_threads(), "reps": reps, "inner": inner}

    def batches(fn, n_inner=inner, n_reps=reps, warm=20):
        for _ in range(warm):
            fn(n_inner)
        out = []
        for _ in range(n_reps):
            t0 = _pc()
            fn(n_inner)
            out.append((_pc() - t0) / n_inner)
        return stats(out)

    def empty_loop(n):
        for _ in range(n):
            pass

    res["empty_loop_iter_ns"] = batches(empty_loop)

    def noop():
        return None

    def call_loop(n):
        f = noop
        for _ in range(n):
            f()

    res["f_python_call_ns"] = batches(call_loop)

    a = torch.ones(1)
    b = torch.ones(1)

    def add_loop(n):
        x, y, add = a, b, torch.add
        for _ in range(n):
            add(x, y)

    with torch.no_grad():
        res["a_add_1elem_nograd_ns"] = batches(add_loop)
    res["a_add_1elem_ns"] = batches(add_loop)  # grad mode on, inputs do not require grad
    ag = torch.ones(1, requires_grad=True)
    bg = torch.ones(1, requires_grad=True)

    def add_grad_loop(n):
        x, y, add = ag, bg, torch.add
        for _ in range(n):
            add(x, y)

    res["b_add_1elem_requires_grad_fwd_ns"] = batches(add_grad_loop)

    # (c) autograd backward per node: chain of `chain` AddBackward nodes (+1 AccumulateGrad)
    def chain_backward(n_nodes, reps_):
        fwd, bwd = [], []
        c = torch.ones(1)
        for r in range(reps_ + 5):
            x0 = torch.ones(1, requires_grad=True)
            t0 = _pc()
            x = x0
            for _ in range(n_nodes):
                x = torch.add(x, c)
            t1 = _pc()
            x.backward()
            t2 = _pc()
            if r >= 5:
                fwd.append((t1 - t0) / n_nodes)
                bwd.append((t2 - t1) / n_nodes)
        return stats(fwd), stats(bwd)

    f, bk = chain_backward(chain, chain_reps)
    res["c_chain_len"] = chain
    res["c_chain_fwd_per_op_ns"] = f
    res["c_autograd_backward_per_node_ns"] = bk

    # (d) Python autograd.Function nodes (what ZeRO-3's Pre/PostBackwardFunction insert)
    class Ident(torch.autograd.Function):

        @staticmethod
        def forward(x):
            return x.detach()

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, *g):
            return g

    fwd, bwd = [], []
    n_nodes = 200
    for r in range(chain_reps + 5):
        x0 = torch.ones(1, requires_grad=True)
        t0 = _pc()
        x = x0
        for _ in range(n_nodes):
            x = Ident.apply(x)
        t1 = _pc()
        x.sum().backward()
        t2 = _pc()
        if r >= 5:
            fwd.append((t1 - t0) / n_nodes)
            bwd.append((t2 - t1) / n_nodes)
    res["d_py_function_chain_len"] = n_nodes
    res["d_py_function_apply_fwd_ns"] = stats(fwd)
    res["d_py_function_backward_per_node_ns"] = stats(bwd)

    # (e) empty post-accumulate-grad hook on each of n leaf params (backward with vs without hooks)
    n_par = 100

    def leaf_backward(with_hook, reps_=chain_reps):
        ps = [torch.ones(4, requires_grad=True) for _ in range(n_par)]
        if with_hook:
            for p in ps:
                p.register_post_accumulate_grad_hook(lambda t: None)
        out = []
        for r in range(reps_ + 5):
            for p in ps:
                p.grad = None
            s = torch.stack(ps).sum()
            t0 = _pc()
            s.backward()
            if r >= 5:
                out.append((_pc() - t0) / n_par)
        return stats(out)

    nh = leaf_backward(False)
    wh = leaf_backward(True)
    res["e_leaf_backward_per_param_no_hook_ns"] = nh
    res["e_leaf_backward_per_param_empty_hook_ns"] = wh
    res["e_empty_post_acc_grad_hook_ns"] = wh["median"] - nh["median"]

    # this script's probe wrapper: an active probe as seen from an enclosing probe; a dormant comm wrapper
    saved = (P.level, P.recording, P.recs, P.stack)
    P.recs, P.stack = [], []
    P.recording = True
    wrapped = make_probe("noop", noop)

    def loop_plain(n):
        f = noop
        for _ in range(n):
            f()

    def loop_wrapped(n):
        f = wrapped
        for _ in range(n):
            f()

    def paired_diff_ns(run_with, run_without, after=None):
        """Per-call ns of run_with(inner) minus run_without(inner), alternated, 5 warm-ups."""
        diffs = []
        for r in range(reps // 2 + 5):
            t0 = _pc()
            run_with(inner)
            t1 = _pc()
            run_without(inner)
            t2 = _pc()
            if after is not None:
                after()
            if r >= 5:
                diffs.append(((t1 - t0) - (t2 - t1)) / inner)
        return stats(diffs)

    def clear_recs():
        P.recs = []

    outer_plain = make_probe("outer", loop_plain)
    outer_wrapped = make_probe("outer", loop_wrapped)
    res["wrapper_active_nested_ns"] = paired_diff_ns(outer_wrapped, outer_plain, clear_recs)
    P.level = 0
    comm_w = make_comm_probe("noop", noop)

    def loop_comm(n):
        f = comm_w
        for _ in range(n):
            f()

    res["wrapper_dormant_comm_ns"] = paired_diff_ns(loop_comm, loop_plain)
    P.level, P.recording, P.recs, P.stack = saved
    return res


# ---------------------------------------------------------------------------------------------
# Model (copied from the oracle's trace_comm.py)
# ---------------------------------------------------------------------------------------------

MODELS = {
    "gpt2": {"model_type": "gpt2", "n_layer": 4, "n_embd": 64, "n_head": 4, "vocab_size": 512, "n_positions": 64,
             "bos_token_id": 0, "eos_token_id": 0},
    "llama": {"model_type": "llama", "num_hidden_layers": 4, "hidden_size": 64, "intermediate_size": 172,
              "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512, "max_position_embeddings": 64,
              "tie_word_embeddings": False, "bos_token_id": 0, "eos_token_id": 0},
}


def build_hf_config(model_spec):
    from transformers import AutoConfig
    spec = dict(model_spec)
    mt = spec.pop("model_type")
    return AutoConfig.for_model(mt, **spec)


def resolve_model_class(model_spec):
    """Import everything before deepspeed.zero.Init (see the oracle README, caveat 7)."""
    import torch._dynamo  # noqa: F401
    from transformers import AutoModelForCausalLM  # noqa: F401
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING
    cfg = build_hf_config(model_spec)
    cls = MODEL_FOR_CAUSAL_LM_MAPPING[type(cfg)]
    try:
        import transformers.generation  # noqa: F401
    except Exception:
        pass
    return cls, cfg


def build_model(model_spec, resolved=None):
    from transformers import AutoModelForCausalLM
    cls, cfg = resolved or resolve_model_class(model_spec)
    return AutoModelForCausalLM.from_config(cfg), cfg


def apply_cpu_fixes():
    """Oracle's fix: DS 0.19.6 split_half_float_double() compares t.type() with
    'torch.cpu.BFloat16Tensor' (never matches on CPU); use a dtype-based split (what CUDA gets).
    Only matters with contiguous_gradients=false (not used here) but kept for fidelity."""
    import torch
    fixes = []
    try:
        import deepspeed.runtime.zero.stage_1_and_2 as s12
        orig = s12.split_half_float_double
        if not orig([torch.zeros(1, dtype=torch.bfloat16)]):

            def split_half_float_double(tensors):
                buckets = []
                for dt in (torch.float16, torch.float32, torch.float64, torch.bfloat16):
                    b = [t for t in tensors if t.dtype == dt]
                    if b:
                        buckets.append(b)
                return buckets

            s12.split_half_float_double = split_half_float_double
            fixes.append("stage_1_and_2.split_half_float_double: dtype-based split")
    except Exception as e:
        fixes.append(f"fix failed: {e!r}")
    return fixes


# ---------------------------------------------------------------------------------------------
# Run matrix
# ---------------------------------------------------------------------------------------------


def ds_config_for(kind):
    base = {"bf16": {"enabled": True}, "gradient_clipping": 1.0}
    z = {
        "s0": {"stage": 0},
        "s1": {"stage": 1, "reduce_bucket_size": 50000, "allgather_bucket_size": 50000, "overlap_comm": False},
        "s1ovl": {"stage": 1, "reduce_bucket_size": 50000, "allgather_bucket_size": 50000, "overlap_comm": True},
        "s2": {"stage": 2, "reduce_bucket_size": 50000, "allgather_bucket_size": 50000, "overlap_comm": False},
        "s2ovl": {"stage": 2, "reduce_bucket_size": 50000, "allgather_bucket_size": 50000, "overlap_comm": True},
        "s3": {"stage": 3, "reduce_bucket_size": 50000, "overlap_comm": True, "stage3_prefetch_bucket_size": 50000,
               "stage3_param_persistence_threshold": 0},
        "s3pf0": {"stage": 3, "reduce_bucket_size": 50000, "overlap_comm": True, "stage3_prefetch_bucket_size": 0,
                  "stage3_param_persistence_threshold": 0},
    }[kind]
    base["zero_optimization"] = z
    base["optimizer"] = {"type": "AdamW", "params": {"lr": 1e-3, "weight_decay": 0.0, "torch_adam": True}}
    base["zero_allow_untested_optimizer"] = True
    base["steps_per_print"] = 10**9
    base["wall_clock_breakdown"] = False
    return base


CONFIG_KINDS = ["s0", "s1", "s1ovl", "s2", "s2ovl", "s3", "s3pf0"]

# ---------------------------------------------------------------------------------------------
# Worker
# ---------------------------------------------------------------------------------------------


def worker(rank, a, tmpdir):
    rho.run_rank(_worker_body, rank, a, tmpdir)


def _summarise_pass(recs, per_micro, n_steps, ga, wrapper_ns):
    """recs -> per-probe statistics; per_micro -> engine-level statistics."""
    by_name = collections.defaultdict(list)
    for r in recs:
        by_name[r[0]].append(r)
    probes = {}
    for name, rs in by_name.items():
        dur = [r[2] for r in rs]
        comm = [r[3] for r in rs]
        excl = [r[2] - r[3] for r in rs]
        corr = [r[2] - r[3] - r[4] * wrapper_ns for r in rs]
        per_step = collections.defaultdict(lambda: [0, 0, 0, 0])
        for r in rs:
            e = per_step[r[7]]
            e[0] += r[2]
            e[1] += r[2] - r[3]
            e[2] += 1
            e[3] += r[2] - r[3] - r[4] * wrapper_ns
        steps = [per_step[s] if s in per_step else [0, 0, 0, 0] for s in range(n_steps)]
        by_phase = collections.Counter(r[6] for r in rs)
        p = {
            "n": len(rs),
            "calls_per_step": len(rs) / n_steps,
            "calls_per_micro_by_phase": {k: v / (n_steps * ga) for k, v in by_phase.items()},
            "dur_ns": stats(dur),
            "comm_ns": stats(comm),
            "excl_comm_ns": stats(excl),
            "excl_comm_corr_ns": stats(corr),
            "nested_probes": stats([r[4] for r in rs]),
            "frac_calls_with_comm": sum(1 for r in rs if r[3] > 0) / len(rs),
            "no_comm_calls_dur_ns": stats([r[2] for r in rs if r[3] == 0]),
            "with_comm_calls_dur_ns": stats([r[2] for r in rs if r[3] > 0]),
            "with_comm_calls_excl_ns": stats([r[2] - r[3] for r in rs if r[3] > 0]),
            "per_step_total_ns": stats([s[0] for s in steps]),
            "per_step_total_excl_comm_ns": stats([s[1] for s in steps]),
            "per_step_total_excl_comm_corr_ns": stats([s[3] for s in steps]),
        }
        # per phase (fwd/bwd/step) per-call stats
        ph = {}
        for phase in by_phase:
            sub = [r for r in rs if r[6] == phase]
            ph[phase] = {"n": len(sub), "dur_ns": stats([r[2] for r in sub]),
                         "excl_comm_ns": stats([r[2] - r[3] for r in sub])}
        if len(ph) > 1:
            p["by_phase"] = ph
        keys = collections.defaultdict(list)
        for r in rs:
            if r[1] is not None:
                keys[r[1]].append(r)
        if keys:
            p["by_key"] = {
                k: {"n": len(v), "calls_per_micro": len(v) / (n_steps * ga), "dur_ns": stats([r[2] for r in v]),
                    "excl_comm_ns": stats([r[2] - r[3] for r in v]),
                    "excl_comm_corr_ns": stats([r[2] - r[3] - r[4] * wrapper_ns for r in v])}
                for k, v in keys.items()
            }
        # collectives launched inside each call (outermost ones; 'wait' = Work.wait)
        hist = collections.Counter()
        ops_tot = collections.Counter()
        for r in rs:
            ops = r[5] or {}
            launches = sum(v for kk, v in ops.items() if kk != "wait")
            hist[launches] += 1
            for kk, v in ops.items():
                ops_tot[kk] += v
        if ops_tot:
            p["comm_launches_per_call_hist"] = {str(k): v for k, v in sorted(hist.items())}
            p["comm_ops_total_per_step"] = {k: v / n_steps for k, v in ops_tot.items()}
        probes[name] = p

    # engine-level per micro-step decomposition
    idx = collections.defaultdict(lambda: [0, 0, 0])  # (step, micro, name) -> dur, comm, n
    comm_phase = collections.defaultdict(int)
    for r in recs:
        e = idx[(r[7], r[8], r[0])]
        e[0] += r[2]
        e[1] += r[3]
        e[2] += 1
        if r[0].startswith("comm:"):
            comm_phase[(r[7], r[8], r[6])] += r[2]
    rows = []
    for m in per_micro:
        s, mi = m["step"], m["micro"]

        def g(name, j=0):
            v = idx.get((s, mi, name))
            return v[j] if v else None

        row = dict(m)
        row["module_forward"] = g("module.forward")
        row["autograd_backward"] = g("autograd.backward")
        row["autograd_backward_comm"] = g("autograd.backward", 1)
        row["backward_epilogue"] = g("engine._backward_epilogue")
        row["backward_epilogue_comm"] = g("engine._backward_epilogue", 1)
        row["opt_step"] = g("opt.step")
        row["opt_step_comm"] = g("opt.step", 1)
        row["inner_opt_step"] = g("inner_opt.step")
        row["comm_fwd"] = comm_phase.get((s, mi, "fwd"), 0)
        row["comm_bwd"] = comm_phase.get((s, mi, "bwd"), 0)
        row["comm_step"] = comm_phase.get((s, mi, "step"), 0)
        rows.append(row)

    def col(rows_, f):
        out = []
        for r in rows_:
            try:
                v = f(r)
            except TypeError:
                v = None
            out.append(v)
        return stats(out)

    eng = {}
    for label, sel in (("all", lambda r: True), ("boundary", lambda r: r["boundary"]),
                       ("non_boundary", lambda r: not r["boundary"])):
        rr = [r for r in rows if sel(r)]
        if not rr:
            continue
        eng[label] = {
            "n_micro": len(rr),
            "engine_forward_ns": col(rr, lambda r: r["fwd_ns"]),
            "module_forward_ns": col(rr, lambda r: r["module_forward"]),
            "forward_overhead_ns": col(rr, lambda r: r["fwd_ns"] - r["module_forward"]),
            "comm_fwd_ns": col(rr, lambda r: r["comm_fwd"]),
            "engine_backward_ns": col(rr, lambda r: r["bwd_ns"]),
            "autograd_backward_ns": col(rr, lambda r: r["autograd_backward"]),
            "autograd_backward_comm_ns": col(rr, lambda r: r["autograd_backward_comm"]),
            "backward_outside_autograd_ns": col(rr, lambda r: r["bwd_ns"] - r["autograd_backward"]),
            "backward_epilogue_ns": col(rr, lambda r: r["backward_epilogue"]),
            "backward_epilogue_comm_ns": col(rr, lambda r: r["backward_epilogue_comm"]),
            "backward_outside_autograd_excl_comm_ns": col(
                rr, lambda r: r["bwd_ns"] - r["autograd_backward"] - (r["comm_bwd"] - (r["autograd_backward_comm"] or 0))),
            "comm_bwd_ns": col(rr, lambda r: r["comm_bwd"]),
            "engine_step_ns": col(rr, lambda r: r["step_ns"]),
            "opt_step_ns": col(rr, lambda r: r["opt_step"]),
            "inner_opt_step_ns": col(rr, lambda r: r["inner_opt_step"]),
            "comm_step_ns": col(rr, lambda r: r["comm_step"]),
            "step_minus_inner_ns": col(rr, lambda r: r["step_ns"] - (r["inner_opt_step"] or 0)),
            "step_minus_inner_excl_comm_ns": col(rr, lambda r: r["step_ns"] - (r["inner_opt_step"] or 0) - r["comm_step"]),
            "micro_total_ns": col(rr, lambda r: r["fwd_ns"] + r["bwd_ns"] + r["step_ns"]),
        }
    per_opt_step = collections.defaultdict(lambda: collections.Counter())
    for r in rows:
        c = per_opt_step[r["step"]]
        c["total"] += r["fwd_ns"] + r["bwd_ns"] + r["step_ns"]
        c["fwd"] += r["fwd_ns"]
        c["bwd"] += r["bwd_ns"]
        c["step"] += r["step_ns"]
        c["comm"] += r["comm_fwd"] + r["comm_bwd"] + r["comm_step"]
        if r["module_forward"] is not None:
            c["fwd_overhead"] += r["fwd_ns"] - r["module_forward"]
        if r["autograd_backward"] is not None:
            c["bwd_outside_autograd"] += r["bwd_ns"] - r["autograd_backward"]
        c["step_minus_inner"] += r["step_ns"] - (r["inner_opt_step"] or 0)
    eng["per_optimizer_step"] = {k: stats([per_opt_step[s][k] for s in sorted(per_opt_step)])
                                 for k in ("total", "fwd", "bwd", "step", "comm", "fwd_overhead",
                                           "bwd_outside_autograd", "step_minus_inner")}
    return {"probes": probes, "engine": eng, "n_records": len(recs)}


def _worker_body(rank, a, result):
    ws = a["world_size"]
    os.environ.update({
        "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(ws), "LOCAL_WORLD_SIZE": str(ws),
        "LOCAL_SIZE": str(ws), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(a["port"]), "DS_ACCELERATOR": "cpu"
    })
    import torch
    torch.set_num_threads(1)
    P.main_tid = _get_ident()
    result["n_comm_refs_patched"] = install_comm_probes()
    import deepspeed
    result["cpu_fixes"] = apply_cpu_fixes()
    deepspeed.init_distributed(dist_backend="gloo", timeout=datetime.timedelta(seconds=300))
    cfg = a["ds_config"]
    stage = int(cfg["zero_optimization"]["stage"])
    ga = cfg["gradient_accumulation_steps"]
    seq = a["seq_len"]
    resolved = resolve_model_class(a["model"])
    g = torch.Generator().manual_seed(42 + rank)
    vocab = resolved[1].vocab_size
    wrapper_ns = a["wrapper_ns"]

    # ---- plain PyTorch reference (no DeepSpeed): same model in bf16, torch AdamW, same batch shape
    torch.manual_seed(1234)
    plain, _ = build_model(a["model"], resolved)
    plain = plain.to(torch.bfloat16).train()
    popt = torch.optim.AdamW(plain.parameters(), lr=1e-3, weight_decay=0.0)
    rows = []
    for s in range(a["warmup_steps"] + a["timed_steps"]):
        for m in range(ga):
            ids = torch.randint(0, vocab, (1, seq), generator=g)
            t0 = _pc()
            out = plain(input_ids=ids, labels=ids, use_cache=False)
            t1 = _pc()
            (out.loss / ga).backward()
            t2 = _pc()
            if m == ga - 1:
                popt.step()
                popt.zero_grad(set_to_none=True)
            t3 = _pc()
            if s >= a["warmup_steps"]:
                rows.append((m == ga - 1, t1 - t0, t2 - t1, t3 - t2))
            del out
    result["plain_torch"] = {
        "forward_ns": stats([r[1] for r in rows]), "backward_ns": stats([r[2] for r in rows]),
        "optimizer_step_ns": stats([r[3] for r in rows if r[0]]),
        "n_param_tensors": sum(1 for _ in plain.parameters()), "n_modules": sum(1 for _ in plain.modules()),
        "numel": sum(p.numel() for p in plain.parameters()),
    }
    del plain, popt
    gc.collect()

    # ---- DeepSpeed engine
    torch.manual_seed(1234)
    if stage == 3:
        with deepspeed.zero.Init(config_dict_or_path=cfg):
            model, _ = build_model(a["model"], resolved)
    else:
        model, _ = build_model(a["model"], resolved)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    opt = engine.optimizer
    inner = getattr(opt, "optimizer", None)
    if not isinstance(inner, torch.optim.Optimizer):
        inner = None
    pnames = {}
    for n, p in engine.module.named_parameters():
        pnames.setdefault(id(p), n)
    result["model"] = {
        "n_param_tensors": len(pnames), "n_modules": sum(1 for _ in engine.module.modules()),
        "numel": int(sum(getattr(p, "ds_numel", p.numel()) for p in engine.module.parameters())),
        "module_classes": dict(collections.Counter(type(m).__name__ for m in engine.module.modules())),
    }
    result["engine"] = {"optimizer_class": type(opt).__module__ + "." + type(opt).__name__,
                        "inner_optimizer_class": type(inner).__name__ if inner is not None else None,
                        "zero_stage": engine.zero_optimization_stage(), "bf16": bool(engine.bfloat16_enabled()),
                        "ga": engine.gradient_accumulation_steps(), "dp_world_size": engine.dp_world_size}
    if stage in (1, 2):
        result["engine"].update({k: getattr(opt, k, None) for k in (
            "overlap_comm", "contiguous_gradients", "partition_gradients", "reduce_bucket_size",
            "use_multi_rank_bucket_allreduce", "use_grad_accum_attribute")})

    def one_step(s_idx, record):
        for m in range(ga):
            ids = torch.randint(0, vocab, (1, seq), generator=g)
            P.step, P.micro = s_idx, m
            P.phase = "fwd"
            t0 = _pc()
            out = engine(input_ids=ids, labels=ids, use_cache=False)
            t1 = _pc()
            loss = out.loss
            P.phase = "bwd"
            engine.backward(loss)
            t2 = _pc()
            P.phase = "step"
            bnd = bool(engine.is_gradient_accumulation_boundary())
            engine.step()
            t3 = _pc()
            P.phase = "none"
            if record is not None:
                record.append({"step": s_idx, "micro": m, "boundary": bnd, "fwd_ns": t1 - t0, "bwd_ns": t2 - t1,
                               "step_ns": t3 - t2})
            del out, loss

    def run_pass(level, n_warm, n_timed):
        P.level = level
        P.recording = False
        for s in range(n_warm):
            one_step(-1 - s, None)
        gc.collect()
        P.recs = []
        per_micro = []
        P.recording = True
        t0 = time.time()
        c0 = time.thread_time()
        for s in range(n_timed):
            one_step(s, per_micro)
        P.recording = False
        cpu = time.thread_time() - c0
        wall = time.time() - t0
        recs, P.recs = P.recs, []
        summ = _summarise_pass(recs, per_micro, n_timed, ga, wrapper_ns)
        summ["wall_s"] = round(wall, 3)
        # main-thread CPU time / wall time of the timed steps: < 1 when the thread was preempted (shared
        # machine) or blocked in a collective (ws 2: waiting for the peer)
        summ["main_thread_cpu_s"] = round(cpu, 3)
        summ["main_thread_cpu_share"] = round(cpu / wall, 3) if wall > 0 else None
        summ["per_micro_raw"] = per_micro if rank == 0 else None
        return summ

    # ---- L1: engine-level probes
    patch_attr(engine.module, "forward", "module.forward", 1, where="HF model .forward (instance)")
    patch_attr(torch.autograd, "backward", "autograd.backward", 1, where="torch.autograd.backward")
    patch_attr(engine, "_backward_epilogue", "engine._backward_epilogue", 1)
    patch_attr(opt, "step", "opt.step", 1, where=f"{type(opt).__name__}.step (instance)")
    if inner is not None:
        patch_attr(inner, "step", "inner_opt.step", 1, where=f"{type(inner).__name__}.step (instance)")
    passes = {}
    passes["L1_engine"] = run_pass(1, a["warmup_steps"], a["timed_steps"])

    # ---- L2: whole hook closures
    ndim_key = lambda args, kw: f"{args[0].dim() if not hasattr(args[0], 'ds_shape') else len(args[0].ds_shape)}D"
    n_grad_hooks = collections.Counter()
    seen = set()
    for p in engine.module.parameters():
        if id(p) in seen:
            continue
        seen.add(id(p))
        hooks = getattr(p, "_post_accumulate_grad_hooks", None)
        if not hooks:
            continue
        for k in list(hooks.keys()):
            fn = hooks[k]
            nm = real_name(fn) or "hook"
            hooks[k] = make_probe("grad_hook:" + nm, fn, ndim_key)
            n_grad_hooks[nm] += 1
    for nm, c in n_grad_hooks.items():
        P.installed.append((2, "grad_hook:" + nm, f"{c} param tensors (Tensor._post_accumulate_grad_hooks)"))
    result["n_grad_hooks"] = dict(n_grad_hooks)
    mod_key = lambda args, kw: type(args[0]).__name__
    ctx_key = lambda args, kw: type(args[0].module).__name__
    if stage == 3:
        n_mh = collections.Counter()
        for mod in engine.module.modules():
            for dname in ("_forward_pre_hooks", "_forward_hooks"):
                d = getattr(mod, dname)
                for k in list(d.keys()):
                    nm = real_name(d[k])
                    if nm in ("_pre_forward_module_hook", "_post_forward_module_hook", "_pre_backward_module_hook",
                              "_post_backward_module_hook"):
                        d[k] = make_probe("module_hook:" + nm, d[k], mod_key)
                        n_mh[nm] += 1
            for attr, nm in (("pre_bwd_fn", "PreBackwardFunctionForModule.backward"),
                             ("post_bwd_fn", "PostBackwardFunctionModule.backward")):
                cls = mod.__dict__.get(attr)
                if cls is not None and "backward" in cls.__dict__:
                    f = cls.__dict__["backward"]
                    f = f.__func__ if isinstance(f, staticmethod) else f
                    if not hasattr(f, "_probe_orig"):
                        cls.backward = staticmethod(make_probe("module_hook:" + nm, f, ctx_key))
                        n_mh[nm] += 1
        for nm, c in n_mh.items():
            P.installed.append((2, "module_hook:" + nm, f"{c} modules"))
        result["n_module_hooks"] = dict(n_mh)
    passes["L2_hooks"] = run_pass(2, 2, a["timed_steps"])

    # ---- L3: DeepSpeed functions called by the hooks / engine
    patch_attr(engine, "_forward_prologue", "engine._forward_prologue", 3)
    patch_attr(engine, "_forward_epilogue", "engine._forward_epilogue", 3)
    patch_attr(engine, "_backward_prologue", "engine._backward_prologue", 3)
    patch_attr(engine, "allreduce_gradients", "engine.allreduce_gradients", 3)
    patch_attr(engine, "_take_model_step", "engine._take_model_step", 3)
    for m in ("backward_epilogue", "backward_prologue", "zero_grad", "clear_backward_seen_flag",
              "update_hook_state_and_maybe_run_epilogue", "queue_post_backward_callback", "reenter_backward_if_needed",
              "should_refresh_expected_hook_count"):
        if hasattr(opt, m):
            patch_attr(opt, m, "opt." + m, 3)
    if stage in (1, 2):
        import deepspeed.runtime.zero.stage_1_and_2 as s12
        for m in ("process_gradients", "reduce_ready_partitions_and_remove_grads",
                  "reduce_independent_p_g_buckets_and_remove_grads", "reduce_ipg_grads", "average_tensor",
                  "setup_buckets", "copy_grads_in_partition", "reduce_gradients",
                  "overlapping_partition_gradients_reduce_epilogue", "independent_gradient_partition_epilogue",
                  "allreduce_and_scatter", "get_grad_norm_direct", "check_overflow", "_check_overflow",
                  "unscale_and_clip_grads", "_optimizer_step"):
            if hasattr(opt, m):
                patch_attr(opt, m, "s12." + m, 3)
        patch_attr(s12, "count_used_parameters_in_backward", "count_used_parameters_in_backward", 3)
        patch_attr(s12, "all_gather_dp_groups", "s12.all_gather_dp_groups", 3)
    if stage == 3:
        import deepspeed.runtime.zero.stage3 as s3
        from deepspeed.runtime.zero.partitioned_param_coordinator import PartitionedParameterCoordinator as PPC
        from deepspeed.runtime.zero.partition_parameters import AllGatherCoalescedHandle
        fkey = lambda args, kw: type(args[1]).__name__
        patch_attr(PPC, "fetch_sub_module", "ppc.fetch_sub_module", 3, fkey)
        patch_attr(PPC, "release_sub_module", "ppc.release_sub_module", 3, fkey)
        patch_attr(PPC, "trace_prologue", "ppc.trace_prologue", 3)
        patch_attr(PPC, "_PartitionedParameterCoordinator__all_gather_params", "ppc.__all_gather_params", 3)
        patch_attr(PPC, "_PartitionedParameterCoordinator__release_param", "ppc.__release_param", 3)
        patch_attr(PPC, "reset_step", "ppc.reset_step", 3)
        patch_attr(AllGatherCoalescedHandle, "wait", "AllGatherCoalescedHandle.wait", 3)
        offload = getattr(opt, "parameter_offload", None)
        if offload is not None:
            for m in ("pre_sub_module_forward_function", "post_sub_module_forward_function",
                      "pre_sub_module_backward_function", "post_sub_module_backward_function"):
                patch_attr(offload, m, "offload." + m, 3, lambda args, kw: type(args[0]).__name__)
        for m in ("reduce_ready_partitions_and_remove_grads", "reduce_independent_p_g_buckets_and_remove_grads",
                  "_DeepSpeedZeroOptimizer_Stage3__add_grad_to_ipg_bucket",
                  "_DeepSpeedZeroOptimizer_Stage3__reduce_and_partition_ipg_grads",
                  "_DeepSpeedZeroOptimizer_Stage3__avg_scatter_grads", "partition_grads",
                  "independent_gradient_partition_epilogue", "overlapping_partition_gradients_reduce_epilogue",
                  "_pre_step", "_post_step", "_optimizer_step", "get_grad_norm_direct", "unscale_and_clip_grads",
                  "_reassign_or_swap_out_partitioned_parameters", "_prepare_fp32_grad_for_sub_group",
                  "_get_norm_groups"):
            if hasattr(opt, m):
                patch_attr(opt, m, "s3." + m.replace("_DeepSpeedZeroOptimizer_Stage3", ""), 3)
        patch_attr(s3, "count_used_parameters_in_backward", "count_used_parameters_in_backward", 3)
    if stage == 0:
        for m in ("buffered_allreduce_fallback", "allreduce_no_retain", "allreduce_bucket"):
            if hasattr(engine, m):
                patch_attr(engine, m, "engine." + m, 3)
    passes["L3_pieces"] = run_pass(3, 2, a["timed_steps"])
    P.level = 0
    result["passes"] = passes
    result["installed_probes"] = P.installed
    result["other_thread_probe_calls"] = P.other_thread_calls
    result["work_types_patched"] = sorted(t.__module__ + "." + t.__qualname__ for t in P.patched_work_types)
    try:
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()
    except Exception:
        pass


# ---------------------------------------------------------------------------------------------
# Parent
# ---------------------------------------------------------------------------------------------


def run_one(name, model_name, ws, kind, args, wrapper_ns):
    cfg = ds_config_for(kind)
    cfg["train_micro_batch_size_per_gpu"] = 1
    cfg["gradient_accumulation_steps"] = args.ga
    cfg["train_batch_size"] = args.ga * ws
    port = rho.free_port()
    a = {"world_size": ws, "port": port, "ds_config": cfg, "model": MODELS[model_name], "seq_len": args.seq_len,
         "warmup_steps": args.warmup_steps, "timed_steps": args.timed_steps, "wrapper_ns": wrapper_ns}
    load_before = os.getloadavg()
    busy_before = _other_busy()
    # (oracle README caveat 6: run_ranks removes the run's shared-memory all-reduce buffers)
    ranks, err, wall = rho.run_ranks(worker, a, ws, args.run_timeout, "ds_hostcost_", poll_s=2,
                                     log_lines=60, log_line_chars=None)
    ok = err is None and all(r.get("ok") for r in ranks)
    return {"name": name, "model": model_name, "model_spec": MODELS[model_name], "world_size": ws, "config_kind": kind,
            "ds_config": cfg, "ok": ok, "error": err, "wall_s": round(wall, 1), "loadavg_before": load_before,
            "loadavg_after": os.getloadavg(), "other_busy_processes_before": busy_before,
            "other_busy_processes_after": _other_busy(), "ranks": ranks}


def _other_busy():
    """Other processes using CPU right now (the machine is shared with a compiler): 'comm:%cpu' list."""
    try:
        out = subprocess.run(["ps", "-eo", "pid,pcpu,stat,comm", "--sort=-pcpu"], capture_output=True, text=True,
                             timeout=10).stdout.splitlines()[1:8]
        me = os.getpid()
        res = []
        for line in out:
            f = line.split(None, 3)
            if len(f) == 4 and int(f[0]) != me and f[2].startswith("R"):
                res.append(f"{f[3]}:{f[1]}")
        return res
    except Exception as e:
        return [repr(e)]


def machine_info():
    info = {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=20).stdout
        info["lscpu"] = {}
        for line in out.splitlines():
            if ":" in line:
                k, v = line.split(":", 1)
                k = k.strip()
                if k in ("Model name", "Architecture", "CPU(s)", "Thread(s) per core", "Core(s) per socket",
                         "Socket(s)", "CPU max MHz", "CPU min MHz", "CPU MHz", "BogoMIPS", "Hypervisor vendor",
                         "Virtualization type", "L1d cache", "L2 cache", "L3 cache", "Vendor ID", "CPU family",
                         "Model", "Stepping"):
                    info["lscpu"][k] = v.strip()
    except Exception as e:
        info["lscpu_error"] = repr(e)
    try:
        with open("/proc/cpuinfo") as f:
            mhz = [l.split(":")[1].strip() for l in f if l.startswith("cpu MHz")]
        info["proc_cpuinfo_mhz"] = mhz
    except Exception:
        pass
    info["nproc"] = os.cpu_count()
    info["platform"] = platform.platform()
    info["python"] = sys.version.split()[0]
    import torch
    import deepspeed
    import transformers
    info["torch"] = torch.__version__
    info["deepspeed"] = deepspeed.__version__
    info["transformers"] = transformers.__version__
    info["deepspeed_path"] = os.path.dirname(deepspeed.__file__)
    try:
        info["loadavg_start"] = os.getloadavg()
    except Exception:
        pass
    return info


# ---------------------------------------------------------------------------------------------
# Tables (markdown) from the JSON
# ---------------------------------------------------------------------------------------------


def _us(ns):
    return "" if ns is None else f"{ns / 1000:.1f}"


def _x(ns, unit):
    if ns is None or not unit:
        return ""
    v = ns / unit
    return f"{v:.1f}" if abs(v) < 10 else f"{v:.0f}"


def _trip(st):
    if not st or not st.get("n"):
        return "n/a", "", ""
    return _us(st["median"]), _us(st["p10"]), _us(st["p90"])


def _probe(rank, name):
    """Lowest pass that has the probe."""
    for pn in ("L1_engine", "L2_hooks", "L3_pieces"):
        p = rank["passes"][pn]["probes"].get(name)
        if p is not None:
            return pn, p
    return None, None


def make_tables(data):
    unit, unit_all = pooled_unit(data)
    L = []
    allmb = [h["result"] for h in data.get("microbench_history", [])] + [data[w] for w in (
        "microbench_start", "microbench_end") if data.get(w)]
    clean = min(allmb, key=lambda m: m["a_add_1elem_ns"]["p90"])
    L.append(f"### Item 1: eager dispatch reference (fp32, 1 thread; ns; {len(allmb)} microbenchmark runs)\n")
    L.append("'pooled median' = median over the runs of each run's median (200 batches of 1000 ops, or 60 "
             "chains); 'range' = min-max of the run medians; p10/p90 = within the cleanest run (lowest (a) p90).\n")
    L.append("| quantity | pooled median | range of run medians | p10 (cleanest run) | p90 (cleanest run) | x unit (a) |")
    L.append("|---|---|---|---|---|---|")
    for k, label in (("a_add_1elem_ns", "(a) torch.add, two 1-element fp32 tensors, grad mode on, no requires_grad"),
                     ("a_add_1elem_nograd_ns", "(a') same under torch.no_grad()"),
                     ("b_add_1elem_requires_grad_fwd_ns", "(b) same, requires_grad inputs (records autograd graph)"),
                     ("c_chain_fwd_per_op_ns", "(c) chain forward per add (requires_grad chain of 1000)"),
                     ("c_autograd_backward_per_node_ns", "(c) autograd backward per AddBackward node (chain of 1000)"),
                     ("d_py_function_apply_fwd_ns", "(d) Python autograd.Function.apply (forward), chain of 200"),
                     ("d_py_function_backward_per_node_ns", "(d) backward per Python autograd.Function node"),
                     ("e_leaf_backward_per_param_no_hook_ns", "(e) backward per leaf param (stack+sum graph), no hook"),
                     ("e_leaf_backward_per_param_empty_hook_ns", "(e) same with an empty post-accumulate-grad hook"),
                     ("f_python_call_ns", "(f) bare Python function call + loop"),
                     ("empty_loop_iter_ns", "empty Python for-loop iteration (included in a, a', b, f)"),
                     ("wrapper_active_nested_ns", "this script's active probe wrapper, seen by an enclosing probe"),
                     ("wrapper_dormant_comm_ns", "dormant collective wrapper")):
        meds = sorted(m[k]["median"] for m in allmb if isinstance(m.get(k), dict))
        if not meds:
            continue
        pm = quantile(meds, 0.5)
        st = clean[k]
        L.append(f"| {label} | {pm:.0f} | {meds[0]:.0f}-{meds[-1]:.0f} | {st['p10']:.0f} | {st['p90']:.0f} | "
                 f"{pm / unit:.2f} |")
    eh = sorted(m["e_empty_post_acc_grad_hook_ns"] for m in allmb)
    L.append(f"\n(e) empty post-accumulate-grad hook, cost per param = {quantile(eh, 0.5):.0f} ns (runs: "
             f"{eh[0]:.0f}-{eh[-1]:.0f}). **Unit (a) = {unit:.0f} ns** = median over all {len(unit_all)} "
             f"microbenchmark runs of this campaign (their medians: {', '.join(f'{x:.0f}' for x in unit_all)}).\n")
    hist = data.get("microbench_history") or []
    if hist:
        L.append("All microbenchmark runs (median ns):\n")
        keys = ("a_add_1elem_ns", "b_add_1elem_requires_grad_fwd_ns", "c_autograd_backward_per_node_ns",
                "d_py_function_apply_fwd_ns", "d_py_function_backward_per_node_ns", "e_empty_post_acc_grad_hook_ns",
                "wrapper_active_nested_ns")
        L.append("| source | which | started (UTC) | " + " | ".join(keys) + " | (a) p90 |")
        L.append("|---|---|---|" + "---|" * (len(keys) + 1))
        rows = hist + [{"source": "this file", "which": w, "started_utc": data["meta"].get("started_utc"),
                        "result": data[w]} for w in ("microbench_start", "microbench_end") if data.get(w)]
        for h in rows:
            res = h["result"]
            cells = [f"{res[k]['median']:.0f}" if isinstance(res.get(k), dict) else f"{res.get(k, 0):.0f}" for k in keys]
            L.append(f"| {h['source']} | {h['which']} | {str(h.get('started_utc'))[:19]} | " + " | ".join(cells) +
                     f" | {res['a_add_1elem_ns']['p90']:.0f} |")
        L.append("")

    runs = [r for r in data["runs"]]
    # status
    L.append("### Runs\n")
    L.append("| run | model | ws | config | ok | wall s | optimizer | param tensors | modules | numel | "
             "rank-0 main-thread CPU share L1/L2/L3 | add ns just before | load avg before | other busy processes before/after |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        r0 = r["ranks"][0]
        m = r0.get("model", {})
        share = "/".join(str((r0.get("passes", {}).get(pn) or {}).get("main_thread_cpu_share", ""))
                         for pn in ("L1_engine", "L2_hooks", "L3_pieces"))
        L.append(f"| {r['name']} | {r['model']} | {r['world_size']} | {r['config_kind']} | {r['ok']} | {r['wall_s']} | "
                 f"{(r0.get('engine') or {}).get('optimizer_class', '').split('.')[-1]} | {m.get('n_param_tensors', '')} | "
                 f"{m.get('n_modules', '')} | {m.get('numel', '')} | {share} | "
                 f"{'' if r.get('unit_add_ns_just_before') is None else round(r['unit_add_ns_just_before'])} | "
                 f"{(r.get('loadavg_before') or [''])[0]} | {' '.join(r.get('other_busy_processes_before') or [])} / "
                 f"{' '.join(r.get('other_busy_processes_after') or [])} |")
    L.append("")

    def probe_rows(names, title, note=""):
        L.append(f"### {title}\n")
        if note:
            L.append(note + "\n")
        L.append("| run | probe | pass | calls/step | µs/call median | p10 | p90 | mean | excl-comm median | "
                 "excl-comm mean | excl-comm corr median | x unit (corr median) | x unit (excl mean) | calls w/ comm | "
                 "per step µs | per step excl comm | collectives/step |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in runs:
            if not r["ok"]:
                continue
            r0 = r["ranks"][0]
            for nm in names(r):
                pn, p = _probe(r0, nm)
                if p is None:
                    continue
                med, p10, p90 = _trip(p["dur_ns"])
                ex = p["excl_comm_ns"].get("median")
                exm = p["excl_comm_ns"].get("mean")
                exc = p["excl_comm_corr_ns"].get("median")
                ops = p.get("comm_ops_total_per_step") or {}
                ops_s = ", ".join(f"{k.split('.')[-1]}:{v:g}" for k, v in sorted(ops.items()))
                L.append(f"| {r['name']} | {nm} | {pn[:2]} | {p['calls_per_step']:g} | {med} | {p10} | {p90} | "
                         f"{_us(p['dur_ns'].get('mean'))} | {_us(ex)} | {_us(exm)} | {_us(exc)} | {_x(exc, unit)} | "
                         f"{_x(exm, unit)} | {p['frac_calls_with_comm'] * 100:.0f}% | "
                         f"{_us(p['per_step_total_ns'].get('median'))} | "
                         f"{_us(p['per_step_total_excl_comm_ns'].get('median'))} | {ops_s} |")
        L.append("")

    def s12_names(r):
        if r["config_kind"] not in ("s1", "s1ovl", "s2", "s2ovl"):
            return []
        return ["grad_hook:grad_handling_hook", "s12.process_gradients", "s12.setup_buckets",
                "s12.reduce_ready_partitions_and_remove_grads", "s12.reduce_independent_p_g_buckets_and_remove_grads",
                "s12.reduce_ipg_grads", "s12.average_tensor", "s12.copy_grads_in_partition",
                "count_used_parameters_in_backward", "opt.update_hook_state_and_maybe_run_epilogue",
                "opt.queue_post_backward_callback", "engine._backward_epilogue", "engine.allreduce_gradients",
                "s12.reduce_gradients", "s12.overlapping_partition_gradients_reduce_epilogue",
                "opt.backward_epilogue", "opt.step", "inner_opt.step", "engine._take_model_step"]

    probe_rows(s12_names, "Item 2: ZeRO-1/2 per-parameter grad hook and pieces (rank 0)",
               "pass: L1/L2/L3 = the lowest pass with this probe. µs per call; 'excl comm' = minus time inside "
               "collectives (+ Work.wait); 'corr' also minus nested probe-wrapper cost; 'x unit' = excl comm corr / "
               "eager op (a). calls/step = per optimizer step (= GA micro-steps).")

    def s3_names(r):
        if not r["config_kind"].startswith("s3"):
            return []
        return ["module_hook:_pre_forward_module_hook", "module_hook:_post_forward_module_hook",
                "module_hook:_post_backward_module_hook", "module_hook:_pre_backward_module_hook",
                "module_hook:PreBackwardFunctionForModule.backward", "module_hook:PostBackwardFunctionModule.backward",
                "offload.pre_sub_module_forward_function", "offload.post_sub_module_forward_function",
                "offload.pre_sub_module_backward_function", "offload.post_sub_module_backward_function",
                "ppc.fetch_sub_module", "ppc.release_sub_module", "ppc.trace_prologue", "ppc.__all_gather_params",
                "ppc.__release_param", "AllGatherCoalescedHandle.wait",
                "grad_hook:reduce_partition_and_remove_grads", "s3.reduce_ready_partitions_and_remove_grads",
                "s3.reduce_independent_p_g_buckets_and_remove_grads", "s3.__add_grad_to_ipg_bucket",
                "s3.__reduce_and_partition_ipg_grads", "s3.__avg_scatter_grads", "s3.partition_grads",
                "count_used_parameters_in_backward", "s3.independent_gradient_partition_epilogue",
                "engine._forward_prologue", "engine._forward_epilogue", "engine._backward_epilogue", "opt.step",
                "inner_opt.step", "s3._pre_step", "s3._post_step", "ppc.reset_step"]

    probe_rows(s3_names, "Item 3: ZeRO-3 module hooks, fetch/release, grad hook (rank 0)")

    # fetch: by phase and all_gather launches per fetch
    L.append("### Item 3: fetch_sub_module / release_sub_module per phase and all-gather launches per fetch (rank 0, L3)\n")
    L.append("| run | probe | phase | calls/micro | µs median | p10 | p90 | excl comm median | x unit | launches per call histogram |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        if not r["ok"] or not r["config_kind"].startswith("s3"):
            continue
        r0 = r["ranks"][0]
        ga = r["ds_config"]["gradient_accumulation_steps"]
        for nm in ("ppc.fetch_sub_module", "ppc.release_sub_module"):
            p = r0["passes"]["L3_pieces"]["probes"].get(nm)
            if not p:
                continue
            phs = p.get("by_phase") or {k: {"n": p["n"], "dur_ns": p["dur_ns"], "excl_comm_ns": p["excl_comm_ns"]}
                                        for k in p["calls_per_micro_by_phase"]}
            for ph, v in phs.items():
                med, p10, p90 = _trip(v["dur_ns"])
                L.append(f"| {r['name']} | {nm} | {ph} | {p['calls_per_micro_by_phase'].get(ph, 0):g} | {med} | {p10} | "
                         f"{p90} | {_us(v['excl_comm_ns'].get('median'))} | {_x(v['excl_comm_ns'].get('median'), unit)} | "
                         f"{p.get('comm_launches_per_call_hist', {}) if nm.endswith('fetch_sub_module') else ''} |")
    L.append("")

    # by module class for the L2 module hooks (gpt2 ws2 s3 only, to keep it short)
    L.append("### Item 3: ZeRO-3 module hooks by module class (rank 0, L2; µs median per call, excl comm)\n")
    for r in runs:
        if not r["ok"] or r["config_kind"] != "s3":
            continue
        r0 = r["ranks"][0]
        L.append(f"**{r['name']}**\n")
        names = [n for n in r0["passes"]["L2_hooks"]["probes"] if n.startswith("module_hook:")]
        classes = sorted({k for n in names for k in (r0["passes"]["L2_hooks"]["probes"][n].get("by_key") or {})})
        L.append("| module class | " + " | ".join(n.split(":")[1] for n in names) + " |")
        L.append("|---|" + "---|" * len(names))
        for c in classes:
            cells = []
            for n in names:
                bk = (r0["passes"]["L2_hooks"]["probes"][n].get("by_key") or {}).get(c)
                cells.append("" if not bk else f"{_us(bk['excl_comm_ns'].get('median'))} ({bk['calls_per_micro']:g}/micro)")
            L.append(f"| {c} | " + " | ".join(cells) + " |")
        L.append("")

    # item 4 engine level
    L.append("### Item 4: engine level (rank 0, pass L1; µs; median [p10-p90])\n")
    L.append("| run | micro-steps | engine.forward | module.forward | fwd overhead | engine.backward | autograd.backward | "
             "bwd outside autograd | comm in bwd phase | epilogue | engine.step | inner AdamW.step | step - inner | "
             "step - inner - comm | plain torch fwd / bwd / opt step |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")

    def f3(st):
        if not st or not st.get("n"):
            return ""
        return f"{_us(st['median'])} [{_us(st['p10'])}-{_us(st['p90'])}]"

    for r in runs:
        if not r["ok"]:
            continue
        r0 = r["ranks"][0]
        eng = r0["passes"]["L1_engine"]["engine"]
        pt = r0["plain_torch"]
        for lab in ("boundary", "non_boundary"):
            e = eng.get(lab)
            if not e:
                continue
            comm_out = None
            L.append(f"| {r['name']} | {lab} | {f3(e['engine_forward_ns'])} | {f3(e['module_forward_ns'])} | "
                     f"{f3(e['forward_overhead_ns'])} | {f3(e['engine_backward_ns'])} | {f3(e['autograd_backward_ns'])} | "
                     f"{f3(e['backward_outside_autograd_ns'])} | {f3(e['comm_bwd_ns'])} | {f3(e['backward_epilogue_ns'])} | "
                     f"{f3(e['engine_step_ns'])} | {f3(e['inner_opt_step_ns'])} | {f3(e['step_minus_inner_ns'])} | "
                     f"{f3(e['step_minus_inner_excl_comm_ns'])} | "
                     f"{_us(pt['forward_ns']['median'])} / {_us(pt['backward_ns']['median'])} / "
                     f"{_us(pt['optimizer_step_ns']['median'])} |")
    L.append("")
    L.append("Per optimizer step (GA micro-steps), rank 0, pass L1, µs median [p10-p90]:\n")
    L.append("| run | total | fwd | bwd | step | comm (all phases) | fwd overhead | bwd outside autograd | step - inner | "
             "plain torch total (GA fwd+bwd + 1 opt step) |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        if not r["ok"]:
            continue
        r0 = r["ranks"][0]
        ps = r0["passes"]["L1_engine"]["engine"]["per_optimizer_step"]
        pt = r0["plain_torch"]
        ga = r["ds_config"]["gradient_accumulation_steps"]
        plain_tot = ga * (pt["forward_ns"]["median"] + pt["backward_ns"]["median"]) + pt["optimizer_step_ns"]["median"]
        L.append(f"| {r['name']} | {f3(ps['total'])} | {f3(ps['fwd'])} | {f3(ps['bwd'])} | {f3(ps['step'])} | "
                 f"{f3(ps['comm'])} | {f3(ps['fwd_overhead'])} | {f3(ps['bwd_outside_autograd'])} | "
                 f"{f3(ps['step_minus_inner'])} | {_us(plain_tot)} |")
    L.append("")
    return "\n".join(L)


def _mb_history(d, source):
    """All microbenchmark results held by an output file (its own start/end + its history)."""
    out = list(d.get("microbench_history", []))
    for which in ("microbench_start", "microbench_end"):
        if d.get(which):
            out.append({"source": source, "which": which, "started_utc": d["meta"].get("started_utc"),
                        "result": d[which]})
    return out


def pooled_unit(data):
    """Unit (a) = median over every microbenchmark run of its median torch.add time."""
    ms = [data[w]["a_add_1elem_ns"]["median"] for w in ("microbench_start", "microbench_end") if data.get(w)]
    ms += [h["result"]["a_add_1elem_ns"]["median"] for h in data.get("microbench_history", [])]
    ms.sort()
    return quantile(ms, 0.5), ms


def _put_run(data, r):
    for i, x in enumerate(data["runs"]):
        if x["name"] == r["name"]:
            data["runs"][i] = r
            return
    data["runs"].append(r)


def merge_from(data, other_path):
    """Keep, per run name, the cleaner run (higher rank-0 main-thread CPU share) of data and another
    output of this script (e.g. an earlier full pass over the matrix)."""
    with open(other_path) as f:
        other = json.load(f)
    hist = data.setdefault("microbench_history", [])
    seen = {(h.get("started_utc"), h.get("which")) for h in hist}
    for h in _mb_history(other, os.path.basename(other_path)):
        if (h.get("started_utc"), h.get("which")) not in seen:
            hist.append(h)
    log = data.setdefault("replaced_runs_log", [])
    for r in other["runs"]:
        cur = next((x for x in data["runs"] if x["name"] == r["name"]), None)
        if cur is None or (r["ok"] and run_share(r) > run_share(cur)):
            if cur is not None:
                log.append({"name": r["name"], "kept": f"from {os.path.basename(other_path)}",
                            "dropped_started_utc": cur.get("started_utc_approx"), "dropped_cpu_share": run_share(cur),
                            "kept_cpu_share": run_share(r), "dropped_other_busy": cur.get("other_busy_processes_before")})
            r = dict(r)
            r["merged_from"] = {"file": os.path.basename(other_path), "started_utc": other["meta"].get("started_utc"),
                                "microbench_start_add_ns": other["microbench_start"]["a_add_1elem_ns"]["median"]}
            _put_run(data, r)
        else:
            log.append({"name": r["name"], "kept": "current", "dropped_started_utc": other["meta"].get("started_utc"),
                        "dropped_cpu_share": run_share(r), "kept_cpu_share": run_share(cur),
                        "dropped_other_busy": r.get("other_busy_processes_before")})


def run_share(r):
    """min over passes of rank 0's main-thread CPU share (1.0 = never preempted / blocked)."""
    try:
        return min(r["ranks"][0]["passes"][p]["main_thread_cpu_share"] for p in ("L1_engine", "L2_hooks", "L3_pieces"))
    except Exception:
        return 0.0


def _cpu_busy_fraction(window=1.0):
    def read():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + v[4]
        return sum(v), idle

    t0, i0 = read()
    time.sleep(window)
    t1, i1 = read()
    return 1.0 - (i1 - i0) / max(1, t1 - t0)


def wait_quiet(max_s, thr=0.05):
    """Wait until the whole machine is < thr busy (0.05 of 2 cores = 10% of one core) over 1 s."""
    t0 = time.time()
    while True:
        b = _cpu_busy_fraction()
        if b < thr:
            return {"waited_s": round(time.time() - t0, 1), "busy": round(b, 3), "quiet": True}
        if time.time() - t0 > max_s:
            return {"waited_s": round(time.time() - t0, 1), "busy": round(b, 3), "quiet": False}


def quick_unit(reps=30, inner=1000):
    """Median ns of torch.add on 1-element tensors just before a run (contention indicator)."""
    import torch
    a, b = torch.ones(1), torch.ones(1)
    add = torch.add
    out = []
    for _ in range(reps):
        t0 = _pc()
        for _ in range(inner):
            add(a, b)
        out.append((_pc() - t0) / inner)
    return stats(out)["median"]


def compact(x, _top=True):
    """Smaller JSON: floats rounded to 0.1 (ns), stats without min/max, and ranks > 0 keep only the
    L1 engine table and the L2 hook summaries (rank 0 keeps everything)."""
    if _top and isinstance(x, dict) and "runs" in x:
        x = dict(x)
        runs = []
        for r in x["runs"]:
            r = dict(r)
            ranks = []
            for rk in r.get("ranks", []):
                if rk.get("rank", 0) > 0 and "passes" in rk:
                    rk = dict(rk)
                    ps = rk["passes"]
                    rk["passes"] = {
                        "L1_engine": {k: v for k, v in ps["L1_engine"].items() if k != "probes"},
                        "L2_hooks": {k: v for k, v in ps["L2_hooks"].items() if k in ("probes", "main_thread_cpu_share")},
                        "L3_pieces": {"probes": {}, "note": "rank > 0: L3 not kept"},
                    }
                    rk.pop("installed_probes", None)
                ranks.append(rk)
            r["ranks"] = ranks
            runs.append(r)
        x["runs"] = runs
    if isinstance(x, float):
        return round(x, 1) if abs(x) >= 1 else round(x, 4)
    if isinstance(x, dict):
        return {k: compact(v, False) for k, v in x.items() if k not in ("min", "max")}
    if isinstance(x, (list, tuple)):
        return [compact(v, False) for v in x]
    return x


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-json", required=True)
    ap.add_argument("--tables-md", default=None)
    ap.add_argument("--models", default="gpt2,llama")
    ap.add_argument("--world-sizes", default="2,1")
    ap.add_argument("--configs", default=",".join(CONFIG_KINDS))
    ap.add_argument("--only", default=None, help="comma list of run names (e.g. gpt2_ws2_s3)")
    ap.add_argument("--timed-steps", type=int, default=20)
    ap.add_argument("--warmup-steps", type=int, default=5)
    ap.add_argument("--ga", type=int, default=2)
    ap.add_argument("--seq-len", type=int, default=32)
    ap.add_argument("--run-timeout", type=int, default=400)
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--wait-quiet", type=float, default=0.0,
                    help="before each run wait up to this many seconds for the machine to be quiet (other CPU use "
                    "< 10%% of one core over 1 s, from /proc/stat)")
    ap.add_argument("--rerun-below-share", type=float, default=None,
                    help="with --merge: only re-run selected runs whose kept rank-0 main-thread CPU share (min over "
                    "L1/L2/L3) is below this (ws 1) or below 0.85 x this (ws 2)")
    ap.add_argument("--merge-from", default=None,
                    help="with --report-only: per run name keep the cleaner run (CPU share) of --out-json and this file")
    ap.add_argument("--merge", action="store_true",
                    help="load --out-json, (re-)run the selected runs and replace same-name entries (for re-running "
                    "runs that overlapped with other load on the shared machine)")
    args = ap.parse_args()

    if args.report_only:
        with open(args.out_json) as f:
            data = json.load(f)
        if args.merge_from:
            merge_from(data, args.merge_from)
            with open(args.out_json, "w") as f:
                json.dump(compact(data), f, default=str, separators=(",", ":"))
        if args.tables_md:
            with open(args.tables_md, "w") as f:
                f.write(make_tables(data))
        return 0

    t_start = time.time()
    import torch
    torch.set_num_threads(1)
    data = {"meta": {"tool": "scripts/measure_host_costs.py", "argv": sys.argv,
                     "started_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                     "env": {k: os.environ.get(k) for k in ("DS_ACCELERATOR", "TORCH_EXTENSIONS_DIR")},
                     "precision": "bf16 (DeepSpeed bf16.enabled; module params bf16, fp32 master in the optimizer); "
                     "eager microbenchmarks fp32",
                     "batch": {"micro_batch": 1, "seq_len": args.seq_len, "ga": args.ga},
                     "warmup_steps": args.warmup_steps, "timed_steps": args.timed_steps},
            "machine": machine_info()}
    print("machine:", json.dumps(data["machine"]["lscpu"]), flush=True)
    print("microbench (start) ...", flush=True)
    data["microbench_start"] = microbench()
    wrapper_ns = data["microbench_start"]["wrapper_active_nested_ns"]["median"]
    print(f"  add {data['microbench_start']['a_add_1elem_ns']['median']:.0f} ns, wrapper {wrapper_ns:.0f} ns", flush=True)
    data["runs"] = []
    if args.merge and os.path.exists(args.out_json):
        with open(args.out_json) as f:
            old = json.load(f)
        data["runs"] = old["runs"]
        data["meta"]["merge_history"] = old["meta"].get("merge_history", []) + [
            {k: old["meta"].get(k) for k in ("argv", "started_utc", "finished_utc")}]
        data["microbench_history"] = _mb_history(old, os.path.basename(args.out_json) + " (previous)")
    only = set(args.only.split(",")) if args.only else None
    for model_name in args.models.split(","):
        for ws in [int(x) for x in args.world_sizes.split(",")]:
            for kind in args.configs.split(","):
                name = f"{model_name}_ws{ws}_{kind}"
                if only and name not in only:
                    continue
                old_r = next((x for x in data["runs"] if x["name"] == name), None)
                if args.merge and args.rerun_below_share is not None and old_r is not None and old_r["ok"]:
                    thr = args.rerun_below_share * (1.0 if ws == 1 else 0.85)
                    if run_share(old_r) >= thr:
                        print(f"skip {name}: kept run has CPU share {run_share(old_r):.3f} >= {thr:.3f}", flush=True)
                        continue
                waited = wait_quiet(args.wait_quiet) if args.wait_quiet > 0 else None
                print(f"run {name} ... (waited for quiet: {waited})", flush=True)
                unit_now = quick_unit()
                started = datetime.datetime.now(datetime.timezone.utc).isoformat()
                r = run_one(name, model_name, ws, kind, args, wrapper_ns)
                r["unit_add_ns_just_before"] = unit_now
                r["started_utc_approx"] = started
                r["waited_for_quiet"] = waited
                if old_r is not None:
                    # keep the cleaner of the two (higher rank-0 main-thread CPU share), log the other
                    log = data.setdefault("replaced_runs_log", [])
                    keep_new = (not old_r["ok"]) or (r["ok"] and run_share(r) > run_share(old_r))
                    loser = old_r if keep_new else r
                    log.append({"name": name, "kept": "new" if keep_new else "old",
                                "dropped_started_utc": loser.get("started_utc_approx"),
                                "dropped_cpu_share": run_share(loser), "kept_cpu_share": run_share(r if keep_new else old_r),
                                "dropped_other_busy": loser.get("other_busy_processes_before")})
                    print(f"  {name}: share new {run_share(r):.3f} old {run_share(old_r):.3f} -> keep "
                          f"{'new' if keep_new else 'old'}", flush=True)
                    if not keep_new:
                        r = old_r
                print(f"  ok={r['ok']} wall={r['wall_s']}s {r['error'] or ''} "
                      f"{[x.get('error') for x in r['ranks'] if not x.get('ok')]}", flush=True)
                _put_run(data, r)
                with open(args.out_json, "w") as f:  # checkpoint (full detail until the end)
                    json.dump(data, f, default=str)
    print("microbench (end) ...", flush=True)
    data["microbench_end"] = microbench()
    data["meta"]["finished_utc"] = datetime.datetime.now(datetime.timezone.utc).isoformat()
    data["meta"]["total_wall_s"] = round(time.time() - t_start, 1)
    try:
        data["meta"]["loadavg_end"] = os.getloadavg()
    except Exception:
        pass
    os.makedirs(os.path.dirname(os.path.abspath(args.out_json)), exist_ok=True)
    with open(args.out_json, "w") as f:
        json.dump(compact(data), f, default=str, separators=(",", ":"))
    if args.tables_md:
        with open(args.tables_md, "w") as f:
            f.write(make_tables(data))
    print(f"done in {data['meta']['total_wall_s']} s -> {args.out_json}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
