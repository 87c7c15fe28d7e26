#!/usr/bin/env bash
# Builds the libFuzzer target for the ds_config front end with clang (+ASan/UBSan) and runs it
# for a bounded time, seeded with every bundled config (and ../shared/corpus when present).
# Usage: scripts/fuzz.sh [SECONDS=60]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
scripts/ensure_deps.sh --fuzz

CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DZS_FUZZ=ON \
  -DZS_SANITIZE=address,undefined -DZS_CUDA=OFF -DBUILD_TESTING=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target config_fuzz

seeds=build-fuzz/fuzz-seeds
rm -rf "$seeds" && mkdir -p "$seeds"
cp configs/examples/*.json "$seeds"/
cp tests/configs/data/*.json "$seeds"/ 2>/dev/null || true
if [[ -d ../shared/corpus/ds_configs ]]; then cp ../shared/corpus/ds_configs/*.json "$seeds"/; fi
work=build-fuzz/fuzz-corpus
mkdir -p "$work"
export ASAN_OPTIONS=detect_leaks=1
build-fuzz/tests/fuzz/config_fuzz "$work" "$seeds" -max_total_time="$seconds" \
  -max_len=16384 -timeout=10 -print_final_stats=1 -artifact_prefix=build-fuzz/
