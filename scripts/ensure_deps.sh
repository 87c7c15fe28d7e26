#!/usr/bin/env bash
# Installs the distribution packages zerosim builds with, if any are missing (Debian/Ubuntu).
# Usage: scripts/ensure_deps.sh [--fuzz]   (--fuzz adds clang and its libFuzzer runtime)
# The CUDA toolkit, cuBLAS and NCCL are used when present and never installed here.
# chromium renders `zerosim report`'s HTML headless in its test (tests/cli/report_test.cc), and
# zlib1g-dev decodes the screenshot there.
set -euo pipefail

packages=(cmake make g++ nlohmann-json3-dev libcli11-dev libeigen3-dev libgtest-dev
          libopenmpi-dev openmpi-bin gnuplot-nox chromium zlib1g-dev)
if [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang libclang-rt-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "zerosim: installing missing packages: ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "zerosim: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
