#!/usr/bin/env bash
# The CPU backend's steps/s per preset at fixed thread counts, and each count's speed-up over one
# thread: how a step scales with cores (every count trains the same weights bit for bit).
#   bench/cpu_threads_bench.sh [--threads "1 2 4 8 16"] [--size N] [--seconds S] [--presets "A B"]
# Each preset trains at its own CPU batch (instant 2^14 samples, classic 2048, the others the whole
# N x N image; N defaults to 256) on the default image, `cpu_bench --preset-batch --no-sgemm
# --threads T` once per count. A line per count and preset as it finishes
# ("cpu_threads: PRESET THREADS STEPS_PER_S"; scripts/gpu_check.py's cpu-threads part reads them),
# then the table. REDRAW_BUILD_DIR names the build whose bin/cpu_bench runs (default build/, built
# when missing).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${REDRAW_BUILD_DIR:-$root/build}"
threads="1 2 4 8 16" size=256 seconds=3 presets="instant fourier siren classic classic-sgd"
source "$root/bench/bench_options.sh"
bench_options "threads size seconds presets" "" "$@"
[ -x "$build/bin/cpu_bench" ] || cmake --build "$build" --target cpu_bench >/dev/null
export REDRAW_ASSETS="${REDRAW_ASSETS:-$root/assets}"
# The spin policy redraw itself sets at start (app/cli_openmp_env.cpp); cpu_bench does not re-execute.
export GOMP_SPINCOUNT="${GOMP_SPINCOUNT:-10000}"
preset_args=()
for p in $presets; do preset_args+=(--preset "$p"); done
declare -A sps
for t in $threads; do
  out="$("$build/bin/cpu_bench" --threads "$t" --size "$size" --seconds "$seconds" --preset-batch --no-sgemm \
    "${preset_args[@]}")"
  [ "$t" = "${threads%% *}" ] && echo "$out" | head -1
  # cpu_bench's rows: | preset | params | steps/s | ...
  while read -r name rate; do
    sps[$name,$t]="$rate"
    echo "cpu_threads: $name $t $rate"
  done < <(echo "$out" | awk -F'|' '/^\| [a-z]/ && $4 ~ /[0-9]/ { gsub(/ /, "", $2); gsub(/ /, "", $4); print $2, $4 }')
done
first="${threads%% *}" last="${threads##* }"
echo
printf '| preset (%sx%s, steps/s) |' "$size" "$size"
for t in $threads; do printf ' %s thr |' "$t"; done
printf ' %s / %s |\n|---|' "$last" "$first"
for t in $threads; do printf -- '---|'; done
printf -- '---|\n'
for p in $presets; do
  printf '| %s |' "$p"
  for t in $threads; do printf ' %s |' "${sps[$p,$t]:--}"; done
  a="${sps[$p,$first]:-}" b="${sps[$p,$last]:-}"
  if [ -n "$a" ] && [ -n "$b" ]; then awk -v a="$a" -v b="$b" 'BEGIN { printf " %.2fx |\n", b / a }'; else echo " - |"; fi
done
