#!/usr/bin/env bash
# Training throughput in the app against the same run headless (the floor: the GUI >= 90% of
# headless) and with the insight views open against none (the floor: a view open >= 90% of the
# same run without it). One run config, image and thread policy (the measured team, the default)
# for every run:
#   headless     `redraw train --time-limit SECONDS`
#   none         `redraw gui --autostart --time-limit SECONDS` under Xvfb (software GL), no view
#   spectrum, neuron_maps, both: the same with those windows open (through settings.json)
# Both commands stop after SECONDS of training time (the Trainer's clock, which leaves out loading
# and start-up) and print the steps done. The runs alternate over ROUNDS. While a run goes, every
# thread's CPU time is sampled from /proc (the last sample before it exits counts):
# - steps/s: steps over training seconds (noisy on a shared machine);
# - steps per training CPU-second: the same work over the training threads' own CPU time (the
#   session's thread and its OpenMP team; headless, the whole process), which a busy neighbour
#   distorts much less; a GUI that takes the trainer's core shows up here as barrier stalls;
# - GUI + GL CPU (the main thread and Mesa's threads) and the insight worker's CPU, per run.
# Prints a markdown table, the load average and the two floors (ratios >= 0.90).
#   bench/gui_throughput_bench.sh [BUILD_DIR] [ROUNDS] [SECONDS] [RUN...]
# RUN: any of headless none spectrum neuron_maps both (default: all). bench/insight_bench.sh is
# this script without the headless run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
rounds="${2:-2}"
seconds="${3:-30}"
shift $(($# < 3 ? $# : 3))
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(headless none spectrum neuron_maps both)
redraw="$build/bin/redraw"
[ -x "$redraw" ] || { echo "error: $redraw not found (build first)" >&2; exit 1; }
redraw_real="$(realpath "$redraw")"
command -v xvfb-run >/dev/null || { echo "error: xvfb-run not found (apt-get install xvfb xauth)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/bench.json" <<JSON
{
  "name": "gui-bench",
  "model": {"encoding": {"otype": "Fourier", "features": 64, "sigma": 8}, "hidden": [128, 128, 128],
            "activation": "ReLU", "output_activation": "Sigmoid", "init": "He"},
  "loss": {"otype": "MSE"}, "optimizer": {"otype": "Adam"},
  "schedule": {"otype": "Cosine", "lr_max": 1e-2, "lr_min": 1e-4},
  "training": {"batch": "full", "steps": 1000000, "seed": 1, "metrics_every": 10},
  "data": {"color_mode": "rgb", "max_side": 128}
}
JSON
image="$root/assets/default.png"
for m in none spectrum neuron_maps both; do
  mkdir -p "$work/$m/redraw"
  case $m in
    none) echo '{"autosave_minutes": 0}' ;;
    spectrum) echo '{"autosave_minutes": 0, "show_spectrum": true}' ;;
    neuron_maps) echo '{"autosave_minutes": 0, "show_neuron_maps": true}' ;;
    both) echo '{"autosave_minutes": 0, "show_spectrum": true, "show_neuron_maps": true}' ;;
  esac >"$work/$m/redraw/settings.json"
done
tick="$(getconf CLK_TCK)"

# CPU ticks of PID's threads: "training insight gui". In the app the main thread (tid = pid)
# draws, Mesa's threads rasterise, the insight worker is named; every other thread is the
# training thread and its OpenMP team. Headless (ALL_TRAINING=1) every thread trains.
cpu_split() {
  local pid="$1" all="$2"
  awk -v pid="$pid" -v all="$all" '
    { n = $2; gsub(/[()]/, "", n); t = $14 + $15; split(FILENAME, p, "/")
      if (all) tr += t
      else if (n == "redraw-insight") ins += t
      else if (p[5] == pid || n ~ /^(llvmpipe|gdrv|gmain|gdbus|dconf|threaded-ml)/) g += t
      else tr += t }
    END { print tr + 0, ins + 0, g + 0 }' /proc/"$pid"/task/*/stat 2>/dev/null
}

# Samples PID's CPU split every 0.2 s until it exits; prints the last sample taken before LOG
# said "time limit:" (the app pauses there, then joins its threads on the way out, and a joined
# thread's time leaves /proc/PID/task; headless every thread lives to the end).
follow_cpu() {
  local pid="$1" all="$2" log="$3" last="0 0 0" s
  while kill -0 "$pid" 2>/dev/null; do
    grep -qs "^time limit:" "$log" && break
    s="$(cpu_split "$pid" "$all" || true)"
    kill -0 "$pid" 2>/dev/null && ! grep -qs "^time limit:" "$log" && [ -n "$s" ] && last="$s"
    sleep 0.2
  done
  echo "$last"
}

