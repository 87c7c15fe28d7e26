#!/usr/bin/env bash
# The bundled example's report and its screenshots (issue 27): a sweep of the README's example
# (seed 004's ZeRO-2 config, Llama-2 7B at 2048 tokens on one node of eight A100 80GB) over ZeRO
# stage, micro-batch and reduce_bucket_size, `zerosim report` on it, and headless Chromium
# screenshots of the page at 1400 px wide, one per screen height, for reading every plot as a
# user sees it.
# Usage: scripts/example_report.sh [OUT=reports/example]   (about 20 s; needs chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-reports/example}"
zerosim="${ZEROSIM:-build/zerosim}"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "example_report: chromium is missing (scripts/ensure_deps.sh)" >&2; exit 1; }
mkdir -p "$out"
abs=$(realpath "$out")  # for Chromium's file:// URLs; the report names the relative paths
rm -rf "$out/sweep" "$out"/screenshot-*.png
"$zerosim" sweep configs/examples/seed004_review_original.json --model llama2-7b --gpu a100-80gb \
  --nodes 1 --gpus-per-node 8 --seq-len 2048 --checkpointing --jobs 2 \
  --vary stage=1,2,3 --vary micro_batch=1,2,4,8 \
  --vary zero_optimization.reduce_bucket_size=5e7,2e8,5e8 --out "$out/sweep" > "$out/sweep.txt"
"$zerosim" report "$out/sweep" -o "$out/report.html" > /dev/null
# One screenshot per 1400 x 1000 screen: headless Chromium shoots the top of a page only, so
# each is the page shifted up by a CSS transform; the first blank screen ends it.
profile=$(mktemp -d)
trap 'rm -rf "$profile" "$abs/.shot.html"' EXIT
for ((i = 0; i < 16; i++)); do
  sed "s|</head>|<style>body{transform:translateY(-$((i * 1000))px)}</style></head>|" \
    "$abs/report.html" > "$abs/.shot.html"
  "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
    --window-size=1400,1000 --screenshot="$abs/screenshot-$i.png" "file://$abs/.shot.html" \
    >/dev/null 2>&1
  if [ "$(stat -c %s "$abs/screenshot-$i.png")" -lt 12000 ]; then rm "$abs/screenshot-$i.png"; break; fi
done
echo "example_report: $out/report.html and $(ls "$out"/screenshot-*.png | wc -l) screenshots"
