#!/usr/bin/env python3
"""record_host_ops.py - how much host work one optimizer step of REAL DeepSpeed does, counted per
micro-step, per phase and per owner, on this machine's CPU (DS_ACCELERATOR=cpu, gloo, N local
processes). Writes one compact JSON per (model, ds_config, world size, GA, micro-batch, seq) that a
C++ test compares zerosim's host model against. Counts, not times: nothing here depends on speed.

WHAT IS COUNTED (rank 0's traced optimizer step; the last rank's totals are kept: ZeRO-1/2 partitions differ)
  phases   forward = engine(...), backward = engine.backward(loss), step = engine.step() (bookkeeping
           on non-boundary micro-steps, the optimizer step on the last one), each per micro-step.
  aten     every operator call that reaches the dispatcher below autograd, seen by a
           torch.utils._python_dispatch.TorchDispatchMode held across each phase (the autograd
           engine's backward ops run under the same thread-local mode). Classified per op
           (see RULES below) and attributed to an owner from the Python stack at dispatch time.
  python   every Python function call (sys.setprofile 'call' events; generator resumptions are not
           calls) by package (deepspeed / transformers / torch / other), the DeepSpeed functions by
           file:qualname (hooks, closures and methods alike, so grad_handling_hook,
           reduce_partition_and_remove_grads, the ZeRO-3 module hooks, fetch_sub_module, ... are all
           in it), nn.Module.__call__ by the module's package, torch.autograd.Function.apply by class.
  accel    every call of a method of deepspeed.accelerator.get_accelerator() (synchronize,
           current_stream, stream(...), pin_memory, range_push, ...) and of the stream / event
           objects it hands out (Stream.synchronize, wait_stream, Event.record/query/synchronize ...).
  comm     outermost deepspeed.comm API calls (a DS call inside another DS call is not counted again).

CUDA CODE PATHS (default; --cpu-paths turns it off)
  DeepSpeed's CPU accelerator says it is a "synchronized device": Stream/Event are None and ZeRO
  skips every stream wait, event and record_stream (branches on is_synchronized_device(),
  resolves_data_dependency(), handles_memory_backpressure(), use_host_timers()). By default this
  script makes the accelerator answer like the CUDA accelerator (all four False) and hands out
  counting no-op Stream / Event objects, so DeepSpeed runs the code it runs on a GPU; on the CPU every
  op is already complete, so the no-ops are exact. Tensor.record_stream with such a stream is
  counted and entered into the aten counts as aten::record_stream (what the dispatcher sees on CUDA).
  F.dropout in training (0<p<1) calls torch.native_dropout, the fused op aten::dropout picks on CUDA
  (on the CPU it decomposes into empty_like + bernoulli_ + div_ + mul).

RUN (one job at a time, niced; the oracle venv from /work/shared/deepspeed-oracle/setup.sh)
    export DS_ACCELERATOR=cpu TORCH_EXTENSIONS_DIR=/work/oracle/torch_ext
    nice -n 10 /work/oracle/venv/bin/python scripts/record_host_ops.py --family gpt2 --config s2_b5e4 --ga 3 \
        --out tests/plan/oracle/host_ops/gpt2_s2_b5e4_ga3.json
    nice -n 10 /work/oracle/venv/bin/python scripts/record_host_ops.py --matrix        # all recordings
  --matrix [--families gpt2,llama,qwen2] [--configs a,b] [--only NAME,...] [--skip-existing]
           (bloom, falcon, falcon_new, deepseek_v2, deepseek_v3: recorded when named in --families)
  runs every case in a fresh interpreter (the cases of MATRIX below). scripts/record_host_ops.sh
  wraps it. --summary FILE... prints the report's per-phase table. A case takes 15-40 s (imports and engine init dominate); the first offload case builds
  DeepSpeedCPUAdam (~60 s, cached in TORCH_EXTENSIONS_DIR).
"""
import argparse
import collections
import copy
import datetime
import dis
import json
import os
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import traceback

os.environ.setdefault("DS_ACCELERATOR", "cpu")

HERE = os.path.abspath(__file__)
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_OUTDIR = os.path.join(REPO, "tests", "plan", "oracle", "host_ops")
SCHEMA = "zerosim.host_ops.v1"

# ---------------------------------------------------------------------------------------------
# Models and configs
# ---------------------------------------------------------------------------------------------

FAMILIES = {
    # GPT-2: tied embeddings (lm_head.weight is transformer.wte.weight); dropout 0.1 (resid/embd/attn)
    "gpt2": {"model_type": "gpt2", "n_layer": 2, "n_embd": 128, "n_head": 4, "vocab_size": 1024, "n_positions": 128,
             "bos_token_id": 0, "eos_token_id": 0},
    # Llama: untied, SwiGLU, GQA (2 KV heads), RMSNorm, rotary
    "llama": {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 128, "intermediate_size": 344,
              "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1024, "max_position_embeddings": 128,
              "tie_word_embeddings": False},
    # Qwen2: like Llama but q/k/v biases and tied embeddings
    "qwen2": {"model_type": "qwen2", "num_hidden_layers": 2, "hidden_size": 128, "intermediate_size": 344,
              "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1024, "max_position_embeddings": 128,
              "tie_word_embeddings": True},
    # BLOOM: ALiBi, word_embeddings_layernorm, BloomGelu, the residual adds inside the attention
    # and the MLP, no SDPA path (recorded with --families bloom, not in the default matrix)
    "bloom": {"model_type": "bloom", "n_layer": 2, "hidden_size": 128, "n_head": 4, "vocab_size": 1024,
              "pad_token_id": None},
    # Falcon-7B's layout: one key and value head, the attention and MLP in parallel on one LayerNorm
    "falcon": {"model_type": "falcon", "num_hidden_layers": 2, "hidden_size": 128, "num_attention_heads": 4,
               "vocab_size": 1024, "max_position_embeddings": 128, "pad_token_id": None},
    # Falcon-40B's: 2 key/value groups broadcast to every head, ln_attn and ln_mlp
    "falcon_new": {"model_type": "falcon", "num_hidden_layers": 2, "hidden_size": 128, "num_attention_heads": 4,
                   "num_kv_heads": 2, "new_decoder_architecture": True, "vocab_size": 1024,
                   "max_position_embeddings": 128, "pad_token_id": None},
    # DeepSeek-V2-Lite's and -V3's layouts (the oracle's tiny instances): latent attention, a dense
    # first layer, then MoE layers of 4 routed experts (2 per token) and shared experts. v_head_dim
    # equals the query/key head dim (32 + 16): the CPU's flash kernel takes only equal dims (SDPA's
    # math path otherwise, ~25 more calls a layer), CUDA's memory-efficient and cuDNN kernels
    # DeepSeek's unequal ones.
    "deepseek_v2": {"model_type": "deepseek_v2", "num_hidden_layers": 3, "hidden_size": 128,
                    "intermediate_size": 256, "moe_intermediate_size": 96, "kv_lora_rank": 32, "q_lora_rank": None,
                    "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 48, "num_attention_heads": 4,
                    "num_key_value_heads": 4, "n_routed_experts": 4, "n_shared_experts": 2,
                    "num_experts_per_tok": 2, "first_k_dense_replace": 1, "vocab_size": 1024,
                    "max_position_embeddings": 128, "tie_word_embeddings": False},
    "deepseek_v3": {"model_type": "deepseek_v3", "num_hidden_layers": 3, "hidden_size": 128,
                    "intermediate_size": 256, "moe_intermediate_size": 96, "kv_lora_rank": 32, "q_lora_rank": 64,
                    "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 48, "num_attention_heads": 4,
                    "num_key_value_heads": 4, "n_routed_experts": 4, "n_shared_experts": 1,
                    "num_experts_per_tok": 2, "n_group": 2, "topk_group": 1, "first_k_dense_replace": 1,
                    "vocab_size": 1024, "max_position_embeddings": 128, "tie_word_embeddings": False},
}
# The default matrix (the other families are recorded when named)
DEFAULT_FAMILIES = ("gpt2", "llama", "qwen2")
LAYER_KEY = {"gpt2": "n_layer", "llama": "num_hidden_layers", "qwen2": "num_hidden_layers", "bloom": "n_layer",
             "falcon": "num_hidden_layers", "falcon_new": "num_hidden_layers", "deepseek_v2": "num_hidden_layers",
             "deepseek_v3": "num_hidden_layers"}

_BF16 = {"bf16": {"enabled": True}, "gradient_clipping": 1.0}
_S12 = {"reduce_bucket_size": 50000, "allgather_bucket_size": 50000, "overlap_comm": False, "contiguous_gradients": True}
_S3 = {"stage": 3, "reduce_bucket_size": 50000, "overlap_comm": True, "contiguous_gradients": True,
       "stage3_prefetch_bucket_size": 50000, "stage3_param_persistence_threshold": 0}
_OFF = {"device": "cpu", "pin_memory": True}

# The ZeRO sections are the oracle's (/work/shared/deepspeed-oracle/configs/<name>.json) where the name
# matches; the offload variants are s2_b5e4 / s3_base plus offload with pin_memory true.
CONFIGS = {
    "s0_bf16": dict(_BF16, zero_optimization={"stage": 0}),
    "s1_b5e4": dict(_BF16, zero_optimization=dict(_S12, stage=1)),
    "s2_b5e4": dict(_BF16, zero_optimization=dict(_S12, stage=2)),
    "s2_b5e4_ovl": dict(_BF16, zero_optimization=dict(_S12, stage=2, overlap_comm=True)),
    "s3_base": dict(_BF16, zero_optimization=dict(_S3)),
    "s2_b5e4_offopt": dict(_BF16, zero_optimization=dict(_S12, stage=2, offload_optimizer=dict(_OFF))),
    "s3_base_offopt": dict(_BF16, zero_optimization=dict(_S3, offload_optimizer=dict(_OFF))),
    "s3_base_offopt_offparam": dict(_BF16, zero_optimization=dict(_S3, offload_optimizer=dict(_OFF),
                                                                 offload_param=dict(_OFF))),
}
MATRIX_CONFIGS = list(CONFIGS)
MATRIX_GAS = (1, 3)
# (family, config, ga, n_layers): per-layer scaling checks
MATRIX_EXTRA = [("gpt2", "s1_b5e4", 1, 4), ("gpt2", "s3_base", 1, 4)]


def case_name(family, config, ga, n_layers=None, suffix=""):
    fam = family if n_layers is None else f"{family}L{n_layers}"
    return f"{fam}_{config}_ga{ga}{suffix}"


