#!/usr/bin/env bash
# Calibrates this machine's CPU backend, then validates a matrix of configs against it: every
# row is `zerosim validate` (the median step after warm-up against simulate's prediction with
# the calibrated profile, and the device buffers' peak), and the summary lists each row's
# predicted/measured ratio and error, the bad ones too. It is the benchmark behind the README's
# CPU validation figures; no test asserts them, as they depend on how busy the machine is.
#
#   scripts/validate_cpu.sh OUT_DIR [RANKS]     (RANKS: 2 by default; run under no load)
#
# The model and shape default to tiny-gpt at sequence 64, micro-batch 4, 12 steps; to validate
# on a shape calibrate never saw, set ZS_MODEL (a zoo name or an HF config.json), ZS_SEQ_LEN,
# ZS_MICRO_BATCH and ZS_STEPS, e.g. the 4-layer GQA Llama of bench/configs/llama_gqa_tiny.json:
#   ZS_MODEL=bench/configs/llama_gqa_tiny.json ZS_SEQ_LEN=256 ZS_MICRO_BATCH=2 ZS_STEPS=8 \
#     scripts/validate_cpu.sh OUT_DIR
#
# Writes OUT_DIR/cpu.json and OUT_DIR/cpu.cluster.json (calibrate), OUT_DIR/validation/*.json
# (one per row; `zerosim report` reads them from a sweep directory's validation/ folder), and
# OUT_DIR/summary.md with the machine, date, commit and commands. Needs build/zerosim and mpirun.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/validate_cpu.sh OUT_DIR [RANKS]}
ranks=${2:-2}
model=${ZS_MODEL:-tiny-gpt}
seq_len=${ZS_SEQ_LEN:-64}
micro_batch=${ZS_MICRO_BATCH:-4}
steps=${ZS_STEPS:-12}
zerosim=build/zerosim
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out/configs" "$out/validation"
mpi=(mpirun -np "$ranks" --oversubscribe)

calibrate=("${mpi[@]}" "$zerosim" calibrate --backend cpu --repeats 7 -o "$out/cpu.json")
"${calibrate[@]}" 2> "$out/calibrate.log"

# name | zero_optimization | precision block | extra validate flags
rows=(
  "stage0_bf16|{\"stage\": 0}|\"bf16\": {\"enabled\": true}|"
  "stage1_bf16|{\"stage\": 1, \"reduce_bucket_size\": 20000}|\"bf16\": {\"enabled\": true}|"
  "stage2_bf16|{\"stage\": 2, \"reduce_bucket_size\": 20000, \"allgather_bucket_size\": 20000}|\"bf16\": {\"enabled\": true}|"
  "stage2_overlap|{\"stage\": 2, \"overlap_comm\": true, \"reduce_bucket_size\": 20000}|\"bf16\": {\"enabled\": true}|"
  "stage2_fp16|{\"stage\": 2, \"reduce_bucket_size\": 20000}|\"fp16\": {\"enabled\": true, \"initial_scale_power\": 8}|"
  "stage3_bf16|{\"stage\": 3, \"reduce_bucket_size\": 20000}|\"bf16\": {\"enabled\": true}|"
  "stage3_checkpointing|{\"stage\": 3, \"reduce_bucket_size\": 20000}|\"bf16\": {\"enabled\": true}|--checkpointing"
  "stage2_offload|{\"stage\": 2, \"offload_optimizer\": {\"device\": \"cpu\", \"pin_memory\": true}}|\"bf16\": {\"enabled\": true}|"
  "stage1_fp32|{\"stage\": 1, \"reduce_bucket_size\": 20000}|\"fp16\": {\"enabled\": false}|"
)
{
  echo "# CPU backend: calibrate, then validate ($ranks ranks)"
  echo
  echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) logical CPUs"
  echo "- date: $(date -u +%Y-%m-%d), commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo -dirty)"
  echo "- calibrate: \`${calibrate[*]}\` (its progress lines: calibrate.log)"
  echo "- each row: \`${mpi[*]} $zerosim validate configs/NAME.json --model $model --seq-len $seq_len"
  echo "  --cluster cpu.cluster.json --profile cpu.json --steps $steps --warmup 2 -o validation --name NAME [FLAGS]\`"
  echo "  (micro-batch $micro_batch, gradient accumulation 2)"
  echo "- measured: the median over $((steps - 2)) steps of each step's slowest rank; predicted: simulate's step"
  echo
  echo "| row | measured (ms) | min-max (ms) | predicted (ms) | predicted/measured | error | device buffers' peak error |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
} > "$out/summary.md"
for row in "${rows[@]}"; do
  IFS='|' read -r name zero precision flags <<< "$row"
  cfg="$out/configs/$name.json"
  cat > "$cfg" <<JSON
{"train_micro_batch_size_per_gpu": $micro_batch, "gradient_accumulation_steps": 2, $precision,
 "optimizer": {"type": "AdamW", "params": {"lr": 1e-3}}, "gradient_clipping": 1.0,
 "zero_optimization": $zero}
JSON
  # shellcheck disable=SC2086
  # Exit 4 is the verdict NO (outside the default 25%): a measurement like any other here.
  rc=0
  text=$("${mpi[@]}" "$zerosim" validate "$cfg" --model "$model" --seq-len "$seq_len" \
    --cluster "$out/cpu.cluster.json" --profile "$out/cpu.json" --steps "$steps" --warmup 2 \
    -o "$out/validation" --name "$name" $flags 2> "$out/validation/$name.log" | grep -v '^step ') ||
    rc=$?
  ((rc == 0 || rc == 4)) || { echo "validate $name: exit $rc (see $out/validation/$name.log)" >&2; exit "$rc"; }
  echo "$text" > "$out/validation/$name.txt"
  [ -s "$out/validation/$name.log" ] || rm -f "$out/validation/$name.log"
  line=$(grep '^step: measured' <<< "$text")
  measured=$(sed -E 's/^step: measured ([0-9.]+) ms.*/\1/' <<< "$line")
  range=$(sed -E 's/.*; ([0-9.]+) ms to ([0-9.]+) ms\).*/\1-\2/' <<< "$line")
  predicted=$(sed -E 's/.*predicted ([0-9.]+) ms, .*/\1/' <<< "$line")
  error=$(sed -E 's/.*, ([-+][0-9.]+%)$/\1/' <<< "$line")
  memory=$(grep "^device buffers' peak" <<< "$text" | sed -E 's/.*, ([-+][0-9.]+%|n\/a)$/\1/')
  ratio=$(awk -v p="$predicted" -v m="$measured" 'BEGIN { printf "%.3f", p / m }')
  echo "| $name | $measured | $range | $predicted | $ratio | $error | ${memory:-n/a} |" >> "$out/summary.md"
done
cat "$out/summary.md"
