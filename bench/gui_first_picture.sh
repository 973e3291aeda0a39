#!/usr/bin/env bash
# How long the app takes from its start to the first picture of a large photo trained at full
# resolution (the floor: 5 s for a 6000 x 4000 JPEG on the CPU), beside the bundled drawing at its
# preset size. Per run: `redraw gui PHOTO --preset P` under Xvfb (software GL) with the preset's
# training size set to full resolution, and a test script that waits for the first picture on
# the canvas (the untrained network's, rendered at the size shown), stamps the time and quits.
# The clock starts as the redraw process starts (inside Xvfb, so Xvfb's own start is left out)
# and includes the decode, the set-up of the network, the first render and the window's frames.
#   bench/gui_first_picture.sh [--preset instant] [--size 6000x4000] [--sample chelsea] [--photo FILE]
#                              [--backend cpu] [--rounds 3]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${REDRAW_BUILD_DIR:-$root/build}"
preset=instant size=6000x4000 sample=chelsea photo="" backend=cpu rounds=3
source "$root/bench/bench_options.sh"
bench_options "preset size sample photo backend rounds" "" "$@"
command -v xvfb-run >/dev/null || { echo "error: xvfb-run not found (apt-get install xvfb xauth)" >&2; exit 1; }
for t in redraw decode_bench; do
  [ -x "$build/bin/$t" ] || cmake --build "$build" --target "$t" >/dev/null
done
export REDRAW_ASSETS="${REDRAW_ASSETS:-$root/assets}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -z "$photo" ]; then
  photo="$work/$sample-$size.jpg"
  "$build/bin/decode_bench" make "${REDRAW_SAMPLE_DIR:-$root/tests/data}/$sample.png" "$photo" "${size%x*}" "${size#*x}"
fi
# The preset as shipped, trained at full resolution (the controls' "Full resolution").
/usr/bin/python3 - "$REDRAW_ASSETS/presets/$preset.json" "$work/full.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["name"] = p["name"] + "-full"
p.setdefault("data", {})["max_side"] = 0
json.dump(p, open(sys.argv[2], "w"))
PY
cat >"$work/script.txt" <<SCRIPT
wait has_run
exec date +%s.%N > $work/shown
SCRIPT

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); --backend $backend"
echo
echo "| image | training size | run | seconds to the first picture |"
echo "|---|---|---|---|"
one() { # IMAGE PRESET LABEL SIZE_LABEL ROUND
  rm -f "$work/shown" "$work/start"
  XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" xvfb-run -a -s "-screen 0 1600x1000x24" \
    sh -c 'date +%s.%N > "$0"; exec "$@"' "$work/start" "$build/bin/redraw" gui "$1" --preset "$2" --backend "$backend" \
    --test-script "$work/script.txt" >"$work/log" 2>&1 || { echo "redraw gui failed:"; tail -5 "$work/log"; exit 1; }
  awk -v a="$(cat "$work/start")" -v b="$(cat "$work/shown")" -v i="$3" -v s="$4" -v r="$5" \
    'BEGIN { printf "| %s | %s | %d | %.2f |\n", i, s, r, b - a }'
}
for r in $(seq 1 "$rounds"); do
  one "$root/assets/default.png" "$preset" "default.png" "preset ($preset)" "$r"
  one "$photo" "$work/full.json" "$(basename "$photo")" "full ($size)" "$r"
done