# One run: prints "steps train_seconds training_cpu insight_cpu gui_cpu load1".
run_one() {
  local m="$1" log="$work/$1.log" pid="" cpu steps secs
  local load0
  load0="$(cut -d' ' -f1 /proc/loadavg)"
  if [ "$m" = headless ]; then
    "$redraw" train "$image" --config "$work/bench.json" --backend cpu --time-limit "$seconds" --quiet \
      --out "$work/headless-out" >"$log" 2>&1 &
    pid=$!
    cpu="$(follow_cpu "$pid" 1 "$log")"
    wait "$pid" || { echo "error: redraw train failed:" >&2; cat "$log" >&2; return 1; }
    # "stopped: N steps, PSNR ..., 30.0s -> ..."
    steps="$(sed -n 's/^stopped: \([0-9]*\) steps.*/\1/p' "$log")"
    secs="$(sed -n 's/^stopped: .*, \([0-9.]*\)s -> .*/\1/p' "$log")"
  else
    XDG_CONFIG_HOME="$work/$m" XDG_DATA_HOME="$work/data" REDRAW_ASSETS="$root/assets" \
      xvfb-run -a -s "-screen 0 1600x1000x24" "$redraw" gui "$image" --preset "$work/bench.json" \
      --backend cpu --autostart --time-limit "$seconds" >"$log" 2>&1 &
    local xpid=$!
    for _ in $(seq 300); do # the redraw process xvfb-run starts (beside Xvfb; its name may be "exe" after
      for c in $(pgrep -P "$xpid" || true); do # app/cli_openmp_env.cpp's re-exec of /proc/self/exe)
        [ "$(readlink "/proc/$c/exe" 2>/dev/null)" = "$redraw_real" ] && pid="$c"
      done
      [ -n "$pid" ] && break
      sleep 0.1
    done
    [ -n "$pid" ] || { echo "error: redraw did not start" >&2; cat "$log" >&2; return 1; }
    cpu="$(follow_cpu "$pid" 0 "$log")"
    wait "$xpid" || { echo "error: redraw gui failed:" >&2; cat "$log" >&2; return 1; }
    # "time limit: N steps in T s of training (R steps/s)"
    steps="$(sed -n 's/^time limit: \([0-9]*\) steps in .*/\1/p' "$log")"
    secs="$(sed -n 's/^time limit: [0-9]* steps in \([0-9.]*\) s.*/\1/p' "$log")"
  fi
  [ -n "$steps" ] && [ -n "$secs" ] || { echo "error: no step count from the $m run:" >&2; cat "$log" >&2; return 1; }
  local load1
  load1="$(cut -d' ' -f1 /proc/loadavg)"
  read -r tr ins g <<<"$cpu"
  awk -v s="$steps" -v w="$secs" -v a="$tr" -v b="$ins" -v c="$g" -v k="$tick" -v l0="$load0" -v l1="$load1" \
    'BEGIN { print s, w, a / k, b / k, c / k, (l0 + l1) / 2 }'
}

for ((r = 1; r <= rounds; ++r)); do
  for m in "${runs[@]}"; do
    run_one "$m" >>"$work/$m.runs"
    echo "round $r/$rounds $m: $(tail -1 "$work/$m.runs")" >&2
  done
done

# Sums over the rounds: steps/s = all steps / all training seconds, and so on.
total() { awk '{s+=$1; w+=$2; t+=$3; i+=$4; g+=$5; l+=$6; n++} END {print s, w, t, i, g, l / n, n}' "$work/$1.runs"; }
rate_of() { [ -f "$work/$1.runs" ] && total "$1" | awk '{print $1 / $2, $1 / $3}' || echo "- -"; }
read -r head_sps head_cpu < <(rate_of headless)
read -r none_sps none_cpu < <(rate_of none)
per_s() { awk -v x="$1" -v w="$2" 'BEGIN {printf "%.3f", x / w}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'; }
echo "| run | steps/s | vs headless | vs no view | steps per training CPU-s | vs headless | vs no view | GUI + GL CPU (cores) | insight CPU (cores) | load |"
echo "|---|---|---|---|---|---|---|---|---|---|"
loads=""
for m in "${runs[@]}"; do
  read -r steps wall train insight gui load n < <(total "$m")
  sps="$(awk -v s="$steps" -v w="$wall" 'BEGIN {printf "%.2f", s / w}')"
  cps="$(awk -v s="$steps" -v t="$train" 'BEGIN {printf "%.2f", s / t}')"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f |\n' "$m" "$sps" \
    "$(ratio "$sps" "$head_sps")" "$([ "$m" = headless ] && echo - || ratio "$sps" "$none_sps")" "$cps" \
    "$(ratio "$cps" "$head_cpu")" "$([ "$m" = headless ] && echo - || ratio "$cps" "$none_cpu")" \
    "$([ "$m" = headless ] && echo - || per_s "$gui" "$wall")" \
    "$([ "$m" = headless ] && echo - || per_s "$insight" "$wall")" "$load"
  loads="$loads $load"
done
echo
echo "$rounds round(s) of ${seconds} s per run; load average (1 min) during the runs:$loads"
floor() { # floor LABEL RATIO_SPS RATIO_CPU
  awk -v l="$1" -v a="$2" -v b="$3" 'BEGIN {
    sa = (a == "-") ? "-" : (a >= 0.90 ? "met" : "NOT met"); sb = (b == "-") ? "-" : (b >= 0.90 ? "met" : "NOT met")
    printf "floor >= 0.90, %s: steps/s %s (%s), per training CPU-s %s (%s)\n", l, a, sa, b, sb }'
}
for m in "${runs[@]}"; do
  read -r sps cps < <(rate_of "$m")
  case $m in
    none) [ "$head_sps" = - ] || floor "GUI vs headless" "$(ratio "$sps" "$head_sps")" "$(ratio "$cps" "$head_cpu")" ;;
    spectrum | neuron_maps | both)
      [ "$none_sps" = - ] || floor "$m vs no view" "$(ratio "$sps" "$none_sps")" "$(ratio "$cps" "$none_cpu")" ;;
  esac
done
