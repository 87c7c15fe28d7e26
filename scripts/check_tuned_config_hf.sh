#!/usr/bin/env bash
# Trains with a tuned config the way zerosim tells a user to (issue 27): `zerosim sweep` on a
# small GPT-2 with a HF-style ds_config full of "auto" (world 2, micro-batch and bucket size
# varied), then the real HF Trainer and deepspeed.initialize on this CPU (2 ranks, gloo), launched
# with the flags zerosim printed and best_ds_config.json (scripts/hf_trainer_check.py says what it
# checks). Needs the oracle venv (ORACLE_HOME, default /work/oracle:
# ORACLE_HOME=/work/oracle ../shared/deepspeed-oracle/setup.sh); without it, says so and exits 0.
# The Trainer needs accelerate, which the oracle venv lacks: a pinned wheel is installed into
# build/hf-check/pylib (from the package index, once).
# Usage: scripts/check_tuned_config_hf.sh [OUT_DIR=build/hf-check]   (about 30 s)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-build/hf-check}"
ORACLE_HOME="${ORACLE_HOME:-/work/oracle}"
PY="$ORACLE_HOME/venv/bin/python"
ZEROSIM="${ZEROSIM:-build/zerosim}"
ACCELERATE_VERSION=1.15.0
if [ ! -x "$PY" ] || ! "$PY" -c 'import deepspeed, transformers' >/dev/null 2>&1; then
  echo "check_tuned_config_hf: skipped: no oracle venv with deepspeed and transformers at $ORACLE_HOME/venv"
  exit 0
fi
[ -x "$ZEROSIM" ] || { echo "check_tuned_config_hf: $ZEROSIM is missing: run scripts/test.sh first" >&2; exit 1; }
rm -rf "$OUT/sweep" "$OUT/train"
mkdir -p "$OUT"
PYLIB="$PWD/build/hf-check/pylib"
if ! PYTHONPATH="$PYLIB" "$PY" -c 'import accelerate' 2>/dev/null; then
  if ! "$PY" -m pip install -q --no-deps --target "$PYLIB" "accelerate==$ACCELERATE_VERSION" 2>/dev/null; then
    echo "check_tuned_config_hf: skipped: the HF Trainer needs accelerate, and accelerate==$ACCELERATE_VERSION could not be installed (no package index?)"
    exit 0
  fi
fi
cat > "$OUT/model.json" <<'JSON'
{"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 4, "vocab_size": 512,
 "n_positions": 128, "bos_token_id": 0, "eos_token_id": 0}
JSON
# The HF integration docs' ZeRO-2 template: "auto" wherever the Trainer fills a value.
cat > "$OUT/ds_config.json" <<'JSON'
{
  "train_batch_size": "auto",
  "train_micro_batch_size_per_gpu": "auto",
  "gradient_accumulation_steps": "auto",
  "gradient_clipping": "auto",
  "bf16": {"enabled": "auto"},
  "optimizer": {"type": "AdamW", "params": {"lr": "auto", "betas": "auto", "eps": "auto",
                                             "weight_decay": "auto", "torch_adam": true}},
  "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": "auto", "warmup_max_lr": "auto",
                                                     "warmup_num_steps": 2, "total_num_steps": "auto"}},
  "zero_optimization": {"stage": 2, "overlap_comm": true, "contiguous_gradients": true,
                        "reduce_bucket_size": "auto"}
}
JSON
echo "== zerosim sweep"
"$ZEROSIM" sweep "$OUT/ds_config.json" --model "$OUT/model.json" --gpu a100-80gb --gpus-per-node 2 \
  --seq-len 64 --precision bf16 --micro-batch 1 --grad-accum 1 \
  --vary micro_batch=1,2,4 --vary zero_optimization.reduce_bucket_size=2e3,5e4 --out "$OUT/sweep"
echo "== the HF Trainer with zerosim's flags and best_ds_config.json (2 CPU ranks)"
export DS_ACCELERATOR=cpu TORCH_EXTENSIONS_DIR="${TORCH_EXTENSIONS_DIR:-$ORACLE_HOME/torch_ext}"
export OMP_NUM_THREADS=1 PYTHONPATH="$PYLIB" TOKENIZERS_PARALLELISM=false
set +e
"$PY" -m torch.distributed.run --nproc_per_node 2 --master_port "${MASTER_PORT:-29631}" \
  scripts/hf_trainer_check.py "$OUT/sweep" "$OUT/model.json" "$OUT/train" > "$OUT/train.log" 2>&1
rc=$?
set -e
grep -E '^(zerosim|check|FAIL)' "$OUT/train.log" || true
if [ "$rc" -ne 0 ]; then
  echo "check_tuned_config_hf: FAILED (exit $rc); the last lines of $OUT/train.log:" >&2
  tail -30 "$OUT/train.log" >&2
  exit 1
fi
echo "check_tuned_config_hf: passed"