def matrix_cases(families=None, configs=None):
    cases = []
    for fam in families or DEFAULT_FAMILIES:
        for cfg in configs or MATRIX_CONFIGS:
            for ga in MATRIX_GAS:
                cases.append((fam, cfg, ga, None))
        for (f, c, g, nl) in MATRIX_EXTRA:
            if f == fam and (configs is None or c in configs):
                cases.append((f, c, g, nl))
    return cases


# ---------------------------------------------------------------------------------------------
# Rules (also written into every recording)
# ---------------------------------------------------------------------------------------------

RULES = {
    "phases": "forward = engine(input_ids=..., labels=..., use_cache=False); backward = engine.backward(loss); "
              "step = engine.step() (non-boundary micro-steps: bookkeeping only). Counted per micro-step of one "
              "optimizer step after warm-up; meta.recorded_rank in full (default 0), other_rank_totals: the totals of "
              "the last other rank (ZeRO-1/2 partitions differ per rank, so their counts may differ).",
    "aten": "every call that reaches a TorchDispatchMode (the Python dispatch key, below autograd) during the "
            "phase, incl. the autograd engine's backward ops and non-aten namespaces (c10d collectives, profiler "
            "record_function). A composite op seen by the mode is one call (its decomposition is not seen).",
    "classes": {
        "kernel": "everything not listed below: would launch >=1 device kernel on CUDA (in-place ops with a "
                  "'!' write such as add_/zero_/mul_ are kernels; _foreach_* ops are one dispatcher call each; "
                  "zeros/ones/full = alloc + fill kernel)",
        "view": "metadata only: the op's schema returns an alias of an input and writes nothing "
                "(OpOverload.is_view: view, _reshape_alias, as_strided, t, transpose, permute, expand, slice, "
                "select, split*, unbind, unsqueeze, squeeze, detach, alias, view_as_real ...) plus _unsafe_view and "
                "the in-place metadata ops set_, as_strided_, t_, transpose_, squeeze_, unsqueeze_, detach_",
        "alloc": "allocation without a kernel: empty, empty_strided, empty_like, new_empty, new_empty_strided, "
                 "resize_, resize_as_",
        "scalar_read": "aten::_local_scalar_dense (.item(), bool(t), float(t)): a device->host sync on CUDA when "
                       "the tensor is on the device (see op_sites: torch.optim's step counters live on "
                       "the host even on CUDA)",
        "copy": "aten::copy_, aten::_to_copy, aten::_foreach_copy_, aten::_copy_from*: a kernel on CUDA; H2D/D2H "
                "when the two sides are on different devices (on this CPU run all are host)",
        "from_py": "aten::lift_fresh / lift_fresh_copy: torch.tensor(python data); on CUDA with a device "
                   "target the data also crosses H2D (not dispatched separately)",
        "collective": "c10d:: ops (gloo here, NCCL on CUDA): the dispatcher leaf of a torch.distributed call",
        "meta": "no kernel, no allocation: record_stream, profiler::_record_function_*, is_pinned, sym_*, "
                "is_same_size",
    },
    "owner": "walk the Python stack outward from the dispatch; skip this recorder, Python stdlib frames, "
             "deepspeed/utils/nvtx.py and deepspeed/accelerator/ wrappers, and torch/ frames other than "
             "torch/optim/; the innermost remaining frame decides: deepspeed/runtime/zero/ -> zero, "
             "deepspeed/comm/ and deepspeed/runtime/comm/ -> comm, deepspeed/ops/ and torch/optim/ -> optimizer, "
             "other deepspeed/runtime/ (engine.py, bf16_optimizer.py, fp16/, utils.py, ...) -> engine, other "
             "deepspeed/ -> ds_other, transformers/ -> model, anything else -> other. If the walk reaches "
             "torch.autograd.graph._engine_run_backward first (the op was issued by the C++ autograd engine: "
             "a backward formula or AccumulateGrad), the owner is autograd. Python code called BY the engine "
             "(DeepSpeed grad hooks, autograd.Function.backward) is owned by its own file.",
    "op_sites": "per phase (summed over micro-steps): 'owner|file:qualname' of the owner frame (the function "
                "that issued the ops; autograd|autograd/graph:_engine_run_backward = the C++ autograd engine) -> "
                "ops by class (implicit_sync: ops that read a result back to the host on CUDA: equal, nonzero, ...)",
    "via": "for each op, the innermost torch/ package on the stack below the owner frame: torch_nn "
           "(torch/nn/), torch_optim, torch_autograd, torch_other, or direct (the owner frame called the op).",
    "ds_functions": "every DeepSpeed Python function called: file (deepspeed/runtime/ and .py dropped) -> "
                    "qualname ('.<locals>.' shown as '>') -> [forward, backward, step] calls summed over the "
                    "micro-steps; functions called at most once in every (phase, micro-step) are only counted "
                    "in _rest (n_functions, calls per phase) to keep the file small; named_calls has the "
                    "hooks and key functions whatever their count",
    "noop_device_moves": "Tensor.to(<device or tensor>) / Tensor.cpu() calls that returned the tensor itself "
                         "(no dispatch): 'method|owner|site' -> n. On CUDA some of these are H2D/D2H copies "
                         "(offload; .cpu() of a device tensor), others stay no-ops; not in the aten counts.",
    "python": "sys.setprofile 'call' events, excluding this recorder's own frames and everything inside the "
              "dispatch handler; generator resumptions are not counted. pkg: deepspeed / transformers / torch / "
              "stdlib / other. modules: nn.Module.__call__ (_wrapped_call_impl) by the module class's "
              "top package (hf = transformers). fn_apply: torch.autograd.Function.apply by class.",
    "accel": "calls of get_accelerator() methods (class-level wrappers), and of the stream/event objects handed "
             "out (Stream.*, Event.*).",
    "syncs": "blocking_total = scalar_read - scalar_read_host_state + synchronize + Stream.synchronize + "
             "Event.synchronize + implicit_sync_ops: the points where the host waits for the device on CUDA. "
             "scalar_read_host_state = .item() of torch.optim's step counters (optim/optimizer:_get_value; "
             "CPU tensors on CUDA too: no device sync). stream_waits (wait_stream/wait_event) and "
             "event_query do not block the host.",
    "comm": "outermost deepspeed.comm API calls (every deepspeed module's reference is wrapped); a DS call "
            "made inside another DS call is not counted again.",
}

NOTES_COMMON = [
    "CPU run (DS_ACCELERATOR=cpu, gloo); counts are dispatcher / Python call counts, not times.",
    "cuda_paths: the CPU accelerator answers is_synchronized_device/resolves_data_dependency/"
    "handles_memory_backpressure/use_host_timers = False like the CUDA accelerator and hands out counting "
    "no-op Stream/Event objects, so ZeRO runs its CUDA stream/event/record_stream code; Event.query() always "
    "answers True (complete) - on a GPU it may be False, so the number of query()/synchronize() calls in "
    "ZeRO's event back-pressure loops (stage3 param_reduce_events, PPC __ongoing_fetch_events) is "
    "timing-dependent there.",
    "aten::record_stream is entered by this recorder for each Tensor.record_stream(fake stream) call "
    "(on CUDA it is a dispatcher op, no kernel).",
    "Dropout: F.dropout(training, 0<p<1) is routed to torch.native_dropout like aten::dropout's fused CUDA "
    "path (1 op forward, native_dropout_backward in backward); plain CPU decomposes it into empty_like + "
    "bernoulli_ + div_ + mul (+ mul in backward).",
    "SDPA with dropout (GPT-2 attn_pdrop 0.1): the CPU flash kernel rejects dropout_p > 0 and SDPA falls back "
    "to its math path (fp32 upcasts, bmm, softmax, dropout: ~25 ops forward, ~35 backward per layer); CUDA's "
    "flash kernel applies the dropout inside its one op. The recorder passes dropout_p=0 so the CPU picks its "
    "one-op flash kernel (numerics: no attention-probability dropout; op counts as on CUDA). Llama/Qwen2 have "
    "attention_dropout 0 anyway.",
    "torch.optim.AdamW is created with foreach=True (its CUDA default); on the CPU _foreach_* ops are one "
    "dispatcher call each, as on CUDA, but CUDA launches ceil(tensors/chunk) kernels per call. DeepSpeed's "
    "CUDA default without torch_adam would be FusedAdam (multi_tensor_apply; not buildable here).",
    "SDPA: the CPU picks aten::_scaled_dot_product_flash_attention_for_cpu (+_backward); CUDA picks "
    "_scaled_dot_product_flash_attention or _efficient_attention (1 op each as well; the views around "
    "them may differ by a few).",
    "DeepSpeedCPUAdam (offload) runs in C++ (pybind, not the dispatcher): its per-element work has no aten "
    "ops; only the Python around it and the torch ops DeepSpeed issues are counted. Same on CUDA.",
    "get_accelerator().on_accelerator(t) is True for every tensor here. Where ZeRO branches on it, CUDA "
    "with offload_optimizer takes the other branch: stage3.partition_grads on micro-steps >= 1 moves the "
    "host grad buffer to the GPU, adds, and copies back (+1 _to_copy H2D +1 copy_ D2H per parameter "
    "tensor per non-first micro-step on CUDA, not in these counts); without offload both agree.",
    "pin_memory: the CPU accelerator's pin_memory returns the tensor (no aten::_pin_memory); on CUDA it "
    "copies into page-locked memory. Calls are counted under accel.pin_memory.",
    "Devices: host and 'device' tensors are one pool here, so copy ops cannot be told H2D/D2H/D2D by "
    "device (op_sites names the function that issued each copy), and a Tensor.to(device)/.cpu() that moves "
    "data on CUDA (offload_param partitions to the GPU, offload_optimizer grads/params between host and "
    "GPU, .cpu() of a device scalar) returns the tensor itself here without reaching the dispatcher: those "
    "calls are listed in noop_device_moves (not in the aten counts); on CUDA each that crosses devices is "
    "one more aten::_to_copy (and .cpu() a blocking D2H).",
    "Throughput timer: DeepSpeed's default timers.throughput.synchronized=true calls "
    "get_accelerator().synchronize() in engine.forward (tput_timer.start, from global step 2) and "
    "engine.step (tput_timer.stop): counted under accel.synchronize; on CUDA each is a full device sync.",
    "Python call counts around streams differ slightly on CUDA: torch.cuda.Stream.wait_stream etc. are "
    "Python functions in torch/cuda/streams.py (not counted here: the fake streams are this recorder's).",
]

# ---------------------------------------------------------------------------------------------
# Frame classification
# ---------------------------------------------------------------------------------------------

_STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"])
_FILE_CAT = {}
SKIP, TORCH = "skip", "torch"


def _rel(fn):
    for marker in ("site-packages" + os.sep, "dist-packages" + os.sep):
        i = fn.rfind(marker)
        if i >= 0:
            return fn[i + len(marker):]
    return None


