#!/usr/bin/env bash
# Rewrites tests/golden/*.txt from the current build (build/ by default) and shows what moved.
# Review the diff before committing: every change to the Plan or the cost model appears there.
# Usage: scripts/update_golden.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
cmake --build "$build" -j"$(nproc)" --target cli_golden_test zerosim >/dev/null
ZS_UPDATE_GOLDEN=1 "$build/tests/cli/cli_golden_test" --gtest_brief=1 >/dev/null
git --no-pager diff --stat -- tests/golden
