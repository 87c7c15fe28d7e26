#!/usr/bin/env bash
# Makes .whl/: the wheels scripts/deepspeed_gpu.sh installs on a GPU machine that has PyTorch and
# transformers but no network, no DeepSpeed and none of DeepSpeed's hjson and pydantic. Run it
# here (the package index is reachable from this machine), then carry .whl with the device call.
#
#   scripts/fetch_deepspeed_wheels.sh [DEEPSPEED_VERSION (default 0.19.6, the rules zerosim follows)]
#
# DeepSpeed is published as an sdist only: it is built into a pure-Python wheel with
# DS_BUILD_OPS=0 (no op prebuilt; the runs use a client torch AdamW except the offload configs,
# whose DeepSpeedCPUAdam DeepSpeed JIT-builds there with ninja, fetched here) in a throwaway
# virtual environment. The others are the manylinux / py3 wheels for Python 3.12, the GPU
# machine's.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-0.19.6}
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >>.git/info/exclude
rm -rf .whl
mkdir -p .whl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

platforms=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
for pkg in hjson==3.1.0 pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 \
  typing-inspection==0.4.5 typing-extensions==4.16.0 ninja==1.13.2; do
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp "${platforms[@]}" -d .whl "$pkg"
done

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --upgrade pip setuptools wheel
"$work/venv/bin/pip" download -q --no-deps --no-binary=:all: -d "$work" "deepspeed==$version"
DS_BUILD_OPS=0 "$work/venv/bin/pip" wheel -q --no-deps --no-build-isolation -w .whl \
  "$work"/deepspeed-"$version".tar.gz
ls -l .whl
du -sh .whl