def file_category(fn):
    """-> (category, relpath). category: skip, torch/<sub>, or an owner name."""
    c = _FILE_CAT.get(fn)
    if c is not None:
        return c
    rel = _rel(fn)
    if os.path.abspath(fn) == HERE:
        c = (SKIP, "recorder")
    elif rel is None:
        rp = os.path.realpath(fn) if not fn.startswith("<") else fn
        if fn.startswith("<frozen") or rp.startswith(_STDLIB):
            c = (SKIP, "stdlib")
        else:
            c = ("other", fn)
    elif rel.startswith("torch/"):
        if rel.startswith("torch/optim/"):
            c = ("optimizer", rel)
        elif rel.startswith("torch/nn/"):
            c = (TORCH, "torch_nn")
        elif rel.startswith("torch/autograd/"):
            c = (TORCH, "torch_autograd")
        else:
            c = (TORCH, "torch_other")
    elif rel.startswith("deepspeed/"):
        if rel.startswith("deepspeed/utils/nvtx.py") or rel.startswith("deepspeed/accelerator/"):
            c = (SKIP, rel)
        elif rel.startswith("deepspeed/runtime/zero/"):
            c = ("zero", rel)
        elif rel.startswith("deepspeed/comm/") or rel.startswith("deepspeed/runtime/comm/"):
            c = ("comm", rel)
        elif rel.startswith("deepspeed/ops/"):
            c = ("optimizer", rel)
        elif rel.startswith("deepspeed/runtime/"):
            c = ("engine", rel)
        else:
            c = ("ds_other", rel)
    elif rel.startswith("transformers/"):
        c = ("model", rel)
    elif rel.startswith(("functorch/", "typing_extensions")):
        c = (SKIP, rel)
    else:
        c = ("other", rel)
    _FILE_CAT[fn] = c
    return c


def pkg_of_file(fn):
    """Python-call package: deepspeed / transformers / torch / other; None = this recorder."""
    if os.path.abspath(fn) == HERE:
        return None
    rel = _rel(fn)
    if rel is None:
        if fn.startswith("<frozen") or os.path.realpath(fn).startswith(_STDLIB):
            return "stdlib"
        return "other"
    top = rel.split("/", 1)[0]
    if top in ("deepspeed", "transformers", "torch"):
        return top
    return "other"


_ENGINE_RUN_BACKWARD = None


def stack_owner(start):
    """Owner and 'via' of the op being dispatched (see RULES['owner'])."""
    f = start
    via = None
    erb = _ENGINE_RUN_BACKWARD
    while f is not None:
        code = f.f_code
        if code is erb:
            return "autograd", via or "direct", f
        cat, sub = file_category(code.co_filename)
        if cat == SKIP:
            f = f.f_back
            continue
        if cat == TORCH:
            if via is None:
                via = sub
            f = f.f_back
            continue
        if cat == "optimizer" and via is None and sub.startswith("torch/optim/"):
            return cat, "torch_optim", f
        return cat, via or "direct", f
    return "none", via or "direct", None


# ---------------------------------------------------------------------------------------------
# Op classification
# ---------------------------------------------------------------------------------------------

COPY_OPS = {"aten::copy_", "aten::_to_copy", "aten::_foreach_copy_", "aten::_copy_from", "aten::_copy_from_and_resize"}
ALLOC_OPS = {"aten::empty", "aten::empty_strided", "aten::empty_like", "aten::new_empty", "aten::new_empty_strided",
             "aten::resize_", "aten::resize_as_", "aten::_efficientzerotensor", "aten::empty_permuted"}
INPLACE_META = {"aten::set_", "aten::as_strided_", "aten::t_", "aten::transpose_", "aten::squeeze_", "aten::unsqueeze_",
                "aten::detach_", "aten::swapdims_", "aten::swapaxes_", "aten::_unsafe_view", "aten::_reshape_alias"}
META_OPS = {"aten::record_stream", "aten::is_pinned", "aten::sym_size", "aten::sym_stride", "aten::sym_numel",
            "aten::sym_storage_offset", "aten::is_same_size", "aten::_has_compatible_shallow_copy_type"}
FROM_PY = {"aten::lift_fresh", "aten::lift_fresh_copy", "aten::lift"}
# ops that also read a result back to the host on CUDA (an implicit sync)
IMPLICIT_SYNC = {"aten::equal", "aten::nonzero", "aten::masked_select", "aten::_unique2", "aten::unique_dim",
                 "aten::unique_consecutive", "aten::is_nonzero", "aten::allclose"}

_CLS_CACHE = {}


def op_class(func):
    c = _CLS_CACHE.get(func)
    if c is not None:
        return c
    name = func.name() if hasattr(func, "name") else str(func)
    base = name.split(".")[0]
    ns = base.split("::")[0] if "::" in base else "aten"
    if ns == "c10d" or ns == "_c10d_functional":
        c = "collective"
    elif ns == "profiler":
        c = "meta"
    elif base == "aten::_local_scalar_dense":
        c = "scalar_read"
    elif base in COPY_OPS:
        c = "copy"
    elif base in FROM_PY:
        c = "from_py"
    elif base in ALLOC_OPS:
        c = "alloc"
    elif base in META_OPS:
        c = "meta"
    elif base in INPLACE_META:
        c = "view"
    elif getattr(func, "is_view", False):
        c = "view"
    else:
        c = "kernel"
    _CLS_CACHE[func] = c
    return c


def op_key(func):
    # 'aten::add_.Tensor' (overload 'default' dropped)
    s = func.name()
    try:
        ov = func._overloadname
    except AttributeError:
        ov = None
    if ov and ov != "default" and "." not in s:
        s = f"{s}.{ov}"
    return s


# ---------------------------------------------------------------------------------------------
# Recorder
# ---------------------------------------------------------------------------------------------


class Rec:

    def __init__(self):
        self.on = False
        self.phase = None
        self.micro = -1
        self.in_disp = 0
        # (phase, micro) -> Counter
        self.ops = collections.defaultdict(collections.Counter)  # (owner, via, opname)
        self.py = collections.defaultdict(collections.Counter)  # pkg
        self.dsfn = collections.defaultdict(collections.Counter)  # 'file:qualname'
        self.mods = collections.defaultdict(collections.Counter)  # module package
        self.mod_ids = collections.defaultdict(set)
        self.fnapply = collections.defaultdict(collections.Counter)  # Function class
        self.accel = collections.defaultdict(collections.Counter)  # method
        self.comm = collections.defaultdict(collections.Counter)  # ds op
        self.sites = collections.defaultdict(collections.Counter)  # (class, site)
        self.moves = collections.defaultdict(collections.Counter)  # (method, owner, site)
        self.comm_depth = 0
        self.record_stream_calls = 0

    def key(self):
        return (self.phase, self.micro)


R = Rec()


_SITE = {}


def _site(f):
    """'file:qualname' of the owner frame (the DeepSpeed / transformers / torch.optim function that issued
    the op), shortened like ds_functions."""
    if f is None:
        return "?"
    code = f.f_code
    s = _SITE.get(code)
    if s is None:
        rel = _rel(code.co_filename) or os.path.basename(code.co_filename)
        for p in ("deepspeed/runtime/", "deepspeed/", "transformers/models/", "transformers/", "torch/"):
            if rel.startswith(p):
                rel = rel[len(p):]
                break
        if rel.endswith(".py"):
            rel = rel[:-3]
        s = _SITE[code] = f"{rel}:{getattr(code, 'co_qualname', code.co_name).replace('.<locals>.', '>')}"
    return s


def note_op(func, start_frame, name=None, cls=None):
    owner, via, of = stack_owner(start_frame)
    name = name or op_key(func)
    k = R.key()
    R.ops[k][(owner, via, name)] += 1
    cls = cls or op_class(func)
    if name in IMPLICIT_SYNC:
        cls = "implicit_sync"
    R.sites[k][(cls, owner, _site(of))] += 1


def make_mode():
    from torch.utils._python_dispatch import TorchDispatchMode

    class CountMode(TorchDispatchMode):

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            R.in_disp += 1
            try:
                if R.on:
                    note_op(func, sys._getframe(1))
                return func(*args, **(kwargs or {}))
            finally:
                R.in_disp -= 1

    # TorchDispatchMode.__init_subclass__ wraps __torch_dispatch__ in torch._disable_dynamo (two Python
    # frames per op: torch/_compile.py inner + torch/_dynamo/eval_frame.py _fn); put the plain function back
    # so that the only Python frame between an op and its caller is this handler.
    raw = CountMode.__dict__["__torch_dispatch__"]
    raw = getattr(raw, "__wrapped__", raw)
    while hasattr(raw, "__wrapped__"):
        raw = raw.__wrapped__
    CountMode.__torch_dispatch__ = raw
    return CountMode()


# ---- sys.setprofile: Python calls ----------------------------------------------------------------

_CODE_INFO = {}
_MODCALL_CODE = None
_FNAPPLY_CODE = None
_CO_GEN = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator


def _code_info(code):
    pkg = pkg_of_file(code.co_filename)
    key = None
    if pkg == "deepspeed":
        rel = _rel(code.co_filename)[len("deepspeed/"):]
        key = f"{rel}:{getattr(code, 'co_qualname', code.co_name)}"
    gen_start = -1
    if code.co_flags & _CO_GEN:
        gen_start = 0
        for ins in dis.get_instructions(code):
            if ins.opname == "RESUME":
                gen_start = ins.offset
                break
    special = 1 if code is _MODCALL_CODE else 2 if code is _FNAPPLY_CODE else 0
    return (pkg, key, gen_start, special)


def _profile(frame, event, arg):
    if event != "call" or R.in_disp or not R.on:
        return
    code = frame.f_code
    info = _CODE_INFO.get(code)
    if info is None:
        info = _CODE_INFO[code] = _code_info(code)
    pkg, key, gen_start, special = info
    if pkg is None:
        return
    if gen_start >= 0 and frame.f_lasti > gen_start:
        return  # a generator being resumed, not called
    k = (R.phase, R.micro)
    R.py[k][pkg] += 1
    if key is not None:
        R.dsfn[k][key] += 1
    if special == 1:
        m = frame.f_locals.get("self")
        if m is not None:
            top = type(m).__module__.split(".", 1)[0]
            R.mods[k]["hf" if top == "transformers" else top if top in ("torch", "deepspeed") else "other"] += 1
            R.mod_ids[k].add(id(m))
    elif special == 2:
        c = frame.f_locals.get("cls")
        if c is not None:
            R.fnapply[k][f"{c.__module__.split('.', 1)[0]}:{c.__name__}"] += 1


