#!/usr/bin/env bash
# Where a `zerosim sweep` spends its instructions: the issue-29 sweep (Llama-2 7B, 8 x 8 A100
# 80GB, seq 4096, 50 reduce_bucket_size x micro-batch 1/2/4/8 x stage 1-3 x overlap_comm,
# --jobs 1) under callgrind, and the instructions of the program and of the functions that
# matter, inclusive of what they call. Instruction counts do not drift with a shared machine's
# speed, so two binaries (this build and bench/sweep_speed.sh's baseline) compare exactly.
# Usage: bench/sweep_profile.sh [ZEROSIM]   (default build/zerosim); needs valgrind; ~1 min.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
zerosim="${1:-$root/build/zerosim}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$zerosim" sweep \
  "$root/configs/examples/seed004_review_original.json" --model llama2-7b --gpu a100-80gb \
  --nodes 8 --gpus-per-node 8 --seq-len 4096 \
  --vary zero_optimization.reduce_bucket_size=1e7..5e8:+1e7 --vary micro_batch=1,2,4,8 \
  --vary stage=1,2,3 --vary overlap_comm=true,false --jobs 1 --out "$work/out" \
  > /dev/null 2> "$work/err"
echo "$zerosim: $(($(wc -l < "$work/out/results.csv") - 1)) rows"
callgrind_annotate --inclusive=yes "$work/cg.out" 2>/dev/null |
  grep -E "PROGRAM TOTALS|zs::(plan::replay_memory|plan::CachingAllocator::malloc\(|plan::build_plan|sim::simulate_step_time|sim::run_engine|tuning::VariantRunner::prepare|plan::check_step_config|reports::render_simulation_json|reports::SweepWriter::add_row)|_dl_init" |
  sed -E 's/ +\[.*//; s/\?\?\?://; s/\(zs::[^)]*\)//; s/\[abi:cxx11\]//' | head -14
