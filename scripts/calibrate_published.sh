#!/usr/bin/env bash
# The calibration against published runs: fits host_python_slowdown (how much slower the runs'
# hosts are than the reference host for the Python, dispatches and launches plan/host_ops.h
# counts), host_memory_efficiency (the DRAM share DeepSpeed's offloaded CPU work reaches), sync_s
# (what one host-device synchronization costs) and, per GPU generation, gemm_sustained (sim/cost_profile.h) to the time rows of
# bench/data/published_runs.tsv, by coordinate descent over grids within their stated ranges
# (bench/fidelity.cc, fit()), and writes the result with
# every row's residual to configs/profiles/published_runs_fit.json, stamped with the date and
# the commit. default_cost_profile (sim/cost_profile.cc) carries the fitted values; the test
# sim_cost_profile_test checks that they are the file's. Then the uncertainty bands by regime
# from the fit's left-out residuals (`fidelity --bands`) go to
# configs/profiles/uncertainty_bands.json; sim/uncertainty.cc carries them and
# sim_uncertainty_test checks that they are the file's.
#
# Usage: scripts/calibrate_published.sh [BUILD_DIR=build]   (from the source directory)
set -euo pipefail
build="${1:-build}"
cmake --build "$build" --target fidelity >/dev/null
out=configs/profiles/published_runs_fit.json
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
"$build/bench/fidelity" --fit "$tmp" >/dev/null
python3 - "$tmp" "$out" "$(date -u +%Y-%m-%d)" "$(git rev-parse --short HEAD)" <<'PY'
import json, sys
fit = json.load(open(sys.argv[1]))
doc = {
    "name": "published_runs_fit",
    "what": "host_python_slowdown, host_memory_efficiency, sync_s and per-generation "
            "gemm_sustained "
            "fitted to the time rows of bench/data/published_runs.tsv (mean absolute speed "
            "error); residuals per row, unfitted (every parameter 1) and left out (the row "
            "predicted by a fit to the others)",
    "command": "scripts/calibrate_published.sh",
    "date": sys.argv[3],
    "commit": sys.argv[4],
    "device": "simulation only (the development VM)",
}
doc.update(fit)
with open(sys.argv[2] + ".tmp", "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
import os
os.replace(sys.argv[2] + ".tmp", sys.argv[2])
print(f"{sys.argv[2]}: mean abs speed error {fit['mean_abs_speed_error']:.1%} "
      f"(unfitted {fit['mean_abs_speed_error_unfitted']:.1%}, each row left out of its own fit "
      f"{fit['mean_abs_speed_error_left_out']:.1%}) over {fit['rows']} rows")
PY
# The uncertainty bands by regime from the fit's left-out residuals (sim/uncertainty.h).
"$build/bench/fidelity" --bands configs/profiles/published_runs_fit.json \
  configs/profiles/uncertainty_bands.json > /dev/null
echo "configs/profiles/uncertainty_bands.json: the step-time band of each regime"
