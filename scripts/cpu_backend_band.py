#!/usr/bin/env python3
"""The step-time band of zerosim's CPU backend, from every committed `validate` run on CPU ranks.

Reads results/measurements/*/validation/*.json written by `zerosim validate` with the CPU backend
(each has validation.step.error = (predicted - measured) / measured, measured as the median over
the timed steps of each step's slowest rank), and writes configs/profiles/cpu_backend_band.json:
the 68th percentile (nearest rank) of the absolute errors, rounded up to a whole percent, the
same statistic as the GPU regimes' bands (bench/fidelity.cc --bands). sim/uncertainty.cc's table
is checked against that file by sim_uncertainty_test.

Usage: scripts/cpu_backend_band.py [--out configs/profiles/cpu_backend_band.json]
"""
import argparse
import glob
import json
import math
import os
import sys


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "configs/profiles/cpu_backend_band.json"))
    args = parser.parse_args()
    rows = []
    for path in sorted(glob.glob(os.path.join(root, "results/measurements/*/validation/*.json"))):
        with open(path) as f:
            doc = json.load(f)
        if doc.get("backend") != "cpu":
            continue
        error = doc["validation"]["step"]["error"]
        rows.append({"file": os.path.relpath(path, root), "error": round(error, 4)})
    if not rows:
        sys.exit("cpu_backend_band: no CPU validation runs under results/measurements")
    errors = sorted(abs(r["error"]) for r in rows)
    p68 = errors[math.ceil(0.68 * len(errors)) - 1]
    band = math.ceil(p68 * 100 - 1e-9) / 100
    out = {
        "what": "the CPU backend's step-time band: the 68th percentile (nearest rank) of the "
                "absolute step errors of every committed validate run on CPU ranks, rounded up to "
                "a whole percent",
        "command": "scripts/cpu_backend_band.py",
        "rows": len(rows),
        "p68": round(p68, 4),
        "mean_abs": round(sum(errors) / len(errors), 4),
        "band": band,
        "runs": rows,
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"cpu_backend_band: {len(rows)} runs, 68th percentile {p68:.4f}, band {band:.2f} -> "
          f"{os.path.relpath(args.out, root)}")


if __name__ == "__main__":
    main()