def begin(phase, micro, mode):
    mode.__enter__()
    R.phase, R.micro = phase, micro
    R.on = True
    sys.setprofile(_profile)


def end(mode):
    sys.setprofile(None)
    R.on = False
    R.phase = None
    mode.__exit__(None, None, None)


# ---- accelerator: counting wrappers and CUDA-path emulation --------------------------------------


def _count_accel(name):
    if R.on:
        R.accel[R.key()][name] += 1


class FakeStream:
    """Stands for a torch.cuda.Stream: every method a no-op (the CPU has finished every op already)."""

    def __init__(self, *a, **k):
        _count_accel("Stream()")

    def synchronize(self):
        _count_accel("Stream.synchronize")

    def wait_stream(self, stream):
        _count_accel("Stream.wait_stream")

    def wait_event(self, event):
        _count_accel("Stream.wait_event")

    def record_event(self, event=None):
        _count_accel("Stream.record_event")
        return event if event is not None else FakeEvent()

    def query(self):
        _count_accel("Stream.query")
        return True


class FakeEvent:

    def __init__(self, *a, **k):
        _count_accel("Event()")

    def record(self, stream=None):
        _count_accel("Event.record")

    def synchronize(self):
        _count_accel("Event.synchronize")

    def wait(self, stream=None):
        _count_accel("Event.wait")

    def query(self):
        _count_accel("Event.query")
        return True

    def elapsed_time(self, other):
        _count_accel("Event.elapsed_time")
        return 0.0


_DEFAULT_STREAM = None


class _StreamCtx:

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def install_accelerator(cuda_paths):
    """Counting wrappers on every method of the accelerator class; with cuda_paths, answer like the
    CUDA accelerator and hand out FakeStream/FakeEvent. Must run before zero.Init / initialize."""
    global _DEFAULT_STREAM
    import torch
    from deepspeed.accelerator import get_accelerator
    acc = get_accelerator()
    cls = type(acc)
    wrapped = []
    for name, attr in list(vars(cls).items()):
        if name.startswith("__") or not callable(attr) or isinstance(attr, (staticmethod, classmethod, type)):
            continue

        def mk(fn, nm):

            def w(self, *a, **k):
                _count_accel(nm)
                return fn(self, *a, **k)

            w.__name__ = fn.__name__
            w.__qualname__ = getattr(fn, "__qualname__", nm)
            w._host_ops_orig = fn
            return w

        setattr(cls, name, mk(attr, name))
        wrapped.append(name)
    emulated = []
    if cuda_paths:
        _DEFAULT_STREAM = object.__new__(FakeStream)
        for nm in ("is_synchronized_device", "resolves_data_dependency", "handles_memory_backpressure",
                   "use_host_timers"):

            def f(self, _nm=nm):
                _count_accel(_nm)
                return False

            setattr(cls, nm, f)
            emulated.append(nm)

        def current_stream(self, device_index=None):
            _count_accel("current_stream")
            return _DEFAULT_STREAM

        def default_stream(self, device_index=None):
            _count_accel("default_stream")
            return _DEFAULT_STREAM

        def stream(self, s):
            _count_accel("stream")
            return _StreamCtx()

        cls.current_stream = current_stream
        cls.default_stream = default_stream
        cls.stream = stream
        cls.Stream = property(lambda self: FakeStream)
        cls.Event = property(lambda self: FakeEvent)
        emulated += ["current_stream", "default_stream", "stream", "Stream", "Event"]

        orig_rs = torch.Tensor.record_stream

        def record_stream(self, s):
            if isinstance(s, FakeStream):
                R.record_stream_calls += 1
                if R.on:
                    note_op(None, sys._getframe(1), name="aten::record_stream", cls="meta")
                return None
            return orig_rs(self, s)

        torch.Tensor.record_stream = record_stream
        emulated.append("Tensor.record_stream")
    return {"wrapped_methods": sorted(wrapped), "cuda_paths_emulated": emulated}


def _is_device_arg(x):
    import torch
    return isinstance(x, (str, torch.device, torch.Tensor)) or (isinstance(x, int) and not isinstance(x, bool))


def install_move_counter():
    """Tensor.to(<device>) / .cpu() that returned the tensor itself (no dispatch, no copy): on this CPU run
    every 'device' is the host, so a move that is an H2D/D2H copy on CUDA (offload: partitions to the GPU
    and back; .cpu() of a device tensor) can be a no-op here. Counted with the site that asked for it."""
    import torch
    orig_to = torch.Tensor.to
    orig_cpu = torch.Tensor.cpu

    def to(self, *a, **k):
        r = orig_to(self, *a, **k)
        if R.on and not R.in_disp and r is self and ("device" in k or (a and _is_device_arg(a[0]))):
            owner, _, of = stack_owner(sys._getframe(1))
            R.moves[R.key()][("to", owner, _site(of))] += 1
        return r

    def cpu(self, *a, **k):
        r = orig_cpu(self, *a, **k)
        if R.on and not R.in_disp and r is self:
            owner, _, of = stack_owner(sys._getframe(1))
            R.moves[R.key()][("cpu", owner, _site(of))] += 1
        return r

    torch.Tensor.to = to
    torch.Tensor.cpu = cpu
    return ["Tensor.to", "Tensor.cpu"]


def mqa_as_cuda(query, key, value, enable_gqa=False):
    """Multi-query attention (Falcon-7B: one key and value head, no enable_gqa): recent PyTorch's
    fused CUDA kernels take it (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp: flash,
    memory-efficient and cuDNN check the heads with supports_mqa), the CPU's flash kernel does
    not, and SDPA falls back to its math path (fp32 copies, the score matrix). The head expanded
    to every query head is a view, and its backward the sum over the heads that the fused
    kernels' MQA backward makes for dk and dv. Not yet confirmed on a GPU. Any other key and value
    come back as they are."""
    heads = query.size(-3)
    if key.dim() != 4 or not key.size(-3) == 1 < heads or enable_gqa:
        return key, value
    return key.expand(-1, heads, -1, -1), value.expand(-1, heads, -1, -1)


def trainable_mask_as_cuda():
    """SDPA with a float mask that takes a gradient (T5's relative position bias, which every layer
    adds to): PyTorch's CUDA path runs the memory-efficient kernel, the only fused one taking such a
    mask (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp: flash refuses any mask), after
    attention.cpp's preprocess_mask expands the mask to b x heads x L x S; its backward
    (_scaled_dot_product_efficient_attention_backward, torch/_meta_registrations.py) writes the
    mask's gradient with the others, and the expand's backward sums it over the batch. The CPU's
    flash kernel refuses a mask that takes a gradient and SDPA falls to its math path (bmm,
    softmax, the score matrix). So this runs the CPU's flash kernel forward and backward on the
    expanded mask, the gradient an empty tensor of its shape (the one allocation the fused kernel
    makes for it): a kernel each way, the expand's view and sum, as on CUDA. Not yet confirmed on
    a GPU (scripts/check_sdpa_backends.py)."""
    import torch
    aten = torch.ops.aten

    class MemoryEfficient(torch.autograd.Function):
        @staticmethod
        def forward(ctx, query, key, value, mask, is_causal, scale):
            out, lse = aten._scaled_dot_product_flash_attention_for_cpu(query, key, value, 0.0, is_causal,
                                                                        attn_mask=mask, scale=scale)
            ctx.save_for_backward(query, key, value, mask, out, lse)
            ctx.is_causal, ctx.scale = is_causal, scale
            return out

        @staticmethod
        def backward(ctx, grad):
            query, key, value, mask, out, lse = ctx.saved_tensors
            dq, dk, dv = aten._scaled_dot_product_flash_attention_for_cpu_backward(
                grad, query, key, value, out, lse, 0.0, ctx.is_causal, attn_mask=mask, scale=ctx.scale)
            return dq, dk, dv, torch.empty(mask.shape, dtype=mask.dtype), None, None

    def sdpa(query, key, value, mask, is_causal, scale):
        full = mask.expand(query.size(0), query.size(1), query.size(2), key.size(2))
        return MemoryEfficient.apply(query, key, value, full, is_causal, scale)

    return sdpa


def install_dropout_cuda_path():
    import torch
    import torch.nn.functional as F
    orig = F.dropout

    def dropout(input, p=0.5, training=True, inplace=False):
        if training and not inplace and 0.0 < p < 1.0 and input.numel() > 0 and not torch.jit.is_scripting():
            return torch.native_dropout(input, p, True)[0]
        return orig(input, p, training, inplace)

    F.dropout = dropout
    orig_sdpa = F.scaled_dot_product_attention
    trainable_mask = trainable_mask_as_cuda()

    def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *a, **k):
        # CPU flash attention rejects dropout > 0 and sdpa falls back to the math path (fp32 upcasts, bmm,
        # softmax, dropout: ~25 ops forward, ~35 backward); CUDA's flash kernel takes the dropout inside its
        # one op. Drop the probability dropout so the CPU picks its one-op flash kernel as CUDA does.
        key, value = mqa_as_cuda(query, key, value, k.get("enable_gqa", False))
        if attn_mask is not None and attn_mask.requires_grad and torch.is_grad_enabled() and not a and \
                set(k) <= {"scale", "enable_gqa"}:
            return trainable_mask(query, key, value, attn_mask, is_causal, k.get("scale"))
        return orig_sdpa(query, key, value, attn_mask, 0.0, is_causal, *a, **k)

    F.scaled_dot_product_attention = scaled_dot_product_attention
    return ["torch.nn.functional.dropout -> torch.native_dropout (training, 0<p<1)",
            "torch.nn.functional.scaled_dot_product_attention: dropout_p -> 0.0 (CPU flash kernel, not the math path)",
            "torch.nn.functional.scaled_dot_product_attention: one key/value head expanded to the query heads "
            "(CUDA's fused kernels take multi-query attention, the CPU's flash kernel does not)",
            "torch.nn.functional.scaled_dot_product_attention: a float mask that takes a gradient (T5's position "
            "bias) as CUDA's memory-efficient kernel takes it (the CPU's flash kernel forward and backward, the "
            "mask expanded, its gradient one output of the backward)"]


# ---- deepspeed.comm: outermost-call counters ------------------------------------------------------

DS_OPS = [
    "all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "allgather_fn", "reduce_scatter",
    "reduce_scatter_tensor", "reduce_scatter_fn", "all_reduce_coalesced", "all_gather_coalesced",
    "inference_all_reduce", "all_to_all", "all_to_all_single", "barrier", "monitored_barrier", "send", "recv",
    "isend", "irecv", "gather", "scatter", "broadcast_object_list", "all_gather_object"
]


