#!/usr/bin/env python3
"""Times llm-analysis (PyPI `llm-analysis`, github cli99/llm-analysis) on the sweep `zerosim sweep` runs.

What it runs: llm-analysis's training analysis (memory and latency) for each configuration of
the grid bench/sweep_speed gives `zerosim sweep`: Llama-2 7B (llm-analysis's bundled config
NousResearch_Llama-2-7b-hf), A100 SXM 80GB (a100-sxm-80gb), 64 GPUs (8 nodes x 8, data parallel
64, no tensor or pipeline parallelism), sequence 4096, bf16 weights and activations (w16a16e16),
no flash attention, no activation recomputation, global batch 256, over
  zero_optimization.reduce_bucket_size = 1e7..5e8 step 1e7 (50 values)
  x micro batch 1, 2, 4, 8  x  ZeRO stage 1, 2, 3  x  overlap_comm true, false   = 1,200.
Gradient accumulation is 256 / (micro batch x 64): 4, 2, 1 for micro batch 1, 2, 4; micro batch
8 cannot make 256 on 64 GPUs, so it runs with 1 (global batch 512), as a DeepSpeed config
with that micro batch would have to.
llm-analysis has no knob for reduce_bucket_size or overlap_comm (it does not model data-parallel
communication at all: its step time is FLOPs / achieved TFLOPS), so those configurations run
with the same arguments; each is still a separate, complete call, so the count matches zerosim's.

Why: it is the closed-form estimator zerosim's sweep is compared with for speed; this measures
its configurations per second on this machine instead of quoting a number.

How: each configuration is one call of llm_analysis.analysis.train(), the function its command
line (`python -m llm_analysis.analysis train ...`) runs: it looks up the model/GPU/dtype configs,
builds ParallelismConfig and LLMAnalysis, and runs LLMAnalysis.training(), here with
log_level="ERROR" so nothing is printed (its messages are still formatted, as they are for any
caller, but not written). Calling it in-process leaves out the per-call interpreter start-up and
argument parsing the command line would add. A configuration for which llm-analysis raises
counts as done and is counted as failed too. The loop is timed with time.perf_counter() (wall)
and time.process_time() (CPU of this process).

Usage: PYTHON bench/llm_analysis_sweep.py [--json] [--repeat K]
  PYTHON is the venv python bench/llm_analysis_setup.sh prints. --repeat runs the grid K times
  and reports the repetition with the least CPU time (the best configurations per CPU-second).
  Prints one line:
    llm-analysis <version>: <N> configurations in <wall> s wall, <cpu> s cpu: <rate> configurations/s (cpu), <F> failed
  or, with --json, one object:
    {"version", "configurations", "failed", "wall_s", "cpu_s", "per_cpu_s", "per_wall_s"}
bench/sweep_speed runs it as `PYTHON bench/llm_analysis_sweep.py --json` and reads that object.
"""
import argparse
import json
import logging
import os
import sys
import time
from importlib.metadata import version

# transformers (imported by llm_analysis.config) complains that no deep-learning framework is
# installed; llm-analysis does not need one.
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
# llm-analysis logs through logging.getLogger("__name__") (sic); quiet it before importing.
logging.getLogger("__name__").setLevel(logging.ERROR)

from llm_analysis.analysis import train  # noqa: E402

MODEL = "NousResearch_Llama-2-7b-hf"
GPU = "a100-sxm-80gb"
DTYPE = "w16a16e16"  # bf16: llm-analysis knows bit widths only, not bf16 versus fp16
NODES, GPUS_PER_NODE = 8, 8
DP = NODES * GPUS_PER_NODE
SEQ_LEN = 4096
GLOBAL_BATCH = 256

BUCKETS = [int(i * 1e7) for i in range(1, 51)]  # 1e7..5e8 step 1e7
MICRO_BATCHES = [1, 2, 4, 8]
STAGES = [1, 2, 3]
OVERLAP = [True, False]


def grid():
    for bucket in BUCKETS:
        for stage in STAGES:
            for overlap in OVERLAP:
                for micro_batch in MICRO_BATCHES:
                    yield bucket, stage, overlap, micro_batch


def batch_args(micro_batch):
    if GLOBAL_BATCH % (micro_batch * DP) == 0:
        accumulation = GLOBAL_BATCH // (micro_batch * DP)
    else:
        accumulation = 1
    return accumulation, micro_batch * accumulation * DP


def analyse(stage, micro_batch):
    accumulation, global_batch = batch_args(micro_batch)
    return train(
        model_name=MODEL,
        gpu_name=GPU,
        dtype_name=DTYPE,
        log_level="ERROR",
        batch_size_per_gpu=micro_batch,
        gradient_accumulation_steps=accumulation,
        global_batch_size=global_batch,
        seq_len=SEQ_LEN,
        activation_recomputation=0,
        ds_zero=stage,
        dp_size=DP,
        tp_size=1,
        pp_size=1,
        total_num_gpus=DP,
        num_gpus_per_node=GPUS_PER_NODE,
        flash_attn=False,
        mlp_gated_linear_units=True,  # Llama's SwiGLU
    )


def run_once(configs):
    failed = 0
    first_error = None
    wall_start = time.perf_counter()
    cpu_start = time.process_time()
    for _bucket, stage, _overlap, micro_batch in configs:
        # reduce_bucket_size and overlap_comm: no llm-analysis equivalent (see the header).
        try:
            analyse(stage, micro_batch)
        except Exception as e:  # noqa: BLE001 - llm-analysis raises AssertionError and others
            failed += 1
            if first_error is None:
                first_error = f"{type(e).__name__}: {e}"
    cpu = time.process_time() - cpu_start
    wall = time.perf_counter() - wall_start
    return wall, cpu, failed, first_error


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--repeat", type=int, default=1, help="run the grid K times, report the best")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    configs = list(grid())
    runs = [run_once(configs) for _ in range(args.repeat)]
    wall, cpu, failed, first_error = min(runs, key=lambda r: r[1])
    if first_error is not None:
        print(f"llm_analysis_sweep: {failed} configurations failed; first: {first_error}",
              file=sys.stderr)

    n = len(configs)
    ver = version("llm-analysis")
    per_cpu = n / cpu if cpu > 0 else float("inf")
    per_wall = n / wall if wall > 0 else float("inf")
    if args.json:
        print(json.dumps({
            "version": ver,
            "configurations": n,
            "failed": failed,
            "wall_s": round(wall, 6),
            "cpu_s": round(cpu, 6),
            "per_cpu_s": round(per_cpu, 1),
            "per_wall_s": round(per_wall, 1),
        }))
    else:
        print(f"llm-analysis {ver}: {n} configurations in {wall:.3f} s wall, {cpu:.3f} s cpu: "
              f"{per_cpu:.1f} configurations/s (cpu), {failed} failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
