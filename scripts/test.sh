#!/usr/bin/env bash
# One command: installs what is missing, builds, and runs every test (unit, CLI, fault and GUI smoke
# tests), then the sanitizer and fuzzing stage (scripts/sanitize.sh: an ASan + UBSan build of the
# tests and 30 s per fuzz target). Tests that need a GPU skip with a visible message on a machine
# without one. REDRAW_SKIP_SANITIZE=1 skips the second stage (a quick local run); extra arguments
# go to the first stage's ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)" "$@")
if [ "${REDRAW_SKIP_SANITIZE:-0}" != "1" ]; then
  bash scripts/sanitize.sh
fi
