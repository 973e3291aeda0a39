#!/usr/bin/env bash
# `redraw bench kodak-paper` (or PROTOCOL: kodak-timed fits two families on all 24 images in one
# call) on a lent GPU, from the pack scripts/gpu_check.py makes, with the Kodak
# images carried beside it (docs/benchmark.md, "On a lent GPU"). Trains for at most SECONDS (the
# cells that finish are kept; the one cut off is left out; SIGINT at SECONDS, SIGKILL
# REDRAW_KODAK_KILL_AFTER seconds later, default 30, if it has not stopped), then measures the done
# cells and copies table.md, results.csv and report.html into $OUT/PROTOCOL.
#   here, before the visit:  python3 scripts/gpu_check.py pack && mkdir -p .gpu-pack/kodak &&
#                            cp ../shared/images/kodak/*.png .gpu-pack/kodak/     (git-ignored, never committed)
#   the device call (carry .gpu-pack):  bash scripts/gpu_kodak.sh [METHODS [SECONDS [JOBS [PROTOCOL]]]]
#                                       (default: instant 480 1 kodak-paper; the files go to $OUT/PROTOCOL)
# JOBS > 1 trains that many images at once on the one GPU: more images finish in a visit, but each
# cell's training seconds are then those of a shared GPU (the table's note says so).
# Exit 1 when a cell failed (saying how many), when no cell finished, or when there is no table of
# this call's own: the bench writes into a new folder, an earlier call's files in $OUT/PROTOCOL
# are removed first, and the table's cells must be this call's methods and images, written after it began
# (scripts/gpu_check/kodak.py).
set -uo pipefail
cd "$(dirname "$0")/.."
methods="${1:-instant}"
seconds="${2:-480}"
jobs="${3:-1}"
protocol="${4:-kodak-paper}"
kill_after="${REDRAW_KODAK_KILL_AFTER:-30}"
pack="${REDRAW_GPU_PACK:-.gpu-pack}"
out="${OUT:-.gpu-results}/$protocol"
since="$(date +%s)"
rm -f "$out/table.md" "$out/results.csv" "$out/report.html"
python3 scripts/gpu_check.py unpack "$pack" || { echo "gpu_kodak: no pack at $pack"; exit 1; }
pack="$(cd "$pack" && pwd)"
[ -d "$pack/kodak" ] || { echo "gpu_kodak: no Kodak images at $pack/kodak (see the top of this script)"; exit 1; }
cublas="$(python3 -c 'import sys; sys.path.insert(0, "scripts"); import gpu_check; d = gpu_check.Device(); d.find_cublas(); print(d.cublas)')"
export LD_LIBRARY_PATH="$pack/lib${cublas:+:$cublas}" REDRAW_ASSETS="$PWD/assets"
work="$(mktemp -d "${TMPDIR:-/tmp}/gpu_kodak-XXXXXX")" || exit 1
trap 'rm -rf "$work"' EXIT
bench=("$pack/bin/redraw" bench "$protocol" --methods "$methods" --images "$pack/kodak" --out "$work/$protocol"
       --backend cuda)
nvidia-smi -L
timeout -k "$kill_after" -s INT "$seconds" "${bench[@]}" --jobs "$jobs"
"${bench[@]}" --collect
python3 -c 'import sys; sys.path.insert(0, "scripts"); from gpu_check.kodak import main; sys.exit(main(sys.argv[1:]))' \
  "$work/$protocol/results.csv" "$methods" "$pack/kodak" "$since"
verdict=$?
mkdir -p "$out"
for f in table.md results.csv report.html; do
  [ -f "$work/$protocol/$f" ] && cp "$work/$protocol/$f" "$out/"
done
[ -f "$out/table.md" ] && cat "$out/table.md"
exit "$verdict"
