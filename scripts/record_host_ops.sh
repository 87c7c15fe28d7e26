#!/usr/bin/env bash
# Regenerates tests/plan/oracle/host_ops/*.json: real DeepSpeed 0.19.6 on this machine's CPU, one
# optimizer step's host work (aten ops, Python calls, hooks, syncs, collectives) per recording.
# Needs the oracle venv: ORACLE_HOME=/work/oracle /work/shared/deepspeed-oracle/setup.sh
# Usage: scripts/record_host_ops.sh [--families gpt2,llama,qwen2] [--configs s2_b5e4,...] [--only CASE,...]
#        [--skip-existing]   (about 15-25 s per recording; 50 recordings)
set -euo pipefail
cd "$(dirname "$0")/.."
ORACLE_HOME="${ORACLE_HOME:-/work/oracle}"
export DS_ACCELERATOR=cpu TORCH_EXTENSIONS_DIR="${TORCH_EXTENSIONS_DIR:-$ORACLE_HOME/torch_ext}"
exec nice -n 10 "$ORACLE_HOME/venv/bin/python" scripts/record_host_ops.py --matrix "$@"
