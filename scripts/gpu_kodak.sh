#!/usr/bin/env bash
# `redraw bench kodak-paper` on a lent GPU, from the pack scripts/gpu_check.py makes, with the Kodak
# images carried beside it (docs/benchmark.md, "On a lent GPU"). Trains for at most SECONDS (the
# cells that finish are kept; the one cut off is left out), then measures the done cells and copies
# table.md, results.csv and report.html into $OUT/kodak-paper.
#   here, before the visit:  python3 scripts/gpu_check.py pack && mkdir -p .gpu-pack/kodak &&
#                            cp ../shared/images/kodak/*.png .gpu-pack/kodak/     (git-ignored, never committed)
#   the device call (carry .gpu-pack):  bash scripts/gpu_kodak.sh [METHODS [SECONDS [JOBS]]]   (default: instant 480 1)
# JOBS > 1 trains that many images at once on the one GPU: more images finish in a visit, but each
# cell's training seconds are then those of a shared GPU (the table's note says so).
set -uo pipefail
cd "$(dirname "$0")/.."
methods="${1:-instant}"
seconds="${2:-480}"
jobs="${3:-1}"
pack="${REDRAW_GPU_PACK:-.gpu-pack}"
out="${OUT:-.gpu-results}/kodak-paper"
python3 scripts/gpu_check.py unpack "$pack" || { echo "gpu_kodak: no pack at $pack"; exit 1; }
[ -d "$pack/kodak" ] || { echo "gpu_kodak: no Kodak images at $pack/kodak (see the top of this script)"; exit 1; }
cublas="$(python3 -c 'import sys; sys.path.insert(0, "scripts"); import gpu_check; d = gpu_check.Device(); d.find_cublas(); print(d.cublas)')"
export LD_LIBRARY_PATH="$PWD/$pack/lib${cublas:+:$cublas}" REDRAW_ASSETS="$PWD/assets"
bench=(./"$pack"/bin/redraw bench kodak-paper --methods "$methods" --images "$pack/kodak" --out /tmp/kodak-paper --backend cuda)
run=("${bench[@]}" --jobs "$jobs")
nvidia-smi -L
timeout -s INT "$seconds" "${run[@]}"
"${bench[@]}" --collect
mkdir -p "$out" && cp /tmp/kodak-paper/{table.md,results.csv,report.html} "$out"/ && cat "$out/table.md"
