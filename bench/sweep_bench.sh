#!/usr/bin/env bash
# `redraw sweep`'s jobs on this machine (the rule in engine/sweep/sweep_jobs.h): each grid run with
# the default jobs and with every fixed --jobs from 1 to the cores (and, for the time grid, one
# job more than the cores), printing per run the jobs it ran, its wall time, the sum of its cells'
# training seconds, that sum over the jobs (the ideal wall time), wall / ideal, and the cells'
# mean steps and PSNR.
#   bench/sweep_bench.sh [--grids "time small large"] [--seconds 10] [--small-steps 400]
#                        [--large-steps 12] [--keep DIR]
# time:  3 images x 2 presets (instant, siren) x --seconds of training each, at the presets' 256 px.
# small: the same grid to --small-steps steps at 64 px: small steps.
# large: 2 images x siren (full batch: every pixel each step) to --large-steps steps at 512 px.
# Floors, time grid, the default's run: wall at most 1.1 x the ideal, no slower than the best
# fixed --jobs. REDRAW_BUILD_DIR names the build whose bin/redraw runs (default build/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${REDRAW_BUILD_DIR:-$root/build}"
grids="time small large" seconds=10 small_steps=400 large_steps=12 keep=""
source "$root/bench/bench_options.sh"
bench_options "grids seconds small_steps large_steps keep" "" "$@"
[ -x "$build/bin/redraw" ] || cmake --build "$build" --target redraw >/dev/null
export REDRAW_ASSETS="${REDRAW_ASSETS:-$root/assets}"
work="${keep:-$(mktemp -d)}"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
rm -f "$work/rows.tsv"
data="$root/tests/data"
cores=$(nproc)

# run NAME JOBS ARGS...: one sweep (JOBS "" for the default); one table row.
run() {
  local name="$1" jobs="$2" out="$work/$1-${2:-default}"
  shift 2
  rm -rf "$out"
  local t0 t1
  t0=$(date +%s.%N)
  "$build/bin/redraw" sweep "$@" ${jobs:+--jobs "$jobs"} --out "$out" >"$out.log" 2>&1
  t1=$(date +%s.%N)
  local ran
  ran=$(sed -n 's/^  jobs *\([0-9]*\) side by side, \([0-9]*\) CPU.*/\1 x \2 threads/p' "$out.log")
  python3 - "$out/results.csv" "$name" "${jobs:-default}" "$ran" "$t0" "$t1" "$work/rows.tsv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
name, asked, ran, t0, t1 = sys.argv[2:7]
jobs = int(ran.split()[0])
wall = float(t1) - float(t0)
train = sum(float(r["seconds"] or 0) for r in rows)
ideal = train / jobs
done = [r for r in rows if r["status"] == "done"]
steps = sum(int(r["steps"]) for r in done) / max(len(done), 1)
psnr = sum(float(r["psnr_db"]) for r in done) / max(len(done), 1)
print(f"| {name} | {asked} | {ran} | {wall:.1f} | {train:.1f} | {ideal:.1f} | {wall / ideal:.3f} | {steps:.0f} | {psnr:.2f} |")
with open(sys.argv[7], "a") as f:
    f.write(f"{name}\t{asked}\t{jobs}\t{wall}\t{ideal}\n")
PY
}

# floors GRID (the time grid's): the default's wall at most 1.1 x its ideal, and no slower than
# the best fixed --jobs up to the cores (more jobs than cores give each cell less than a core:
# not the same work).
floors() {
  python3 - "$work/rows.tsv" "$1" "$cores" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
grid, cores = sys.argv[2], int(sys.argv[3])
rows = [r for r in rows if r[0] == grid]
default = next(r for r in rows if r[1] == "default")
fixed = [r for r in rows if r[1] != "default" and int(r[1]) <= cores]
wall, ideal = float(default[3]), float(default[4])
best = min(fixed, key=lambda r: float(r[3]))
print(f"floor {grid}: default wall / ideal {wall / ideal:.3f} (at most 1.1): {'ok' if wall <= 1.1 * ideal else 'MISSED'}")
print(f"floor {grid}: default {wall:.1f} s, best fixed --jobs {best[1]} {float(best[3]):.1f} s: "
      f"{'ok' if wall <= float(best[3]) * 1.02 else 'MISSED'} (2% for noise)")
PY
}

echo "$(date +%F), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| grid | --jobs | ran | wall s | training s (sum) | ideal s | wall / ideal | mean steps | mean PSNR dB |"
echo "|---|---|---|---|---|---|---|---|---|"
images=("$data/camera.png" "$data/chelsea.png" "$data/horse.png")
for grid in $grids; do
  case "$grid" in
  time) args=(--images "${images[@]}" --presets instant,siren --time-limit "$seconds") extra=$((cores + 1)) ;;
  small) args=(--images "${images[@]}" --presets instant,siren --steps "$small_steps" --max-side 64) extra="" ;;
  large) args=(--images "${images[@]:0:2}" --presets siren --steps "$large_steps" --max-side 512) extra="" ;;
  *) echo "sweep_bench: unknown grid '$grid' (time, small, large)"; exit 2 ;;
  esac
  run "$grid" "" "${args[@]}"
  for j in $(seq 1 "$cores") $extra; do run "$grid" "$j" "${args[@]}"; done
  [ "$grid" != time ] || floors "$grid"
done
