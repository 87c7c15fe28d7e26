#!/usr/bin/env bash
# Real DeepSpeed on the GPU machine: GPT-2 124M, micro-batch 8, sequence 1024, bf16, ZeRO
# stages 0-3 (bench/configs/deepspeed_gpu), each through bench/deepspeed_gpt2.py, for
# `zerosim simulate` on the same configs to be held against.
#
# The GPU machine has PyTorch and transformers but neither DeepSpeed nor its hjson/pydantic, and
# no network: run it from the repository root with .whl carried (deepspeed built with
# DS_BUILD_OPS=0, so pure Python, and the wheels it lacks there). Usage:
#   scripts/deepspeed_gpu.sh [OUT_DIR (default /tmp/deepspeed_gpu)] [BUDGET_S (default 240)]
# Writes OUT_DIR/deepspeed_<config>.json (the script's JSON) and .log (its stderr) per config;
# configs not started before BUDGET_S seconds have passed are skipped.
set -uo pipefail
cd "$(dirname "$0")/.."

OUT_DIR=${1:-/tmp/deepspeed_gpu}
BUDGET_S=${2:-240}
SITE=/tmp/site
mkdir -p "$OUT_DIR"

if ! ls .whl/*.whl > /dev/null 2>&1; then
  echo "deepspeed_gpu: no wheels in .whl/ (carry .whl to this machine)" >&2
  exit 1
fi
if ! python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$SITE" .whl/*.whl; then
  echo "deepspeed_gpu: installing .whl/*.whl into $SITE failed" >&2
  exit 1
fi
export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
export DS_BUILD_OPS=0  # no op is prebuilt; nothing here needs one JIT-built either
if ! python3 -c "import deepspeed" > /dev/null 2> "$OUT_DIR/deepspeed_import.log"; then
  echo "deepspeed_gpu: import deepspeed failed: $(tail -n 1 "$OUT_DIR/deepspeed_import.log")" >&2
  exit 1
fi

port=29511
for n in stage0_bf16 stage1_bf16 stage2_bf16 stage3_bf16; do
  if (( SECONDS > BUDGET_S )); then
    echo "$n: skipped (${SECONDS}s elapsed, budget ${BUDGET_S}s)"
    continue
  fi
  json=$OUT_DIR/deepspeed_$n.json
  log=$OUT_DIR/deepspeed_$n.log
  # A port of its own per run, so a socket the previous run left in TIME_WAIT cannot collide.
  MASTER_PORT=$port timeout 150 python3 bench/deepspeed_gpt2.py \
    --config "bench/configs/deepspeed_gpu/$n.json" --model gpt2 --micro-batch 8 \
    --seq-len 1024 --steps 12 --warmup 2 --trace "$OUT_DIR/deepspeed_$n.profile.txt" \
    > "$json" 2> "$log"
  rc=$?
  port=$((port + 1))
  if (( rc == 0 )) && line=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
g = d["memory"]["gpu"]
print("step %.2f ms (median), %.0f tokens/s, peak %d B, reserved %d B" % (
    d["time"]["step_s"] * 1e3, d["throughput"]["tokens_per_s"], g["peak_bytes"],
    g["reserved_bytes"]))' "$json" 2> /dev/null); then
    echo "$n: $line"
  else
    echo "$n: FAILED (rc $rc): $(tail -n 1 "$log")"
  fi
done
