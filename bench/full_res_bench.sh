#!/usr/bin/env bash
# Full resolution against a small training size, as a user runs them: `redraw train` on a large
# photo (a sample image tiled at its native scale into a W x H JPEG, never resampled) with one
# preset, once at --max-side SIDE and once at full resolution, each for the same --time-limit.
# Prints per run: steps, training seconds and steps/s (from train's summary), wall time and the
# time outside training (decode, set-up, metrics outside the clock, saving), peak resident memory,
# the reported PSNR, the share of the training time its sampled metrics rows took, and the full
# run's steps/s as a share of the small run's.
#   bench/full_res_bench.sh [--preset instant] [--seconds 60] [--side 512] [--size 6000x4000]
#                           [--sample chelsea] [--photo FILE] [--backend auto|cpu|cuda] [--steps N] [--keep DIR]
#                           [--quality] [--rounds N] [--same-grid]
# --rounds N: the two runs take turns N times (a shared machine's slow spells then fall on both);
# the share is taken over all rounds' steps and training seconds.
# Each size's hash grid is printed under the table (bench/model_grid.py on the saved model): a preset
# sizes its grid to the picture, so the two runs train unlike grids (instant: 1.83 M rows at 1000 px,
# 4.10 M at 10000) and their share mixes the picture's size with the grid's. --same-grid trains the
# full picture's grid at both sizes (its table size and finest resolution through --set), so the
# share compares like with like.
# --quality: both runs' final.png against the photo by an independent tool (bench/independent_psnr.py:
# Pillow and numpy; the small run's picture upscaled bicubically to the photo's size), and by how
# many dB full resolution wins (the floor: at least 1 dB, 5 minutes each: --seconds 300).
# --photo trains on FILE as it is (no tiling; --size, when given, is then FILE's size). REDRAW_BUILD_DIR names the
# folder whose bin/ holds redraw (a GPU pack's, say). The GPU floor (100 MP against 1 MP: fullres_share in
# scripts/gpu_check/floors.py, checked by scripts/gpu_check.py run fullres):
# (--steps: the schedule's length, so that a fast device runs to the time limit):
#   bench/full_res_bench.sh --backend cuda --size 8192x8192 --side 1024 --steps 1000000
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${REDRAW_BUILD_DIR:-$root/build}"
preset=instant seconds=60 side=512 size="" sample=chelsea keep="" photo="" backend=auto steps="" quality=0 rounds=1
source "$root/bench/bench_options.sh"
same_grid=0
bench_options "preset seconds side size sample photo backend steps keep rounds" "quality same_grid" "$@"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "full_res_bench: --rounds must be a positive whole number"; exit 2; }
size_given=0
[ -n "$size" ] && size_given=1
size="${size:-6000x4000}"
steps_arg=()
[ -n "$steps" ] && steps_arg=(--steps "$steps")
if [ "$quality" = 1 ] && ! /usr/bin/python3 -c "import PIL, numpy" 2>/dev/null; then
  echo "full_res_bench: --quality needs Pillow and numpy; installing python3-pil python3-numpy"
  $([ "$(id -u)" = 0 ] || echo sudo) apt-get install -y -q python3-pil python3-numpy >/dev/null
fi
tools=(redraw)
[ -n "$photo" ] || tools+=(decode_bench)
for t in "${tools[@]}"; do
  [ -x "$build/bin/$t" ] || cmake --build "$build" --target "$t" >/dev/null
done
export REDRAW_ASSETS="${REDRAW_ASSETS:-$root/assets}"
work="${keep:-$(mktemp -d)}"
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
if [ -n "$photo" ] && [ "$size_given" = 0 ]; then
  size="$("$build/bin/redraw" info "$photo" 2>/dev/null | sed -n 's/^size: *\([0-9]\+\)x\([0-9]\+\).*/\1x\2/p' | head -1 || true)"
  [ -n "$size" ] || { echo "full_res_bench: cannot read the size of $photo (redraw info)"; exit 1; }
elif [ -z "$photo" ]; then
  w="${size%x*}" h="${size#*x}"
  photo="$work/$sample-${w}x$h.jpg"
  [ -f "$photo" ] || "$build/bin/decode_bench" make "${REDRAW_SAMPLE_DIR:-$root/tests/data}/$sample.png" "$photo" "$w" "$h"
fi
w="${size%x*}" h="${size#*x}"
# A photo's floats over the default decode budget (1 GiB) get the budget they need, plus a half.
budget=$(awk -v w="$w" -v h="$h" 'BEGIN { m = w * h * 3 * 4 / 1048576 * 1.5; print (m > 1024 ? int(m) : 1024) }')
long=$((w > h ? w : h))
grid_args=()
if [ "$same_grid" = 1 ]; then
  # The full picture's grid (engine/model_spec.cpp, size_hash_grid_to_image): a table of the pixel
  # count's nearest power of two (2^12 to 2^19) per hashed level, the finest level at the longer side.
  log2=$(awk -v n="$((w * h))" 'BEGIN { l = int(log(n) / log(2) + 0.5); print (l < 12 ? 12 : (l > 19 ? 19 : l)) }')
  grid_args=(--set "model.encoding.log2_hashmap_size=$log2" --set "model.encoding.finest_resolution=$long")
