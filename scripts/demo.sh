#!/usr/bin/env bash
# The first command of the README: installs what is missing, builds zerosim, and runs it on a
# bundled example: the ZeRO-2 config reviewed in seed 004, for Llama-2 7B at 2048 tokens with
# activation checkpointing, on one node of 8 A100 80GB.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build build -j"$(nproc)" --target zerosim
set -x
build/zerosim simulate configs/examples/seed004_review_original.json \
  --model llama2-7b --gpu a100-80gb --nodes 1 --gpus-per-node 8 --seq-len 2048 --checkpointing
