#!/usr/bin/env bash
# Two back-to-back `zerosim calibrate --backend cpu` runs and the same config predicted with each
# (issue 27: they must agree within 5% on an idle machine). Prints each run's rounds and spread,
# both predictions and their difference; the profiles and logs go to OUT.
# Usage: [ROUNDS=12] scripts/calibrate_stability.sh [OUT=build/calibrate-stability] [RUNS=2]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-build/calibrate-stability}"
runs="${2:-2}"
zerosim="${ZEROSIM:-build/zerosim}"
mkdir -p "$out"
# The 4-layer GQA Llama of the CPU validation, ZeRO-2 on two ranks, bf16.
cat > "$out/config.json" <<'JSON'
{"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 1, "bf16": {"enabled": true},
 "optimizer": {"type": "AdamW", "params": {"lr": 1e-3}},
 "zero_optimization": {"stage": 2, "reduce_bucket_size": 200000}}
JSON
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
preds=()
for ((i = 1; i <= runs; i++)); do
  "$zerosim" calibrate --backend cpu --rounds "${ROUNDS:-12}" -o "$out/profile$i.json" 2> "$out/calibrate$i.log" > /dev/null
  grep -E "rounds,|warning" "$out/calibrate$i.log" | sed "s/^/run $i: /"
  # The profile's device, two ranks of it (one node), as the CPU validation runs.
  python3 - "$out/profile$i.cluster.json" <<'PY'
import json, sys
p = sys.argv[1]; c = json.load(open(p)); c["gpus_per_node"] = 2; c["node"]["max_gpus_per_node"] = max(2, c["node"]["max_gpus_per_node"])
json.dump(c, open(p, "w"), indent=2)
PY
  # Two workloads: the GQA Llama at 256 tokens (GEMM-bound) and tiny-gpt at 64 (its small ops,
  # memory- and overhead-bound, are what a busy machine moves most).
  for w in "bench/configs/llama_gqa_tiny.json 256" "tiny-gpt 64"; do
    set -- $w
    step=$("$zerosim" simulate "$out/config.json" --model "$1" \
      --cluster "$out/profile$i.cluster.json" --profile "$out/profile$i.json" --seq-len "$2" --json |
      python3 -c "import json,sys; print(json.load(sys.stdin)['time']['step_s'])")
    preds+=("$1:$step")
    echo "run $i: $1 at $2 tokens: predicted step $(python3 -c "print(f'{$step*1e3:.2f}')") ms"
  done
done
python3 - "${preds[@]}" <<'PY'
import sys
by = {}
for x in sys.argv[1:]:
    m, v = x.rsplit(":", 1)
    by.setdefault(m, []).append(float(v))
for m, p in by.items():
    lo, hi = min(p), max(p)
    print(f"{m}: predictions {', '.join(f'{x*1e3:.2f} ms' for x in p)}: largest / smallest - 1 = "
          f"{100*(hi/lo-1):.1f}% ({'within' if hi/lo-1 <= 0.05 else 'NOT within'} 5%)")
PY
