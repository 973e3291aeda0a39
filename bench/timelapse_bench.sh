#!/usr/bin/env bash
# The timelapse and model-file figures per preset: frames a 512x512 run keeps in the default
# 256 MiB frame cap (and what they keep), then `instant` trained on the bundled drawing with the
# preset's defaults on the CPU: model.redraw's size, its frames, and the worst PSNR of a stored
# fp16 keyframe's render against the exact weights' render.
# Usage: bench/timelapse_bench.sh [BUILD_DIR]   (default: build)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
bin=$build/bin/timelapse_bench
[ -x "$bin" ] || { echo "error: $bin not found (build the project first)" >&2; exit 1; }
"$bin" --train "$here/assets/default.png"