def install_comm():
    import deepspeed  # noqa: F401
    import deepspeed.comm.comm as dcomm
    for m in ("deepspeed.runtime.engine", "deepspeed.runtime.zero.stage_1_and_2", "deepspeed.runtime.zero.stage3",
              "deepspeed.runtime.zero.partition_parameters", "deepspeed.runtime.zero.partitioned_param_coordinator",
              "deepspeed.runtime.comm.coalesced_collectives", "deepspeed.runtime.utils",
              "deepspeed.runtime.bf16_optimizer", "deepspeed.runtime.fp16.unfused_optimizer",
              "deepspeed.runtime.zero.parameter_offload"):
        try:
            __import__(m)
        except Exception:
            pass
    originals = {}
    for op in DS_OPS:
        orig = getattr(dcomm, op, None)
        if orig is None:
            continue

        def mk(fn, nm):

            def w(*a, **k):
                if R.on and R.comm_depth == 0:
                    R.comm[R.key()][nm] += 1
                R.comm_depth += 1
                try:
                    return fn(*a, **k)
                finally:
                    R.comm_depth -= 1

            w.__name__ = getattr(fn, "__name__", nm)
            w._host_ops_orig = fn
            return w

        originals[id(orig)] = (orig, mk(orig, op))
    return rebind_in_deepspeed(originals)


# ---------------------------------------------------------------------------------------------
# CPU fix (same as the oracle's): make the CPU run take the code path a CUDA run takes
# ---------------------------------------------------------------------------------------------


def apply_cpu_fixes():
    import torch
    fixes = []
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
        fixes.append("stage_1_and_2.split_half_float_double: dtype-based split (CPU type-string bug, fixed in 0.19.8)")
    return fixes


# ---------------------------------------------------------------------------------------------
# Model
# ---------------------------------------------------------------------------------------------


def resolve_model_class(spec):
    import torch._dynamo  # noqa: F401
    from transformers import AutoConfig, AutoModelForCausalLM  # noqa: F401
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING
    s = dict(spec)
    cfg = AutoConfig.for_model(s.pop("model_type"), **s)
    cls = MODEL_FOR_CAUSAL_LM_MAPPING[type(cfg)]
    try:
        import transformers.generation  # noqa: F401
    except Exception:
        pass
    return cls, cfg


def build_model(resolved):
    from transformers import AutoModelForCausalLM
    cls, cfg = resolved
    return AutoModelForCausalLM.from_config(cfg)


# ---------------------------------------------------------------------------------------------
# Worker
# ---------------------------------------------------------------------------------------------


def _redirect_fds(path):
    f = open(path, "w", buffering=1)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(f.fileno(), 1)
    os.dup2(f.fileno(), 2)
    return f


def run_rank(body, rank, a, tmpdir):
    """One spawned rank of run_ranks: its stdout and stderr into tmpdir/rank{rank}.log, then
    body(rank, a, result); result (with "ok", and the error and traceback if body raised) is
    written to tmpdir/rank{rank}.json whatever happens."""
    log_f = _redirect_fds(os.path.join(tmpdir, f"rank{rank}.log"))
    result = {"rank": rank, "ok": False}
    try:
        body(rank, a, result)
        result["ok"] = True
    except BaseException as e:
        result["error"] = f"{type(e).__name__}: {e}"
        result["traceback"] = traceback.format_exc()
        raise
    finally:
        with open(os.path.join(tmpdir, f"rank{rank}.json"), "w") as f:
            json.dump(result, f, default=str)
        log_f.flush()


def worker(rank, a, tmpdir):
    run_rank(_worker_body, rank, a, tmpdir)


def _kv(d):
    return {"|".join(map(str, k)) if isinstance(k, tuple) else k: v for k, v in d.items()}


def _worker_body(rank, a, result):
    global _ENGINE_RUN_BACKWARD, _MODCALL_CODE, _FNAPPLY_CODE
    ws = a["world_size"]
    os.environ.update({
        "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(ws), "LOCAL_WORLD_SIZE": str(ws),
        "LOCAL_SIZE": str(ws), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(a["port"]), "DS_ACCELERATOR": "cpu"
    })
    import torch
    torch.set_num_threads(1)
    import torch.autograd.graph as tag
    _ENGINE_RUN_BACKWARD = tag._engine_run_backward.__code__
    _MODCALL_CODE = torch.nn.Module._wrapped_call_impl.__code__
    _FNAPPLY_CODE = torch.autograd.Function.apply.__func__.__code__

    import deepspeed
    result["n_comm_refs_wrapped"] = install_comm()
    result["cpu_fixes"] = apply_cpu_fixes()
    result["accelerator"] = install_accelerator(a["cuda_paths"])
    result["dropout"] = install_dropout_cuda_path() if a["cuda_paths"] else None
    result["move_counter"] = install_move_counter()
    deepspeed.init_distributed(dist_backend="gloo", timeout=datetime.timedelta(seconds=300))

    cfg = a["ds_config"]
    stage = int(cfg.get("zero_optimization", {}).get("stage", 0))
    torch.manual_seed(1234)
    resolved = resolve_model_class(a["model"])
    if stage == 3:
        with deepspeed.zero.Init(config_dict_or_path=cfg):
            model = build_model(resolved)
        # transformers' grouped experts hold torch.empty 3-D parameters that its init does not
        # reach under zero.Init (partitioned) and may hold garbage (one run saw NaN losses). Set them here,
        # before the engine and the recording.
        for m in model.modules():
            own = list(m.parameters(recurse=False))
            if type(m).__name__.endswith("Experts") and own:
                with deepspeed.zero.GatheredParameters(own, modifier_rank=0):
                    with torch.no_grad():
                        for p in own:
                            p.normal_(0.0, 0.02)
    else:
        model = build_model(resolved)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    opt = engine.optimizer
    inner = getattr(opt, "optimizer", None)
    seen = set()
    n_t, numel = 0, 0
    for p in engine.module.parameters():
        if id(p) in seen:
            continue
        seen.add(id(p))
        n_t += 1
        numel += int(getattr(p, "ds_numel", p.numel()))
    n_named = sum(1 for _ in engine.module.named_parameters(remove_duplicate=False))
    result["model"] = {
        "n_param_tensors": n_t, "n_param_tensors_incl_tied": n_named, "n_params": numel,
        "n_modules": sum(1 for _ in engine.module.modules()),
        "n_param_modules": sum(1 for m in engine.module.modules() if any(True for _ in m.parameters(recurse=False))),
        "module_classes": dict(collections.Counter(type(m).__name__ for m in engine.module.modules())),
        "attn_implementation": getattr(engine.module.config, "_attn_implementation", None),
    }
    result["engine"] = {
        "optimizer_class": type(opt).__module__ + "." + type(opt).__name__ if opt is not None else None,
        "inner_optimizer_class": (type(inner).__module__ + "." + type(inner).__name__) if inner is not None else None,
        "inner_optimizer_defaults": {k: v for k, v in getattr(inner, "defaults", {}).items()
                                     if isinstance(v, (bool, int, float, str, type(None)))} if inner is not None else None,
        "zero_stage": engine.zero_optimization_stage(), "bf16": bool(engine.bfloat16_enabled()),
        "gradient_accumulation_steps": engine.gradient_accumulation_steps(),
        "train_micro_batch_size_per_gpu": engine.train_micro_batch_size_per_gpu(),
        "dp_world_size": engine.dp_world_size,
    }
    for k in ("overlap_comm", "contiguous_gradients", "partition_gradients", "reduce_bucket_size", "cpu_offload",
              "use_multi_rank_bucket_allreduce", "offload_optimizer", "offload_param", "offload_optimizer_pin_memory",
              "cpu_offload_pin_memory"):
        v = getattr(opt, k, None)
        if isinstance(v, (bool, int, float, str)):
            result["engine"][k] = v
    grad_hooks = 0
    for p in engine.module.parameters():
        hooks = getattr(p, "_post_accumulate_grad_hooks", None)
        if hooks:
            grad_hooks += len(hooks)
    result["engine"]["post_accumulate_grad_hooks"] = grad_hooks

    vocab = resolved[1].vocab_size
    g = torch.Generator().manual_seed(42 + rank)
    mb, seq = engine.train_micro_batch_size_per_gpu(), a["seq_len"]
    ga = engine.gradient_accumulation_steps()
    mode = make_mode()
    boundaries = []
    losses = []

    def one_step(record):
        for m in range(ga):
            ids = torch.randint(0, vocab, (mb, seq), generator=g)
            if record:
                begin("forward", m, mode)
            out = engine(input_ids=ids, labels=ids, use_cache=False)
            if record:
                end(mode)
            loss = out.loss
            if record:
                begin("backward", m, mode)
            engine.backward(loss)
            if record:
                end(mode)
            bnd = bool(engine.is_gradient_accumulation_boundary())
            if record:
                boundaries.append(bnd)
                begin("step", m, mode)
            engine.step()
            if record:
                end(mode)
            losses.append(float(loss.detach().float()))
            del out, loss

    for _ in range(a["warmup_steps"]):
        one_step(False)
    t0 = time.time()
    one_step(True)
    result["traced_seconds"] = round(time.time() - t0, 3)
    result["global_steps"] = engine.global_steps
    result["losses"] = losses
    result["boundaries"] = boundaries
    result["ga"] = ga

    def dump(d):
        return {f"{k[0]}|{k[1]}": _kv(v) for k, v in d.items()}

    result["raw"] = {
        "ops": dump(R.ops), "py": dump(R.py), "dsfn": dump(R.dsfn), "mods": dump(R.mods),
        "mod_unique": {f"{k[0]}|{k[1]}": len(v) for k, v in R.mod_ids.items()},
        "fnapply": dump(R.fnapply), "accel": dump(R.accel), "comm": dump(R.comm), "sites": dump(R.sites),
        "moves": dump(R.moves),
    }
    try:
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()
    except Exception:
        pass


# ---------------------------------------------------------------------------------------------
# Parent: launch one case, compact
# ---------------------------------------------------------------------------------------------

