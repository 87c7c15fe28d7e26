#!/usr/bin/env bash
# Instructions per simulation of bench/simulate_speed's cases (sweep mode), for this build and a
# baseline build, and their ratio: callgrind counts instructions, which do not drift with a
# shared machine's speed, so two binaries compare exactly in one run.
# Per simulation = (Ir(RUNS_HI) - Ir(RUNS_LO)) / (RUNS_HI - RUNS_LO): start-up and the first,
# cold simulation cancel out.
# Usage: bench/simulate_instructions.sh BASELINE_SIMULATE_SPEED [CASES (default "0 2")] [LO HI]
#   e.g. bench/simulate_instructions.sh build/baseline-2720790/build/bench/simulate_speed
# Needs valgrind; a few minutes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="${1:?usage: $0 BASELINE_SIMULATE_SPEED [CASES] [LO HI]}"
cases="${2:-0 2}"
lo="${3:-20}"
hi="${4:-120}"
this="$root/build/bench/simulate_speed"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
instructions() {  # BIN CASE RUNS
  valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$1" "$root" 1 "$2" "$3" \
    > /dev/null 2>&1
  callgrind_annotate "$work/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
}
per_sim() {  # BIN CASE
  local a b
  a=$(instructions "$1" "$2" "$lo")
  b=$(instructions "$1" "$2" "$hi")
  echo $(((b - a) / (hi - lo)))
}
echo "instructions per simulation (callgrind, runs $lo and $hi), $(date -u +%F), commit $(git -C "$root" rev-parse --short HEAD)"
printf "%-6s %14s %14s %8s\n" case baseline this ratio
for c in $cases; do
  old=$(per_sim "$base" "$c")
  new=$(per_sim "$this" "$c")
  printf "%-6s %14d %14d %7.2fx\n" "$c" "$old" "$new" "$(echo "$old / $new" | bc -l)"
done
