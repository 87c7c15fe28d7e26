#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (+ASan/UBSan) and runs each for a bounded time, seeded
# with the bundled files of its kind (and ../shared/corpus when present):
#   config_fuzz     ds_configs            configs/examples, tests' configs, the shared corpus
#   cluster_fuzz    cluster files         configs/hardware/examples
#   profile_fuzz    calibration profiles  tests/fuzz/seeds/profile
#   hf_config_fuzz  HF config.json files  models/hf_configs
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET=60] [TARGET...]
# The build is the sanitizer build of scripts/test.sh --sanitize (build-asan/), so CI compiles
# the libraries once for both. A crash, a sanitizer report, a ZS_CHECK or an input slower than
# 10 s fails the script, and the input is kept in build-asan/fuzz-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(config_fuzz cluster_fuzz profile_fuzz hf_config_fuzz)

scripts/sanitizer_build.sh configure
cmake --build build-asan -j"$(nproc)" --target "${targets[@]}"

seed_dirs() {
  case "$1" in
    config_fuzz) echo configs/examples tests/configs/data ../shared/corpus/ds_configs ;;
    cluster_fuzz) echo configs/hardware/examples ;;
    profile_fuzz) echo tests/fuzz/seeds/profile ;;
    hf_config_fuzz) echo models/hf_configs ;;
  esac
}

export ASAN_OPTIONS=detect_leaks=1
artifacts=build-asan/fuzz-artifacts
for t in "${targets[@]}"; do
  seeds=build-asan/fuzz-seeds/$t
  work=build-asan/fuzz-corpus/$t
  log=build-asan/fuzz-$t.log
  rm -rf "$seeds" && mkdir -p "$seeds" "$work" "$artifacts"
  rm -f "$artifacts/$t-"*
  for d in $(seed_dirs "$t"); do
    if [[ -d $d ]]; then find "$d" -maxdepth 1 -name '*.json' -exec cp {} "$seeds"/ \; ; fi
  done
  echo "== $t: ${seconds} s from $(ls "$seeds" | wc -l) seeds"
  status=0
  "build-asan/tests/fuzz/$t" "$work" "$seeds" -max_total_time="$seconds" -max_len=16384 \
    -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/$t-" \
    > "$log" 2>&1 || status=$?
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
  if [[ $status -ne 0 ]]; then
    tail -40 "$log" >&2
    echo "zerosim: $t failed (exit $status); the input is in $artifacts, the log in $log" >&2
    exit 1
  fi
done
