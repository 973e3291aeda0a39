#!/usr/bin/env bash
# JPEG shrink-on-load: time and peak memory of decoding a 24 MP JPEG in full, against decoding it
# to a 512 px training image. The test photos are the sample images tiled at their native scale
# (never resampled, so the JPEG holds real texture at every position), one per sample.
#   bench/decode_bench.sh [--side 512] [--repeats 3] [--size 6000x4000] [--keep DIR]
# Each measurement runs in its own process; peak memory is that process's maximum resident set.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${REDRAW_BUILD_DIR:-$root/build}"
side=512 repeats=3 size=6000x4000 keep=""
source "$root/bench/bench_options.sh"
bench_options "side repeats size keep" "" "$@"
if [ ! -x "$build/bin/decode_bench" ]; then cmake --build "$build" --target decode_bench >/dev/null; fi
bench="$build/bin/decode_bench"
work="${keep:-$(mktemp -d)}"
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
samples="${REDRAW_SAMPLE_DIR:-$root/tests/data}"
w="${size%x*}" h="${size#*x}"
printf "%-10s %-15s %-9s %8s %8s %9s %9s %7s %7s %8s\n" photo mode out full_s this_s full_MiB this_MiB time% mem% net_mem%
for src in "$samples"/chelsea.png "$samples"/camera.png "$samples"/horse.png; do
  name="$(basename "${src%.png}")"
  jpg="$work/$name-${w}x$h.jpg"
  [ -f "$jpg" ] || "$bench" make "$src" "$jpg" "$w" "$h"
  read -r _ _ _ base_mib < <("$bench" baseline "$jpg")
  read -r _ full_out full_s full_mib < <("$bench" full "$jpg" "$repeats")
  for mode in train train-noshrink; do
    read -r _ out s mib < <("$bench" "$mode" "$jpg" "$side" "$repeats")
    awk -v n="$name" -v m="$mode" -v o="$out" -v fs="$full_s" -v s="$s" -v fm="$full_mib" -v mm="$mib" -v b="$base_mib" \
      'BEGIN { printf "%-10s %-15s %-9s %8.3f %8.3f %9.1f %9.1f %6.1f%% %6.1f%% %7.1f%%\n", n, m, o, fs, s, fm, mm, 100*s/fs, 100*mm/fm, 100*(mm-b)/(fm-b) }'
  done
done
echo "full: load_image at full size; train: prepare_training_image --max-side $side (JPEG shrink-on-load);"
echo "train-noshrink: the same from a full decode. mem%: peak resident memory against full's; net_mem%: the"
echo "same above the process's memory before any pixels (libraries loaded, file read: 'baseline')."
echo "Floor: train within 25% of full in time and memory."
