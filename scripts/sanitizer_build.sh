#!/usr/bin/env bash
# Configures build-asan/: the build that scripts/test.sh --sanitize and scripts/fuzz.sh share,
# so that CI compiles the libraries once for both. clang (the fuzzers need it) at -O1 with
# AddressSanitizer and UndefinedBehaviorSanitizer, line tables for stack traces, libFuzzer
# coverage on every library, the tests and the fuzz targets; without the CUDA parts (the
# sanitizers cannot see device code, and the Release build already compiles and links it).
# Usage: scripts/sanitizer_build.sh configure
set -euo pipefail
cd "$(dirname "$0")/.."
[[ "${1:-}" == "configure" ]] || { echo "usage: scripts/sanitizer_build.sh configure" >&2; exit 2; }
scripts/ensure_deps.sh --fuzz
CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug \
  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" "-DCMAKE_C_FLAGS_DEBUG=-O1 -g1" \
  -DZS_SANITIZE=address,undefined -DZS_FUZZ=ON -DZS_CUDA=OFF -DBUILD_TESTING=ON >/dev/null
