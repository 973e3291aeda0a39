#!/usr/bin/env bash
# Two builds' CPU training speed, side by side in one run: each preset (its own CPU batch) at 1 and
# 2 threads, rounds alternating which build goes first, so load that comes and goes falls on both.
# Prints, per row, the median steps/s of each build and their ratio (B / A), and the median CPU
# time per step (all threads; less sensitive to other work on the machine) and its speed ratio.
#   bench/ab_cpu_bench.sh A_CPU_BENCH B_CPU_BENCH [--rounds R] [--seconds S] [--size N] [--preset NAME]...
# A_CPU_BENCH, B_CPU_BENCH: two cpu_bench binaries (e.g. build/bin/cpu_bench of two checkouts).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 A_CPU_BENCH B_CPU_BENCH [--rounds R] [--seconds S] [--size N] [--preset NAME]..." >&2; exit 2; }
a="$1" b="$2"
shift 2
rounds=3 seconds=4 size=128 presets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --preset) presets+=("$2"); shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ ${#presets[@]} -eq 0 ] && presets=(classic siren fourier instant)
export REDRAW_ASSETS="${REDRAW_ASSETS:-$PWD/assets}"
# The spin policy redraw itself sets at start (app/cli_openmp_env.cpp); cpu_bench does not re-execute.
export GOMP_SPINCOUNT="${GOMP_SPINCOUNT:-10000}"
# One measurement: "steps/s CPU-ms-per-step" from cpu_bench's table row.
rate() {
  "$1" --size "$size" --seconds "$seconds" --threads "$3" --preset-batch --no-sgemm --preset "$2" |
    awk -F'|' '/^\| [a-z]/ && $2 !~ /preset/ {gsub(/ /, "", $4); gsub(/ /, "", $9); print $4 "," $9}'
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A: $a"
echo "B: $b"
echo "${size}x${size}, each preset's CPU batch, $rounds rounds of ${seconds} s per build, alternating"
echo
echo "| preset | threads | A steps/s | B steps/s | B / A | A CPU ms/step | B CPU ms/step | A / B |"
echo "|---|---|---|---|---|---|---|---|"
for p in "${presets[@]}"; do
  for t in 1 2; do
    ra="" rb=""
    for ((r = 0; r < rounds; ++r)); do
      if ((r % 2 == 0)); then
        ra="$ra $(rate "$a" "$p" "$t")"; rb="$rb $(rate "$b" "$p" "$t")"
      else
        rb="$rb $(rate "$b" "$p" "$t")"; ra="$ra $(rate "$a" "$p" "$t")"
      fi
    done
    ma=$(echo "$ra" | tr ' ' '\n' | cut -d, -f1 | median) mb=$(echo "$rb" | tr ' ' '\n' | cut -d, -f1 | median)
    ca=$(echo "$ra" | tr ' ' '\n' | cut -d, -f2 | median) cb=$(echo "$rb" | tr ' ' '\n' | cut -d, -f2 | median)
    echo "| $p | $t | $ma | $mb | $(python3 -c "print(f'{$mb / $ma:.3f}')") | $ca | $cb | $(python3 -c "print(f'{$ca / $cb:.3f}')") |"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