PHASES = ("forward", "backward", "step")
# .item() sites that read host tensors even on CUDA: torch.optim's per-parameter step counters (on the
# CPU unless capturable/fused) read by _get_value for the bias corrections
HOST_SCALAR_SITES = {"optim/optimizer:_get_value"}
CLASSES = ("kernel", "view", "alloc", "scalar_read", "copy", "from_py", "collective", "meta")
NAMED_FUNCS = [
    # (label, file suffix, function name (co_name) or qualname suffix)
    ("engine.forward", "runtime/engine.py", "DeepSpeedEngine.forward"),
    ("engine.backward", "runtime/engine.py", "DeepSpeedEngine.backward"),
    ("engine.step", "runtime/engine.py", "DeepSpeedEngine.step"),
    ("engine._take_model_step", "runtime/engine.py", "DeepSpeedEngine._take_model_step"),
    ("engine.allreduce_gradients", "runtime/engine.py", "DeepSpeedEngine.allreduce_gradients"),
    ("engine._backward_epilogue", "runtime/engine.py", "DeepSpeedEngine._backward_epilogue"),
    ("engine.buffered_allreduce_fallback", "runtime/engine.py", "DeepSpeedEngine.buffered_allreduce_fallback"),
    ("engine._module_forward_pre_hook", "runtime/engine.py", "_module_forward_pre_hook"),
    ("engine._module_forward_post_hook", "runtime/engine.py", "_module_forward_post_hook"),
    ("s12.grad_handling_hook", "runtime/zero/stage_1_and_2.py", "grad_handling_hook"),
    ("s12.process_gradients", "runtime/zero/stage_1_and_2.py", "DeepSpeedZeroOptimizer.process_gradients"),
    ("s12.reduce_ready_partitions_and_remove_grads", "runtime/zero/stage_1_and_2.py",
     "DeepSpeedZeroOptimizer.reduce_ready_partitions_and_remove_grads"),
    ("s12.reduce_independent_p_g_buckets_and_remove_grads", "runtime/zero/stage_1_and_2.py",
     "DeepSpeedZeroOptimizer.reduce_independent_p_g_buckets_and_remove_grads"),
    ("s12.reduce_ipg_grads", "runtime/zero/stage_1_and_2.py", "DeepSpeedZeroOptimizer.reduce_ipg_grads"),
    ("s12.average_tensor", "runtime/zero/stage_1_and_2.py", "DeepSpeedZeroOptimizer.average_tensor"),
    ("s12.allreduce_and_copy_with_multiple_ranks", "runtime/zero/stage_1_and_2.py",
     "DeepSpeedZeroOptimizer.allreduce_and_copy_with_multiple_ranks"),
    ("s12.copy_grads_in_partition", "runtime/zero/stage_1_and_2.py", "DeepSpeedZeroOptimizer.copy_grads_in_partition"),
    ("s12.independent_gradient_partition_epilogue", "runtime/zero/stage_1_and_2.py",
     "DeepSpeedZeroOptimizer.independent_gradient_partition_epilogue"),
    ("s12.async_accumulate_grad_in_cpu_via_gpu", "runtime/zero/stage_1_and_2.py",
     "DeepSpeedZeroOptimizer.async_accumulate_grad_in_cpu_via_gpu"),
    ("s12.async_inplace_copy_grad_to_fp32_buffer_from_gpu", "runtime/zero/stage_1_and_2.py",
     "DeepSpeedZeroOptimizer.async_inplace_copy_grad_to_fp32_buffer_from_gpu"),
    ("s12.complete_grad_norm_calculation_for_cpu_offload", "runtime/zero/stage_1_and_2.py",
     "DeepSpeedZeroOptimizer.complete_grad_norm_calculation_for_cpu_offload"),
    ("s12.update_overflow_tracker_for_param_grad", "runtime/zero/stage_1_and_2.py",
     "DeepSpeedZeroOptimizer.update_overflow_tracker_for_param_grad"),
    ("s12.update_offload_overflow_tracker_for_param_grad", "runtime/zero/stage_1_and_2.py",
     "DeepSpeedZeroOptimizer.update_offload_overflow_tracker_for_param_grad"),
    ("s12.step", "runtime/zero/stage_1_and_2.py", "DeepSpeedZeroOptimizer.step"),
    ("s12.get_grad_norm_direct", "runtime/zero/stage_1_and_2.py", "DeepSpeedZeroOptimizer.get_grad_norm_direct"),
    ("s12.has_overflow", "runtime/zero/stage_1_and_2.py", "DeepSpeedZeroOptimizer.has_overflow"),
    ("s12.unscale_and_clip_grads", "runtime/zero/stage_1_and_2.py", "DeepSpeedZeroOptimizer.unscale_and_clip_grads"),
    ("s12.all_gather_dp_groups", "runtime/utils.py", "all_gather_dp_groups"),
    ("s3.reduce_partition_and_remove_grads", "runtime/zero/stage3.py", "reduce_partition_and_remove_grads"),
    ("s3.reduce_ready_partitions_and_remove_grads", "runtime/zero/stage3.py",
     "DeepSpeedZeroOptimizer_Stage3.reduce_ready_partitions_and_remove_grads"),
    ("s3.__add_grad_to_ipg_bucket", "runtime/zero/stage3.py", "DeepSpeedZeroOptimizer_Stage3.__add_grad_to_ipg_bucket"),
    ("s3.__reduce_and_partition_ipg_grads", "runtime/zero/stage3.py",
     "DeepSpeedZeroOptimizer_Stage3.__reduce_and_partition_ipg_grads"),
    ("s3.__avg_scatter_contiguous_grads", "runtime/zero/stage3.py",
     "DeepSpeedZeroOptimizer_Stage3.__avg_scatter_contiguous_grads"),
    ("s3.partition_grads", "runtime/zero/stage3.py", "DeepSpeedZeroOptimizer_Stage3.partition_grads"),
    ("s3.independent_gradient_partition_epilogue", "runtime/zero/stage3.py",
     "DeepSpeedZeroOptimizer_Stage3.independent_gradient_partition_epilogue"),
    ("s3.step", "runtime/zero/stage3.py", "DeepSpeedZeroOptimizer_Stage3.step"),
    ("s3._pre_step", "runtime/zero/stage3.py", "DeepSpeedZeroOptimizer_Stage3._pre_step"),
    ("s3._post_step", "runtime/zero/stage3.py", "DeepSpeedZeroOptimizer_Stage3._post_step"),
    ("s3._optimizer_step", "runtime/zero/stage3.py", "DeepSpeedZeroOptimizer_Stage3._optimizer_step"),
    ("s3.has_overflow", "runtime/zero/stage3.py", "DeepSpeedZeroOptimizer_Stage3.has_overflow"),
    ("s3.get_grad_norm_direct", "runtime/zero/stage3.py", "DeepSpeedZeroOptimizer_Stage3.get_grad_norm_direct"),
    ("s3.unscale_and_clip_grads", "runtime/zero/stage3.py", "DeepSpeedZeroOptimizer_Stage3.unscale_and_clip_grads"),
    ("offload._pre_forward_module_hook", "runtime/zero/parameter_offload.py", "_pre_forward_module_hook"),
    ("offload._post_forward_module_hook", "runtime/zero/parameter_offload.py", "_post_forward_module_hook"),
    ("offload._pre_backward_module_hook", "runtime/zero/parameter_offload.py", "_pre_backward_module_hook"),
    ("offload._post_backward_module_hook", "runtime/zero/parameter_offload.py", "_post_backward_module_hook"),
    ("offload.pre_sub_module_forward_function", "runtime/zero/parameter_offload.py",
     "DeepSpeedZeRoOffload.pre_sub_module_forward_function"),
    ("offload.post_sub_module_forward_function", "runtime/zero/parameter_offload.py",
     "DeepSpeedZeRoOffload.post_sub_module_forward_function"),
    ("offload.pre_sub_module_backward_function", "runtime/zero/parameter_offload.py",
     "DeepSpeedZeRoOffload.pre_sub_module_backward_function"),
    ("offload.post_sub_module_backward_function", "runtime/zero/parameter_offload.py",
     "DeepSpeedZeRoOffload.post_sub_module_backward_function"),
    ("offload.PreBackwardFunctionForModule.backward", "runtime/zero/parameter_offload.py",
     "PreBackwardFunctionForModule.backward"),
    ("offload.PostBackwardFunctionModule.backward", "runtime/zero/parameter_offload.py",
     "PostBackwardFunctionModule.backward"),
    ("ppc.fetch_sub_module", "runtime/zero/partitioned_param_coordinator.py",
     "PartitionedParameterCoordinator.fetch_sub_module"),
    ("ppc.release_sub_module", "runtime/zero/partitioned_param_coordinator.py",
     "PartitionedParameterCoordinator.release_sub_module"),
    ("ppc.__all_gather_params", "runtime/zero/partitioned_param_coordinator.py",
     "PartitionedParameterCoordinator.__all_gather_params"),
    ("ppc.__release_param", "runtime/zero/partitioned_param_coordinator.py",
     "PartitionedParameterCoordinator.__release_param"),
    ("ppc.record_module", "runtime/zero/partitioned_param_coordinator.py",
     "PartitionedParameterCoordinator.record_module"),
    ("zinit.all_gather_coalesced", "runtime/zero/partition_parameters.py", "all_gather_coalesced"),
    ("zinit.AllGatherCoalescedHandle.wait", "runtime/zero/partition_parameters.py", "AllGatherCoalescedHandle.wait"),
    ("zinit.partition", "runtime/zero/partition_parameters.py", "partition"),
    ("zinit._partition_param", "runtime/zero/partition_parameters.py", "Init._partition_param"),
    ("zinit.free_param", "runtime/zero/partition_parameters.py", "free_param"),
    ("bf16/fp16.step", "runtime/fp16/unfused_optimizer.py", "FP16_UnfusedOptimizer.step"),
    ("bf16_optimizer.step", "runtime/bf16_optimizer.py", "BF16_Optimizer.step"),
    ("DeepSpeedCPUAdam.step", "ops/adam/cpu_adam.py", "DeepSpeedCPUAdam.step"),
]


def _phase_micro(key):
    ph, mi = key.split("|")
    return ph, int(mi)


