#!/usr/bin/env bash
# Builds the project (if needed) and prints the export benchmark table: time and peak memory of
# N x N exports of a small trained network (the classic preset's shape by default) streamed to an
# 8-bit PNG on the CPU. The memory bound is explained at the top of bench/export_bench.cpp.
#   bench/export_bench.sh [--size N]... [--hidden a,b,...] [--train-steps S] [--tile-pixels P] [--out FILE]
# Example (the issue's 16384 x 16384 export): bench/export_bench.sh --size 1024 --size 16384
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${REDRAW_BUILD_DIR:-$root/build}"
if [ ! -x "$build/bin/export_bench" ]; then "$root/scripts/build.sh" >/dev/null; fi
exec "$build/bin/export_bench" "$@"