fi

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $preset on $(basename "$photo") (${w}x$h), --backend $backend, --time-limit $seconds"
echo
echo "| training size | steps | train s | steps/s | wall s | outside training s | peak RSS MiB | PSNR dB | metrics rows % |"
echo "|---|---|---|---|---|---|---|---|---|"
declare -A rate all_steps all_seconds grid
all_steps[$side]=0 all_steps[$long]=0 all_seconds[$side]=0 all_seconds[$long]=0
# --rounds N: the two sizes take turns N times, so a slow spell of a shared machine falls on both
# (the share is then the ratio of each size's steps over its training seconds in all rounds).
for round in $(seq 1 "$rounds"); do
for s in "$side" "$long"; do
  out="$work/run-$s"
  rm -rf "$out"
  # GNU time gives the peak RSS; where it is missing (a bare GPU machine) bash's clock, RSS 0.
  if [ -x /usr/bin/time ]; then timer=(/usr/bin/time -f "%e %M" -o "$work/time-$s")
  else timer=(); t0=$(date +%s.%N); fi
  "${timer[@]}" "$build/bin/redraw" train "$photo" --preset "$preset" --max-side "$s" --backend "$backend" "${steps_arg[@]}" \
    "${grid_args[@]}" --max-image-memory "$budget" --time-limit "$seconds" --out "$out" --quiet >"$work/log-$s" 2>&1 ||
    { echo "train at --max-side $s failed:"; tail -5 "$work/log-$s"; exit 1; }
  # train's summary: "done: N steps, PSNR X dB, Ys -> ..." ("stopped:" at the time limit)
  # (the time as "12.3s", "4m05s" or "1h02m")
  summary="$(sed -n 's/^\(done\|stopped\): \([0-9]*\) steps, PSNR \([-0-9.inf]*\) dB, \([0-9.hms]*\) ->.*/\2 \3 \4/p' "$work/log-$s" | tail -1)"
  [ -n "$summary" ] || { echo "no summary line from train at --max-side $s:"; tail -5 "$work/log-$s"; exit 1; }
  read -r steps psnr duration <<<"$summary"
  grid[$s]="$("$build/bin/redraw" info --json "$out/model.redraw" 2>/dev/null | python3 "$root/bench/model_grid.py" || true)"
  train_s="$(awk -v t="$duration" 'BEGIN { n = ""; for (i = 1; i <= length(t); ++i) { c = substr(t, i, 1)
    if (c ~ /[0-9.]/) n = n c; else { s += n * (c == "h" ? 3600 : c == "m" ? 60 : 1); n = "" } } print s }')"
  if [ ${#timer[@]} -eq 0 ]; then echo "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }') 0" >"$work/time-$s"; fi
  read -r wall kib <"$work/time-$s"
  rate[$s]=$(awk -v n="$steps" -v t="$train_s" 'BEGIN { printf "%.3f", (t > 0 ? n / t : 0) }')
  all_steps[$s]=$((all_steps[$s] + steps))
  all_seconds[$s]=$(awk -v a="${all_seconds[$s]}" -v t="$train_s" 'BEGIN { print a + t }')
  label="$s"
  [ "$rounds" = 1 ] || label="$s (round $round)"
  # train's "metrics rows: N sampled, S s, P% of the training time" (none when every row was exact)
  share="$(sed -n 's/^metrics rows: .*, \([0-9.]*\)% of the training time$/\1/p' "$work/log-$s" | tail -1)"
  awk -v s="$label" -v n="$steps" -v t="$train_s" -v r="${rate[$s]}" -v wl="$wall" -v k="$kib" -v p="$psnr" -v m="${share:--}" \
    'BEGIN { printf "| %s | %d | %.1f | %s | %.1f | %.1f | %.0f | %s | %s |\n", s, n, t, r, wl, wl - t, k / 1024, p, m }'
done
done
echo
echo "grid at $side: ${grid[$side]:-unknown}"
echo "grid at $long: ${grid[$long]:-unknown}"
[ "${grid[$side]:-unknown}" = "${grid[$long]:-unknown}" ] ||
  echo "(unlike grids: the share below mixes the picture's size with the grid's; --same-grid compares like with like)"
awk -v na="${all_steps[$long]}" -v ta="${all_seconds[$long]}" -v nb="${all_steps[$side]}" -v tb="${all_seconds[$side]}" \
  -v l="$long" -v s="$side" -v r="$rounds" 'BEGIN { a = (ta > 0 ? na / ta : 0); b = (tb > 0 ? nb / tb : 0)
    printf "steps/s at %s as a share of %s: %.2f (%.2f / %.2f%s)\n", l, s, (b > 0 ? a / b : 0), a, b,
           (r > 1 ? ", all " r " rounds" : "") }'
if [ "$quality" = 1 ]; then
  echo
  echo "Against the photo, by Pillow and numpy (the $side px picture upscaled bicubically to ${w}x$h):"
  /usr/bin/python3 "$root/bench/independent_psnr.py" "$photo" "$work/run-$long/final.png" "$work/run-$side/final.png" |
    tee "$work/quality"
  awk '{ p[NR] = $(NF-1) } END { printf "full resolution wins by %.2f dB (floor 1 dB)\n", p[1] - p[2] }' "$work/quality"
fi