def compact(res0, res1, meta):
    """rank results -> the compact recording."""
    ga = res0["ga"]
    raw = res0["raw"]
    micros = []
    ops_hist = {ph: collections.Counter() for ph in PHASES}  # summed over micro
    ops_owner_hist = {ph: collections.Counter() for ph in PHASES}
    dsfn_hist = {ph: collections.Counter() for ph in PHASES}
    dsfn_max = {}  # largest count in one (phase, micro-step)
    named = {}
    sites = {ph: collections.defaultdict(collections.Counter) for ph in PHASES}
    moves = {ph: collections.Counter() for ph in PHASES}

    def totals(rawd, ph, m, full=True):
        key = f"{ph}|{m}"
        ops = rawd["ops"].get(key, {})
        t = {"aten": 0, "cls": collections.Counter(), "owner": collections.Counter(), "owner_cls": {},
             "via": collections.Counter()}
        for k, n in ops.items():
            owner, via, name = k.split("|")
            c = op_class_by_name(name)
            t["aten"] += n
            t["cls"][c] += n
            t["owner"][owner] += n
            t["owner_cls"].setdefault(owner, collections.Counter())[c] += n
            t["via"][via] += n
            if full:
                ops_hist[ph][name] += n
                ops_owner_hist[ph][f"{owner}|{name}"] += n
        out = {"aten": t["aten"], "cls": dict(sorted(t["cls"].items())), "owner": dict(sorted(t["owner"].items())),
               "owner_cls": {o: dict(sorted(v.items())) for o, v in sorted(t["owner_cls"].items())},
               "via": dict(sorted(t["via"].items()))}
        py = rawd["py"].get(key, {})
        out["py_calls"] = dict(sorted(py.items()))
        out["py_calls_total"] = sum(py.values())
        out["modules"] = dict(sorted(rawd["mods"].get(key, {}).items()))
        out["modules_unique"] = rawd["mod_unique"].get(key, 0)
        fa = rawd["fnapply"].get(key, {})
        out["fn_apply"] = dict(sorted(fa.items()))
        acc = rawd["accel"].get(key, {})
        out["accel"] = dict(sorted(acc.items()))
        out["comm"] = dict(sorted(rawd["comm"].get(key, {}).items()))
        sr = out["cls"].get("scalar_read", 0)
        sr_host = sum(n for k, n in rawd["sites"].get(key, {}).items()
                      if k.startswith("scalar_read|") and k.split("|", 2)[2] in HOST_SCALAR_SITES)
        out["syncs"] = {
            "scalar_read": sr,
            "scalar_read_host_state": sr_host,
            "synchronize": acc.get("synchronize", 0),
            "stream_synchronize": acc.get("Stream.synchronize", 0),
            "event_synchronize": acc.get("Event.synchronize", 0),
            "implicit_sync_ops": sum(n for k, n in ops.items() if k.split("|")[2] in IMPLICIT_SYNC),
            "stream_waits": acc.get("Stream.wait_stream", 0) + acc.get("Stream.wait_event", 0) + acc.get(
                "Event.wait", 0),
            "event_query": acc.get("Event.query", 0) + acc.get("Stream.query", 0),
        }
        out["syncs"]["blocking_total"] = (sr - sr_host + out["syncs"]["synchronize"] + out["syncs"]["stream_synchronize"] +
                                          out["syncs"]["event_synchronize"] + out["syncs"]["implicit_sync_ops"])
        out["syncs"] = {k: v for k, v in out["syncs"].items() if v or k == "blocking_total"}
        out["comm_total"] = sum(out["comm"].values())
        ds = rawd["dsfn"].get(key, {})
        out["ds_fn_calls"] = sum(ds.values())
        if full:
            for k, n in ds.items():
                dsfn_hist[ph][k] += n
                dsfn_max[k] = max(dsfn_max.get(k, 0), n)
            for (label, fsuf, fname) in NAMED_FUNCS:
                c = 0
                for k, n in ds.items():
                    f, q = k.split(":", 1)
                    if f == fsuf and (q == fname or q.endswith("." + fname) or q.split(".")[-1] == fname):
                        c += n
                if c:
                    named.setdefault(label, {}).setdefault(ph, [0] * ga)[m] = c
            for k, n in rawd["sites"].get(key, {}).items():
                c, owner, site = k.split("|", 2)
                sites[ph][f"{owner}|{site}"][c] += n
            for k, n in rawd["moves"].get(key, {}).items():
                moves[ph][k] += n
        out["noop_device_moves"] = sum(rawd["moves"].get(key, {}).values())
        return out

    via = {ph: collections.Counter() for ph in PHASES}
    for m in range(ga):
        row = {"micro": m, "boundary": bool(res0["boundaries"][m])}
        for ph in PHASES:
            row[ph] = totals(raw, ph, m)
            via[ph].update(row[ph].pop("via"))
        micros.append(row)
    other = None
    if res1 is not None and res1.get("raw"):
        other = {"rank": res1["rank"], "micro": []}
        for m in range(ga):
            r = {"micro": m}
            for ph in PHASES:
                t = totals(res1["raw"], ph, m, full=False)
                r[ph] = {"aten": t["aten"], "cls": t["cls"], "owner": t["owner"], "py_calls_total": t["py_calls_total"],
                         "comm_total": t["comm_total"], "syncs_blocking": t["syncs"]["blocking_total"]}
            other["micro"].append(r)

    def phase_sum(ph):
        keys = ("aten", "py_calls_total", "comm_total", "ds_fn_calls", "modules_unique", "noop_device_moves")
        s = {k: sum(mi[ph][k] for mi in micros) for k in keys}
        s["cls"] = dict(sum((collections.Counter(mi[ph]["cls"]) for mi in micros), collections.Counter()))
        s["owner"] = dict(sum((collections.Counter(mi[ph]["owner"]) for mi in micros), collections.Counter()))
        s["syncs"] = dict(sum((collections.Counter(mi[ph]["syncs"]) for mi in micros), collections.Counter()))
        s["modules"] = dict(sum((collections.Counter(mi[ph]["modules"]) for mi in micros), collections.Counter()))
        s["accel"] = dict(sum((collections.Counter(mi[ph]["accel"]) for mi in micros), collections.Counter()))
        s["comm"] = dict(sum((collections.Counter(mi[ph]["comm"]) for mi in micros), collections.Counter()))
        s["fn_apply"] = dict(sum((collections.Counter(mi[ph]["fn_apply"]) for mi in micros), collections.Counter()))
        s["via"] = dict(via[ph])
        for k in ("cls", "owner", "syncs", "modules", "accel", "comm", "fn_apply", "via"):
            s[k] = dict(sorted(s[k].items()))
        return s

    rec = {
        "schema": SCHEMA,
        "meta": meta,
        "rules": RULES,
        "notes": NOTES_COMMON + meta.pop("_extra_notes", []),
        "step_totals": {ph: phase_sum(ph) for ph in PHASES},
        "micro": micros,
        "named_calls": dict(sorted(named.items())),
        "aten_ops": {ph: dict(sorted(ops_hist[ph].items())) for ph in PHASES},
        "aten_ops_by_owner": {ph: _by_owner(ops_owner_hist[ph]) for ph in PHASES},
        "ds_functions": _ds_fn_table(dsfn_hist, dsfn_max),
        "op_sites": {ph: {k: dict(sorted(v.items())) for k, v in sorted(sites[ph].items())} for ph in PHASES},
        "noop_device_moves": {ph: dict(sorted(moves[ph].items())) for ph in PHASES},
        "other_rank_totals": other,
    }
    return rec


def _by_owner(counter):
    out = {}
    for k, n in counter.items():
        owner, name = k.split("|", 1)
        out.setdefault(owner, {})[name] = n
    return {o: dict(sorted(v.items())) for o, v in sorted(out.items())}


def short_fn(key):
    """'runtime/zero/stage_1_and_2.py:DeepSpeedZeroOptimizer.f.<locals>.g' -> 'zero/stage_1_and_2:DeepSpeedZeroOptimizer.f>g'"""
    f, q = key.split(":", 1)
    if f.startswith("runtime/"):
        f = f[len("runtime/"):]
    if f.endswith(".py"):
        f = f[:-3]
    return f"{f}:{q.replace('.<locals>.', '>')}"


def _ds_fn_table(hists, maxes):
    """{short file: {qualname: [forward, backward, step]}} summed over micro-steps; functions called at most
    once in every (phase, micro-step) only in _rest."""
    keys = set()
    for ph in PHASES:
        keys.update(hists[ph])
    out = {}
    small_n, small_calls = 0, [0] * len(PHASES)
    for k in sorted(keys):
        c = [hists[ph].get(k, 0) for ph in PHASES]
        if maxes.get(k, 0) < DS_FN_MIN:
            small_n += 1
            small_calls = [x + y for x, y in zip(small_calls, c)]
            continue
        f, q = short_fn(k).split(":", 1)
        out.setdefault(f, {})[q] = c
    out["_rest"] = {"n_functions": small_n, "calls": small_calls}
    return out


DS_FN_MIN = 2


_NAME_CLS = {}


def op_class_by_name(name):
    c = _NAME_CLS.get(name)
    if c is not None:
        return c
    import torch
    if name == "aten::record_stream":
        c = "meta"
    else:
        base, _, ov = name.partition(".")
        ns, _, opn = base.partition("::")
        try:
            pk = getattr(getattr(torch.ops, ns), opn)
            func = getattr(pk, ov or "default")
            c = op_class(func)
        except Exception:
            c = "kernel"
    _NAME_CLS[name] = c
    return c


def _dump_compact(obj, indent=1):
    """JSON with one line per leaf dict / list of scalars (diff-friendly and small)."""

    def leafy(v):
        if isinstance(v, dict):
            return all(not isinstance(x, (dict, list)) for x in v.values())
        if isinstance(v, list):
            return all(not isinstance(x, (dict, list)) for x in v)
        return True

    def enc(v, lvl):
        pad = " " * (indent * lvl)
        pad1 = " " * (indent * (lvl + 1))
        if leafy(v):
            return json.dumps(v, separators=(",", ":"), sort_keys=False)
        if isinstance(v, dict):
            items = [f"{pad1}{json.dumps(k)}:{enc(x, lvl + 1)}" for k, x in v.items()]
            return "{\n" + ",\n".join(items) + "\n" + pad + "}"
        items = [f"{pad1}{enc(x, lvl + 1)}" for x in v]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"

    return enc(obj, 0) + "\n"


def effective_config(name_or_path, ga, mb, ws):
    if name_or_path in CONFIGS:
        cfg = copy.deepcopy(CONFIGS[name_or_path])
        name = name_or_path
    else:
        with open(name_or_path) as f:
            cfg = json.load(f)
        name = os.path.splitext(os.path.basename(name_or_path))[0]
    as_given = copy.deepcopy(cfg)
    cfg["gradient_accumulation_steps"] = ga
    cfg["train_micro_batch_size_per_gpu"] = mb
    cfg["train_batch_size"] = mb * ga * ws
    zc = cfg.get("zero_optimization", {})
    off_opt = (zc.get("offload_optimizer") or {}).get("device", "none") not in (None, "none")
    if "optimizer" not in cfg:
        params = {"lr": 1e-3, "weight_decay": 0.0}
        if not off_opt:
            params["torch_adam"] = True
            params["foreach"] = True
        cfg["optimizer"] = {"type": "AdamW", "params": params}
    if not off_opt:
        cfg.setdefault("zero_allow_untested_optimizer", True)
    cfg.setdefault("steps_per_print", 10**9)
    cfg.setdefault("wall_clock_breakdown", False)
    return name, as_given, cfg


def rebind_in_deepspeed(originals):
    """Replaces, in every loaded deepspeed.* module's namespace, each name bound to a function
    of `originals` ({id(fn): (fn, wrapper)}) by its wrapper; returns how many names it rebound."""
    n = 0
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


