#!/usr/bin/env python3
"""What DeepSpeed's CPU optimizer offload step costs on this host, piece by piece.

ZeRO-1/2's step() with offload_optimizer runs, on the host thread and in this order
(deepspeed 0.19.6 runtime/zero/stage_1_and_2.py step, L2289-2421): an unscale pass over the fp32
gradient partition (`grad.mul_(1 / combined_scale)`, always run), DeepSpeedCPUAdam over the
partition (one C++ call per parameter group; csrc/includes/cpu_adam.h Step_AVX), and the cast of
the updated fp32 partition into the 16-bit pinned staging buffer (`copy_`). This script times each
of them with DeepSpeed's own op (built here by its op builder, AVX-512 or AVX2 as this CPU has)
and PyTorch's CPU kernels:

  - per thread count (1 .. the cores this process may use), each piece's bytes per second, from
    its DRAM traffic per element: Adam 28 B (grad, m, v, param read; param, m, v written), the
    unscale 8 B (read and write fp32), the cast 6 B (fp32 read, bf16 written), and a plain fp32
    copy_ (8 B) as the memory reference;
  - the same with two processes at once, each with the thread count a rank gets with and without
    `deepspeed --bind_cores_to_rank` (launcher/launch.py: OMP_NUM_THREADS = physical cores /
    local ranks; without it every rank's PyTorch takes all the machine's cores), so the cost of
    oversubscription shows.

Each figure is the median of --repeats timed runs after one warm-up, with its min and max. Run it
on a quiet machine (the figures are rates, not counts), with the oracle's Python:

  DS_ACCELERATOR=cpu TORCH_EXTENSIONS_DIR=$ORACLE_HOME/torch_ext \\
    $ORACLE_HOME/venv/bin/python scripts/measure_offload_host.py --out OUT.json

It prints one JSON object (also written to --out) with the machine, versions, date and every
figure.
"""
import argparse
import datetime
import json
import multiprocessing as mp
import os
import platform
import statistics
import subprocess
import sys
import time

BYTES_PER_ELEM = {"adam": 28, "unscale": 8, "cast_bf16": 6, "copy_fp32": 8}


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def build_adam():
    from deepspeed.ops.op_builder import CPUAdamBuilder
    return CPUAdamBuilder().load()


def time_piece(piece, numel, threads, repeats, ds_adam=None):
    """Median, min and max seconds of `piece` over `numel` fp32 elements on `threads` threads."""
    import torch
    torch.set_num_threads(threads)
    os.environ["OMP_NUM_THREADS"] = str(threads)
    g = torch.Generator().manual_seed(0)
    param = torch.randn(numel, generator=g)
    grad = torch.randn(numel, generator=g) * 1e-3
    m = torch.zeros(numel)
    v = torch.zeros(numel)
    bf16 = torch.empty(numel, dtype=torch.bfloat16)
    dst = torch.empty(numel)
    step = [0]

    def run():
        if piece == "adam":
            step[0] += 1
            # adam_update(opt_id, step, lr, beta1, beta2, eps, weight_decay, bias_correction,
            #             params, grads, exp_avg, exp_avg_sq): deepspeed/ops/adam/cpu_adam.py step.
            ds_adam.adam_update(0, step[0], 1e-4, 0.9, 0.999, 1e-8, 0.0, True, param, grad, m, v)
        elif piece == "unscale":
            grad.mul_(1.0 / 1.0)
        elif piece == "cast_bf16":
            bf16.copy_(param)
        elif piece == "copy_fp32":
            dst.copy_(param)

    run()  # warm-up (pages touched, threads started)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times), max(times)


def worker(args, out_q):
    piece, numel, threads, repeats, barrier = args
    ds_adam = None
    if piece == "adam":
        ds_adam = build_adam()
        ds_adam.create_adam(0, 1e-4, 0.9, 0.999, 1e-8, 0.0, True, False)
    barrier.wait()
    out_q.put(time_piece(piece, numel, threads, repeats, ds_adam))


def concurrent(piece, numel, threads, procs, repeats):
    """`procs` processes at once, each timing `piece` on `threads` threads: their median rates."""
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(procs)
    q = ctx.Queue()
    ps = [ctx.Process(target=worker, args=((piece, numel, threads, repeats, barrier), q))
          for _ in range(procs)]
    for p in ps:
        p.start()
    res = [q.get() for _ in ps]
    for p in ps:
        p.join()
    return [BYTES_PER_ELEM[piece] * numel / r[0] for r in res]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--numel", type=int, default=32 * 1024 * 1024,
                    help="fp32 elements per partition (default 32 Mi: 896 MB of Adam traffic)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--out", help="also write the JSON here")
    a = ap.parse_args()

    import torch
    import deepspeed
    cores = len(os.sched_getaffinity(0))
    ds_adam = build_adam()
    ds_adam.create_adam(0, 1e-4, 0.9, 0.999, 1e-8, 0.0, True, False)
    result = {
        "what": "DeepSpeed's CPU offload step pieces on this host: bytes/s per piece and thread "
                "count (scripts/measure_offload_host.py)",
        "machine": f"{cpu_name()}, {os.cpu_count()} logical CPUs, {cores} usable",
        "date": datetime.date.today().isoformat(),
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                 text=True).stdout.strip(),
        "command": " ".join(["scripts/measure_offload_host.py"] + sys.argv[1:]),
        "versions": {"torch": torch.__version__, "deepspeed": deepspeed.__version__,
                     "python": platform.python_version()},
        "bytes_per_element": BYTES_PER_ELEM,
        "numel": a.numel,
        "single_process": {},
        "two_processes": {},
    }
    for piece in BYTES_PER_ELEM:
        rows = {}
        for threads in range(1, cores + 1):
            med, lo, hi = time_piece(piece, a.numel, threads, a.repeats, ds_adam)
            b = BYTES_PER_ELEM[piece] * a.numel
            rows[str(threads)] = {"bytes_per_s": b / med, "min_bytes_per_s": b / hi,
                                  "max_bytes_per_s": b / lo, "seconds": med}
            print(f"{piece}: {threads} thread(s) {b / med / 1e9:.2f} GB/s "
                  f"({b / hi / 1e9:.2f}-{b / lo / 1e9:.2f})", file=sys.stderr)
        result["single_process"][piece] = rows
    # Two ranks on this host: bound (each its share of the cores) and unbound (each all cores).
    if cores >= 2:
        for piece in ("adam", "unscale"):
            bound = concurrent(piece, a.numel, max(1, cores // 2), 2, a.repeats)
            unbound = concurrent(piece, a.numel, cores, 2, a.repeats)
            result["two_processes"][piece] = {
                "bound_threads_per_process": max(1, cores // 2),
                "bound_bytes_per_s": bound,
                "unbound_threads_per_process": cores,
                "unbound_bytes_per_s": unbound,
            }
            print(f"{piece}: 2 processes, bound {[round(x / 1e9, 2) for x in bound]} GB/s, "
                  f"unbound {[round(x / 1e9, 2) for x in unbound]} GB/s", file=sys.stderr)
    text = json.dumps(result, indent=1)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
