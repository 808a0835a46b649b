#!/usr/bin/env bash
# Sets up (packages + build) and runs every test with ctest, then the sanitizer gate.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" "$@"
# The sanitizer gate (ASan + UBSan build in build-asan, scripts/sanitize.sh); VTA_SANITIZE_GATE=0
# skips it.
if [ "${VTA_SANITIZE_GATE:-1}" != 0 ]; then
  bash scripts/sanitize.sh
fi