def free_port():
    """A free TCP port on the loopback for the ranks' rendezvous."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run_ranks(worker, a, world_size, timeout_s, prefix, poll_s=5, log_lines=40, log_line_chars=300):
    """Spawns `worker(rank, a, tmpdir)` on world_size processes, kills them past timeout_s, and
    returns (per-rank results read from tmpdir/rank{r}.json, error or None, wall seconds). A rank
    that failed gets {"ok": False} if it wrote nothing, and the last log_lines lines of its log
    (each cut to log_line_chars, None: whole); DeepSpeed's shared-memory all-reduce buffers of
    the run's port (a["port"]) are removed."""
    import glob
    import shutil
    import torch.multiprocessing as mp
    tmpdir = tempfile.mkdtemp(prefix=prefix)
    t0 = time.time()
    ctx = mp.start_processes(worker, args=(a, tmpdir), nprocs=world_size, join=False, start_method="spawn")
    err = None
    deadline = time.time() + timeout_s
    try:
        while not ctx.join(timeout=poll_s):
            if time.time() > deadline:
                err = f"timeout after {timeout_s}s"
                for p in ctx.processes:
                    if p.is_alive():
                        p.kill()
                break
    except Exception as e:
        err = f"{type(e).__name__}: {str(e)[:1500]}"
        for p in ctx.processes:
            if p.is_alive():
                p.kill()
    wall = round(time.time() - t0, 1)
    for fpath in glob.glob(f"/dev/shm/deepspeed_allreduce_buffer_*_{a['port']}_*"):
        try:
            os.remove(fpath)
        except OSError:
            pass
    ranks = []
    for r in range(world_size):
        p = os.path.join(tmpdir, f"rank{r}.json")
        if os.path.exists(p):
            with open(p) as f:
                ranks.append(json.load(f))
        else:
            ranks.append({"rank": r, "ok": False, "error": "no result file"})
        lp = os.path.join(tmpdir, f"rank{r}.log")
        if not ranks[-1].get("ok") and os.path.exists(lp):
            with open(lp, errors="replace") as f:
                ranks[-1]["log_tail"] = [l[:log_line_chars] for l in f.read().splitlines()[-log_lines:]]
    shutil.rmtree(tmpdir, ignore_errors=True)
    return ranks, err, wall


def run_case(args):
    import torch
    import deepspeed
    import transformers
    spec = dict(FAMILIES[args.family])
    if args.n_layers is not None:
        spec[LAYER_KEY[args.family]] = args.n_layers
    cname, as_given, cfg = effective_config(args.config, args.ga, args.micro_batch, args.world_size)
    port = free_port()
    a = {"world_size": args.world_size, "port": port, "ds_config": cfg, "model": spec, "seq_len": args.seq_len,
         "warmup_steps": args.warmup_steps, "cuda_paths": args.cuda_paths}
    ranks, err, wall = run_ranks(worker, a, args.world_size, args.timeout, "host_ops_")
    ok = err is None and all(r.get("ok") for r in ranks)
    r0 = ranks[args.rank]
    meta = {
        "case": case_name(args.family, cname, args.ga, args.n_layers, args.suffix),
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tool": "scripts/record_host_ops.py",
        "versions": {"python": sys.version.split()[0], "torch": torch.__version__, "deepspeed": deepspeed.__version__,
                     "transformers": transformers.__version__},
        "accelerator": "cpu", "backend": "gloo", "torch_threads": 1,
        "family": args.family, "model_spec": spec, "config_name": cname, "ds_config_as_given": as_given,
        "ds_config_effective": cfg, "world_size": args.world_size, "gradient_accumulation_steps": args.ga,
        "micro_batch": args.micro_batch, "seq_len": args.seq_len, "warmup_steps": args.warmup_steps,
        "recorded_rank": args.rank, "cuda_paths": args.cuda_paths, "ok": ok, "wall_seconds": wall,
    }
    if ok:
        meta["model"] = r0.get("model")
        meta["engine"] = r0.get("engine")
        meta["cpu_fixes"] = r0.get("cpu_fixes")
        meta["accelerator_patch"] = r0.get("accelerator")
        meta["dropout_patch"] = r0.get("dropout")
        meta["n_comm_refs_wrapped"] = r0.get("n_comm_refs_wrapped")
        meta["losses_rank0"] = [round(x, 4) for x in r0.get("losses", [])]
        meta["global_steps_after"] = r0.get("global_steps")
        others = [r for r in ranks if r.get("rank") != args.rank]
        rec = compact(r0, others[-1] if others else None, meta)
    else:
        meta["error"] = err or "; ".join(f"rank{r.get('rank')}: {r.get('error')}" for r in ranks if not r.get("ok"))
        meta["failure"] = [{"rank": r.get("rank"), "error": r.get("error"), "traceback": (r.get("traceback") or "")[-3000:],
                            "log_tail": r.get("log_tail")} for r in ranks if not r.get("ok")]
        rec = {"schema": SCHEMA, "meta": meta, "rules": RULES, "notes": NOTES_COMMON}
    out = args.out or os.path.join(DEFAULT_OUTDIR, meta["case"] + ".json")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        f.write(_dump_compact(rec))
    summ = {"case": meta["case"], "ok": ok, "wall_s": wall, "bytes": os.path.getsize(out), "out": out}
    if ok:
        summ["totals"] = {ph: {"aten": v["aten"], "py": v["py_calls_total"], "comm": v["comm_total"]}
                          for ph, v in rec["step_totals"].items()}
    else:
        summ["error"] = meta["error"][:500]
    print(json.dumps(summ))
    return 0 if ok else 1


def run_matrix(args):
    fams = args.families.split(",") if args.families else None
    cfgs = args.configs.split(",") if args.configs else None
    cases = matrix_cases(fams, cfgs)
    only = set(args.only.split(",")) if args.only else None
    outdir = args.outdir or DEFAULT_OUTDIR
    rc_all = 0
    for (fam, cfg, ga, nl) in cases:
        name = case_name(fam, cfg, ga, nl)
        if only and name not in only:
            continue
        out = os.path.join(outdir, name + ".json")
        if args.skip_existing and os.path.exists(out):
            continue
        cmd = [sys.executable, HERE, "--family", fam, "--config", cfg, "--ga", str(ga), "--world-size",
               str(args.world_size), "--micro-batch", str(args.micro_batch), "--seq-len", str(args.seq_len),
               "--warmup-steps", str(args.warmup_steps), "--out", out, "--timeout", str(args.timeout)]
        if nl is not None:
            cmd += ["--n-layers", str(nl)]
        if not args.cuda_paths:
            cmd.append("--cpu-paths")
        t0 = time.time()
        rc = subprocess.call(cmd)
        print(f"# {name}: rc={rc} {time.time() - t0:.0f}s", flush=True)
        rc_all |= rc
    return rc_all


HOOK_LABELS = ("engine._module_forward_pre_hook", "engine._module_forward_post_hook", "s12.grad_handling_hook", "s3.reduce_partition_and_remove_grads", "offload._pre_forward_module_hook",
               "offload._post_forward_module_hook", "offload._pre_backward_module_hook",
               "offload._post_backward_module_hook", "offload.PreBackwardFunctionForModule.backward",
               "offload.PostBackwardFunctionModule.backward")


def phase_row(rec, ph):
    """The report's per-phase numbers of one recording (summed over its micro-steps)."""
    t = rec["step_totals"][ph]
    cls = t["cls"]
    hooks = sum(sum(rec["named_calls"].get(h, {}).get(ph, [])) for h in HOOK_LABELS)
    mods = t["modules"]
    return {
        "aten": t["aten"], "kernel": cls.get("kernel", 0), "view": cls.get("view", 0),
        "copy": cls.get("copy", 0), "alloc": cls.get("alloc", 0), "scalar_read": cls.get("scalar_read", 0),
        "modules": sum(mods.values()), "modules_hf": mods.get("hf", 0), "hooks": hooks,
        "syncs": t["syncs"].get("blocking_total", 0), "waits": t["syncs"].get("stream_waits", 0),
        "comm": t["comm_total"], "py": t["py_calls_total"], "ds_py": t["ds_fn_calls"],
        "moves": t.get("noop_device_moves", 0),
    }


def summarize(paths):
    cols = ["aten", "kernel", "view", "copy", "scalar_read", "modules", "hooks", "syncs", "waits", "comm", "py", "moves"]
    print("| recording | Ψ / tensors | phase | " + " | ".join(cols) + " |")
    print("|---|---|---|" + "---:|" * len(cols))
    for p in paths:
        rec = json.load(open(p))
        m = rec["meta"]
        if not m.get("ok"):
            print(f"| {m['case']} | FAILED | | {m.get('error', '')[:120]} |" + " |" * (len(cols) - 1))
            continue
        mm = m["model"]
        for i, ph in enumerate(PHASES):
            r = phase_row(rec, ph)
            lead = f"| {m['case']} | {mm['n_params']:,} / {mm['n_param_tensors']} " if i == 0 else "| | "
            print(lead + f"| {ph} | " + " | ".join(f"{r[c]:,}" for c in cols) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", choices=sorted(FAMILIES), default="gpt2")
    ap.add_argument("--config", default="s2_b5e4", help=f"one of {sorted(CONFIGS)} or a ds_config JSON path")
    ap.add_argument("--n-layers", type=int, default=None, help="override the family's layer count")
    ap.add_argument("--ga", type=int, default=1)
    ap.add_argument("--micro-batch", type=int, default=1)
    ap.add_argument("--seq-len", type=int, default=64)
    ap.add_argument("--world-size", type=int, default=2)
    ap.add_argument("--warmup-steps", type=int, default=2)
    ap.add_argument("--rank", type=int, default=0, help="rank recorded in full (other_rank_totals: the last other rank)")
    ap.add_argument("--cpu-paths", dest="cuda_paths", action="store_false",
                    help="keep the CPU accelerator's synchronized-device paths and CPU dropout")
    ap.add_argument("--suffix", default="", help="appended to the case name (e.g. _cpupaths)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--matrix", action="store_true", help="run the whole matrix, one fresh interpreter per case")
    ap.add_argument("--families", default=None)
    ap.add_argument("--configs", default=None)
    ap.add_argument("--only", default=None, help="comma-separated case names")
    ap.add_argument("--outdir", default=None)
    ap.add_argument("--skip-existing", action="store_true")
    ap.add_argument("--summary", nargs="+", default=None, metavar="JSON",
                    help="print the report's markdown table for these recordings and exit")
    args = ap.parse_args()
    if args.summary:
        summarize(args.summary)
        return 0
    if args.matrix:
        return run_matrix(args)
    return run_case(args)


if __name__ == "__main__":
    sys.exit(main())
