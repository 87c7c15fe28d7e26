#!/usr/bin/env bash
# Makes a virtual environment holding llm-analysis (the closed-form training/inference estimator,
# PyPI `llm-analysis`, github cli99/llm-analysis) for bench/llm_analysis_sweep.py, the baseline
# that bench/sweep_speed compares `zerosim sweep`'s speed against.
#
# Usage: bench/llm_analysis_setup.sh [VENV]   (default: build/bench-venv under the repository root;
#        a VENV given here is taken relative to the current directory)
# Installs llm-analysis and everything it pulls in, each at a pinned version, from the package
# index with pip. Does nothing when VENV already has the pinned llm-analysis. The last line it
# prints on stdout is the venv's python (absolute path); pip's own output goes to stderr.
# BASE_PYTHON (default python3, 3.11 or newer for the pinned numpy) makes the venv.
set -euo pipefail

LLM_ANALYSIS_VERSION=0.2.2
# llm-analysis 0.2.2 requires fire<0.6, huggingface-hub<0.15 and transformers<5; transformers
# (4.31.0 is the newest that accepts huggingface-hub 0.14) is imported only to fetch model configs
# from the Hugging Face hub, which the sweep never does (it uses a bundled config).
PINS=(
  "llm-analysis==${LLM_ANALYSIS_VERSION}"
  "fire==0.5.0"
  "termcolor==3.3.0"
  "six==1.17.0"
  "huggingface-hub==0.14.1"
  "transformers==4.31.0"
  "tokenizers==0.13.3"
  "safetensors==0.8.0"
  "numpy==2.4.6"
  "regex==2026.11.19"
  "PyYAML==6.0.4"
  "packaging==26.4"
  "filelock==4.3.1"
  "fsspec==2026.9.0"
  "tqdm==4.70.1"
  "typing_extensions==4.16.0"
  "requests==2.34.2"
  "certifi==2026.10.19.post1"
  "charset-normalizer==3.5.3"
  "idna==3.20"
  "urllib3==2.8.0"
)

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-$root/build/bench-venv}"
mkdir -p "$(dirname "$venv")"
venv="$(cd "$(dirname "$venv")" && pwd)/$(basename "$venv")"
python="$venv/bin/python"

has_pinned() {
  [[ -x "$python" ]] && "$python" - "$LLM_ANALYSIS_VERSION" 2>/dev/null <<'EOF'
import sys
from importlib.metadata import version
sys.exit(0 if version("llm-analysis") == sys.argv[1] else 1)
EOF
}

if ! has_pinned; then
  echo "llm_analysis_setup: installing llm-analysis ${LLM_ANALYSIS_VERSION} into $venv" >&2
  "${BASE_PYTHON:-python3}" -m venv "$venv"
  "$python" -m pip install --disable-pip-version-check --no-input -q "${PINS[@]}" >&2
  "$python" -m pip check >&2
  "$python" -c "import llm_analysis.analysis" >&2
  has_pinned || { echo "llm_analysis_setup: llm-analysis ${LLM_ANALYSIS_VERSION} not installed in $venv" >&2; exit 1; }
fi
echo "$python"
