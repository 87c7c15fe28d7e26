#!/usr/bin/env bash
# Real DeepSpeed on the GPU machine: GPT-2 124M, sequence 1024, bf16, the configs of
# bench/configs/deepspeed_gpu named on the command line (each at its own micro-batch), each
# through bench/deepspeed_gpt2.py with torch.profiler's host/device split of two more steps, for
# `zerosim simulate` on the same configs to be held against.
#
# The GPU machine has PyTorch and transformers but neither DeepSpeed nor its hjson/pydantic, and
# no network: run it from the repository root with .whl carried (deepspeed built with
# DS_BUILD_OPS=0, so pure Python, the wheels it lacks there, and ninja, with which DeepSpeed
# JIT-compiles DeepSpeedCPUAdam for the offload configs: C++ only, no nvcc). Usage:
#   scripts/deepspeed_gpu.sh [OUT_DIR (default /tmp/deepspeed_gpu)] [BUDGET_S (default 240)]
#                            [CONFIG... (default: every config there, by name)]
# Writes OUT_DIR/deepspeed_<config>.json (the script's JSON), .log (its stderr) and .profile.txt
# (the profiler's split and top ops) per config; configs not started before BUDGET_S seconds
# have passed are skipped.
set -uo pipefail
cd "$(dirname "$0")/.."

OUT_DIR=${1:-/tmp/deepspeed_gpu}
BUDGET_S=${2:-240}
CONFIGS=("${@:3}")
if (( ${#CONFIGS[@]} == 0 )); then
  for f in bench/configs/deepspeed_gpu/*.json; do CONFIGS+=("$(basename "$f" .json)"); done
fi
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
export PATH=$SITE/bin:$PATH  # ninja, for the JIT build of DeepSpeedCPUAdam
export DS_BUILD_OPS=0  # no op is prebuilt; the offload configs JIT-build DeepSpeedCPUAdam
export TORCH_EXTENSIONS_DIR=$OUT_DIR/torch_extensions
if ! python3 -c "import deepspeed" > /dev/null 2> "$OUT_DIR/deepspeed_import.log"; then
  echo "deepspeed_gpu: import deepspeed failed: $(tail -n 1 "$OUT_DIR/deepspeed_import.log")" >&2
  exit 1
fi

port=29511
for n in "${CONFIGS[@]}"; do
  cfg=bench/configs/deepspeed_gpu/$n.json
  if [[ ! -f $cfg ]]; then
    echo "$n: FAILED: no $cfg"
    continue
  fi
  if (( SECONDS > BUDGET_S )); then
    echo "$n: skipped (${SECONDS}s elapsed, budget ${BUDGET_S}s)"
    continue
  fi
  json=$OUT_DIR/deepspeed_$n.json
  log=$OUT_DIR/deepspeed_$n.log
  mb=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["train_micro_batch_size_per_gpu"])' "$cfg")
  # The offload configs JIT-build DeepSpeedCPUAdam on their first run: more time.
  limit=150
  grep -q '"offload_optimizer"' "$cfg" && limit=300
  # A port of its own per run, so a socket the previous run left in TIME_WAIT cannot collide.
  MASTER_PORT=$port timeout "$limit" python3 bench/deepspeed_gpt2.py \
    --config "$cfg" --model gpt2 --micro-batch "$mb" \
    --seq-len 1024 --steps 12 --warmup 2 --trace "$OUT_DIR/deepspeed_$n.profile.txt" \
    > "$json" 2> "$log"
  rc=$?
  port=$((port + 1))
  if (( rc == 0 )) && line=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
g = d["memory"]["gpu"]
p = d.get("profile") or {}
split = ("; profiled: %.1f ms wall, %.1f ms host in ops, %.1f ms device" % (
    p["wall_s_per_step_profiled"] * 1e3, p["host_in_ops_s_per_step"] * 1e3,
    p["device_s_per_step"] * 1e3)) if p else ""
print("step %.2f ms (median), %.0f tokens/s, peak %d B, reserved %d B%s" % (
    d["time"]["step_s"] * 1e3, d["throughput"]["tokens_per_s"], g["peak_bytes"],
    g["reserved_bytes"], split))' "$json" 2> /dev/null); then
    echo "$n: $line"
  else
    echo "$n: FAILED (rc $rc): $(tail -n 1 "$log")"
  fi
done
