#!/usr/bin/env bash
# Builds the project (if needed) and prints the CPU training benchmark table:
# per preset, training throughput beside the OpenBLAS sgemm rate on the same shapes.
#   bench/run_cpu_bench.sh [--size N] [--seconds S] [--preset NAME]...
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh" >/dev/null
exec "$root/build/bin/cpu_bench" "$@"
