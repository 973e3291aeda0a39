#!/usr/bin/env bash
# One command: installs what is missing, builds, and runs every test (unit, CLI and GUI smoke tests).
# Tests that need a GPU skip with a visible message on a machine without one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)" "$@"
