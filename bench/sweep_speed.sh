#!/usr/bin/env bash
# Runs bench/sweep_speed with everything it compares: this build (build/zerosim), a baseline
# zerosim built from COMMIT (default 2720790, main before issue 29), and llm-analysis in the venv
# bench/llm_analysis_setup.sh makes from the package index.
# Usage: bench/sweep_speed.sh [COMMIT] [ROUNDS]
# The baseline is built once into build/baseline-COMMIT (a git worktree of COMMIT, Release, the
# zerosim target only, configured as this build is: CUDA parts when found), then reused.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
commit="${1:-2720790}"
rounds="${2:-5}"
cd "$root"
sha="$(git rev-parse --short=7 "$commit^{commit}")"
base="$root/build/baseline-$sha"
if [[ ! -x "$base/build/zerosim" ]]; then
  if [[ ! -d "$base" ]]; then git worktree add --detach "$base" "$sha" >&2; fi
  cmake -S "$base" -B "$base/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >&2
  cmake --build "$base/build" -j"$(nproc)" --target zerosim >&2
fi
python="$(bench/llm_analysis_setup.sh | tail -1)"
cmake --build build -j"$(nproc)" --target zerosim sweep_speed >&2
echo "commit $(git rev-parse --short HEAD) against baseline $sha, $(date -u +%Y-%m-%d), $(nproc) cores"
build/bench/sweep_speed --source "$root" --zerosim build/zerosim --baseline "$base/build/zerosim" \
  --llm-analysis "$python" --rounds "$rounds"
