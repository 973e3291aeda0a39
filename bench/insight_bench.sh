#!/usr/bin/env bash
# What the insight views cost the training (issue 16: throughput with a view open must stay
# >= 90% of the same run without it). Runs `redraw gui --autostart` under Xvfb on the CPU backend
# for SECONDS per mode (no view, Spectrum, Neuron maps, both), alternating the modes over ROUNDS,
# and reads every thread's CPU time from /proc at the end:
# - steps/s: the steps done over the wall time (noisy on a shared machine);
# - steps per training CPU-second: the same work measured against the training threads' own CPU
#   time, which a busy machine does not distort much;
# - extra CPU: what the views added (the insight worker, plus the GUI and GL threads' time above
#   the no-view run), as a share of the training threads' CPU time. On an idle machine with
#   cores to spare the throughput cost is at most this share.
#   bench/insight_bench.sh [BUILD_DIR] [ROUNDS] [SECONDS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
rounds="${2:-2}"
seconds="${3:-40}"
redraw="$build/bin/redraw"
[ -x "$redraw" ] || { echo "error: $redraw not found (build first)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/bench.json" <<JSON
{
  "name": "insight-bench",
  "model": {"encoding": {"otype": "Fourier", "features": 64, "sigma": 8}, "hidden": [128, 128, 128],
            "activation": "ReLU", "output_activation": "Sigmoid", "init": "He"},
  "loss": {"otype": "MSE"}, "optimizer": {"otype": "Adam"},
  "schedule": {"otype": "Cosine", "lr_max": 1e-2, "lr_min": 1e-4},
  "training": {"batch": "full", "steps": 1000000, "seed": 1, "metrics_every": 10},
  "data": {"color_mode": "rgb", "max_side": 128}
}
JSON
modes=(none spectrum neuron_maps both)
for m in "${modes[@]}"; do
  mkdir -p "$work/$m/redraw"
  case $m in
    none) echo '{"autosave_minutes": 0}' ;;
    spectrum) echo '{"autosave_minutes": 0, "show_spectrum": true}' ;;
    neuron_maps) echo '{"autosave_minutes": 0, "show_neuron_maps": true}' ;;
    both) echo '{"autosave_minutes": 0, "show_spectrum": true, "show_neuron_maps": true}' ;;
  esac >"$work/$m/redraw/settings.json"
done
tick="$(getconf CLK_TCK)"
# Prints "steps wall training_cpu insight_cpu gui_cpu" for one run.
run_one() {
  local m="$1" log="$work/$1.log"
  XDG_CONFIG_HOME="$work/$m" XDG_DATA_HOME="$work/data" REDRAW_ASSETS="$root/assets" REDRAW_GUI_STATS=1 \
    xvfb-run -a -s "-screen 0 1600x1000x24" "$redraw" gui "$root/assets/default.png" --preset "$work/bench.json" \
    --backend cpu --autostart 2>"$log" &
  local xpid=$!
  local pid=""
  for _ in $(seq 200); do # the redraw process xvfb-run starts (named exactly "redraw")
    pid="$(pgrep -P "$xpid" -x redraw || true)"
    [ -n "$pid" ] && break
    sleep 0.1
  done
  [ -n "$pid" ] || { echo "error: redraw did not start" >&2; return 1; }
  sleep "$seconds"
  local train=0 insight=0 gui=0 name t
  for task in /proc/"$pid"/task/*; do
    name="$(cat "$task/comm" 2>/dev/null || true)"
    t="$(awk '{print $14 + $15}' "$task/stat" 2>/dev/null || echo 0)"
    # The main thread (tid = pid) draws the GUI, Mesa's threads rasterise it; the insight worker
    # is named; every other thread is the training thread and its OpenMP pool.
    [ "${task##*/}" = "$pid" ] && name=gui-main
    case "$name" in
      redraw-insight) insight=$((insight + t)) ;;
      gui-main | llvmpipe* | gdrv* | gmain | gdbus | dconf* | threaded-ml) gui=$((gui + t)) ;;
      *) train=$((train + t)) ;;
    esac
  done
  local steps
  steps="$(grep -o 'step [0-9]*' "$log" | tail -1 | awk '{print $2}')"
  kill -9 "$pid" 2>/dev/null || true # the CPU times are read: no need for a clean quit
  wait "$xpid" 2>/dev/null || true
  echo "$steps $seconds $(awk -v a=$train -v b=$insight -v c=$gui -v k=$tick 'BEGIN {print a/k, b/k, c/k}')"
}
for ((r = 1; r <= rounds; ++r)); do
  for m in "${modes[@]}"; do run_one "$m" >>"$work/$m.runs"; done
done
printf '%-12s %8s %14s %12s %12s %12s\n' view "steps/s" "steps/train-s" "insight cpu" "gui cpu" "extra cpu"
base_gui=""
for m in "${modes[@]}"; do
  read -r steps wall train insight gui < <(awk '{s+=$1; w+=$2; t+=$3; i+=$4; g+=$5} END {print s, w, t, i, g}' "$work/$m.runs")
  [ "$m" = none ] && base_gui="$gui"
  awk -v m="$m" -v s="$steps" -v w="$wall" -v t="$train" -v i="$insight" -v g="$gui" -v bg="$base_gui" 'BEGIN {
    extra = i + (g > bg ? g - bg : 0);
    printf "%-12s %8.2f %14.2f %11.1fs %11.1fs %11.1f%%\n", m, s / w, s / t, i, g, 100 * extra / t }'
done
