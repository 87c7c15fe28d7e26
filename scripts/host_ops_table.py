#!/usr/bin/env python3
"""The per-recording table of results/measurements/2026-11-28-host-model.md: for each recording
of tests/plan/oracle/host_ops/, DeepSpeed's ATen calls per optimizer step (last rank, collectives
apart, as plan_host_ops_test reads them), the Plan's (from the test's printed table), and, with
--old-zerosim, what an older zerosim counted as host operations per step (`simulate --json`,
time.host.kernels, the only host work the model had before the host-op model).

  build/tests/plan/plan_host_ops_test > /tmp/host_ops.txt
  scripts/host_ops_table.py /tmp/host_ops.txt [--old-zerosim PATH]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDINGS = os.path.join(HERE, "..", "tests", "plan", "oracle", "host_ops")


def planned_rows(path):
    rows = {}
    for line in open(path):
        m = re.match(r"^(\w+):\s+(.*)$", line.strip())
        if not m:
            continue
        cells = re.findall(r"(\d+)/(\d+) \(([+-][\d.]+)%\) (\d+)/(\d+)", m.group(2))
        if len(cells) == 3:
            rows[m.group(1)] = cells
    return rows


def old_count(zerosim, meta, tmp):
    """Host operations per step by an older zerosim for the recording's setup."""
    cfg = os.path.join(tmp, "ds.json")
    model = os.path.join(tmp, "model.json")
    with open(cfg, "w") as f:
        json.dump(meta["ds_config_as_given"], f)
    with open(model, "w") as f:
        json.dump(meta["model_spec"], f)
    eff = meta["ds_config_effective"]
    precision = "bf16" if eff.get("bf16", {}).get("enabled") else (
        "fp16" if eff.get("fp16", {}).get("enabled") else "fp32")
    cmd = [zerosim, "simulate", cfg, "--model", model, "--gpus-per-node", str(meta["world_size"]),
           "--gpu", "h100-80gb-sxm", "--seq-len", str(meta["seq_len"]), "--precision", precision,
           "--micro-batch", str(meta["micro_batch"]), "--grad-accum",
           str(meta["gradient_accumulation_steps"]), "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["time"]["host"]["kernels"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("test_output")
    ap.add_argument("--old-zerosim", help="an older zerosim binary for the 'before' column")
    args = ap.parse_args()
    rows = planned_rows(args.test_output)
    if not rows:
        sys.exit(f"{args.test_output}: no recording rows (is it plan_host_ops_test's output?)")
    head = "| recording | DeepSpeed calls per step |"
    rule = "|---|---:|"
    if args.old_zerosim:
        head += " before: host ops | before error |"
        rule += "---:|---:|"
    print(head + " the Plan | error | worst phase | syncs DeepSpeed / Plan (fwd, bwd, step) |")
    print(rule + "---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, cells in sorted(rows.items()):
            ds = sum(int(c[0]) for c in cells)
            plan = sum(int(c[1]) for c in cells)
            worst = max((float(c[2]) for c in cells), key=abs)
            line = f"| {name} | {ds} |"
            if args.old_zerosim:
                with open(os.path.join(RECORDINGS, name + ".json")) as f:
                    meta = json.load(f)["meta"]
                b = old_count(args.old_zerosim, meta, tmp)
                line += f" {b} | {100 * (b / ds - 1):+.0f}% |"
            syncs = ", ".join(f"{c[3]}/{c[4]}" for c in cells)
            print(line + f" {plan} | {100 * (plan / ds - 1):+.1f}% | {worst:+.1f}% | {syncs} |")


if __name__ == "__main__":
    main()
