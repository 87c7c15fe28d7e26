#!/usr/bin/env bash
# The second command of the README: builds zerosim with its tests and runs the whole suite.
# Usage: scripts/test.sh [--sanitize]
#   --sanitize  builds into build-asan/ with AddressSanitizer and UndefinedBehaviorSanitizer.
# GPU tests carry the ctest label "gpu" and skip themselves on machines without a device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure_deps.sh

# The same build as scripts/demo.sh (build/, Release), so one build serves both.
dir=build
flags=(-DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON)
if [[ "${1:-}" == "--sanitize" ]]; then
  dir=build-asan
  # -O0 with line tables: the quickest sanitizer build on two cores, with usable stack traces.
  # Without the CUDA parts: the sanitizers cannot see device code, the Release build already
  # compiles and links it, and nvcc would double the build time.
  flags=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1" -DZS_SANITIZE=address,undefined
         -DZS_CUDA=OFF)
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
ctest --test-dir "$dir" -j"$(nproc)" --output-on-failure
