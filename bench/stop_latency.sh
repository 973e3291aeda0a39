#!/usr/bin/env bash
# How long `redraw train --full` takes to exit after a signal, per preset, on a photo (a sample
# image tiled at its native scale into a SIZE picture by decode_bench): each run trains for
# --after seconds of training (its "training ..." line seen), then gets SIGTERM (or --signal).
# Prints per preset: the steps finished, the milliseconds from the signal to the exit, the exit
# code, and what was left (a model that opens, or nothing). The floor: every preset under 2000 ms
# at 2048x2048.
#   bench/stop_latency.sh [--size 2048x2048] [--sample chelsea] [--after 8] [--signal TERM]
#                         [--presets "classic siren fourier instant"] [--rounds 1]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${REDRAW_BUILD_DIR:-$root/build}"
size=2048x2048 sample=chelsea after=8 signal=TERM presets="classic classic-sgd siren fourier instant" rounds=1
source "$root/bench/bench_options.sh"
bench_options "size sample after signal presets rounds" "" "$@"
for t in redraw decode_bench; do
  [ -x "$build/bin/$t" ] || cmake --build "$build" --target "$t" >/dev/null
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
photo="$work/photo.png"
"$build/bin/decode_bench" make "${REDRAW_SAMPLE_DIR:-$root/tests/data}/$sample.png" "$photo" "${size%x*}" "${size#*x}" >/dev/null
printf '| preset | round | steps | signal to exit, ms | exit | left |\n|---|---|---|---|---|---|\n'
worst=0
for round in $(seq 1 "$rounds"); do
  for preset in $presets; do
    out="$work/$preset-$round"
    "$build/bin/redraw" train "$photo" --full --preset "$preset" --out "$out" >"$out.out" 2>"$out.err" &
    pid=$!
    until grep -q "^training '" "$out.err" 2>/dev/null; do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.05
    done
    sleep "$after"
    t0=$EPOCHREALTIME
    kill -"$signal" "$pid"
    set +e
    wait "$pid"
    code=$?
    set -e
    ms=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
    [ "$ms" -gt "$worst" ] && worst=$ms
    steps=$(grep -oE '^stopped: [0-9]+' "$out.out" | grep -oE '[0-9]+' || echo 0)
    if [ -e "$out/model.redraw" ]; then
      left="model opens"
      "$build/bin/redraw" info "$out/model.redraw" >/dev/null 2>&1 || left="MODEL DOES NOT OPEN"
    else
      left="nothing$(grep -q 'stopped before the first step finished' "$out.err" && echo ' (said so)')"
    fi
    printf '| %s | %s | %s | %s | %s | %s |\n' "$preset" "$round" "$steps" "$ms" "$code" "$left"
  done
done
echo
echo "slowest: $worst ms (floor: under 2000 ms)"
