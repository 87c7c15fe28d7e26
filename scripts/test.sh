#!/usr/bin/env bash
# The second command of the README: builds zerosim with its tests and runs the whole suite.
# Usage: scripts/test.sh [--sanitize]
#   --sanitize  the suite under AddressSanitizer and UndefinedBehaviorSanitizer, in build-asan/
#               (scripts/sanitizer_build.sh: clang at -O1, shared with scripts/fuzz.sh).
# GPU tests carry the ctest label "gpu" and skip themselves on machines without a device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure_deps.sh

if [[ "${1:-}" == "--sanitize" ]]; then
  scripts/sanitizer_build.sh configure
  cmake --build build-asan -j"$(nproc)"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  ctest --test-dir build-asan -j"$(nproc)" --output-on-failure
  exit 0
fi
# The same build as scripts/demo.sh (build/, Release), so one build serves both.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build -j"$(nproc)" --output-on-failure
