#!/usr/bin/env bash
# The CPU floors (defaults, classic, threads, the PyTorch peer), as one table each:
#   1. horse 200x200 binary, time to 99% of pixels right (training time; measurements off the
#      clock): `classic` under 60 s, the best preset under 10 s; every preset listed.
#   2. threads: steps/s of classic-sgd at 128x128 (full batch) with 1 and 2 threads and the
#      measured team, on a quiet machine and beside one busy process (a shell busy loop); two
#      threads must never be slower than one.
#   3. PyTorch: every preset's steps/s against bench/torch_reference.py --device cpu, the same
#      network, batch and optimizer in the same run, at 1 and 2 threads (PyTorch with
#      OMP_WAIT_POLICY=passive, its best beside other work); floor 1.5x.
#
#   bash bench/run_cpu_defaults_bench.sh [--part accuracy|threads|torch]... [--seconds S] [--size N]
#                                        [--preset NAME]... (part 3's presets; default all seven)
#
# PyTorch comes from Debian (not needed by CI or the build): sudo apt-get install python3-torch
# (1.13 on Debian 12). Without it part 3 says SKIPPED. REDRAW_BIN=DIR uses binaries already built
# there (accuracy_bench, redraw); otherwise scripts/build.sh builds build/.
set -euo pipefail
cd "$(dirname "$0")/.."
parts=()
seconds=8
size=128
torch_presets=""
while [ $# -gt 0 ]; do
  case "$1" in
    --part) parts+=("$2"); shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --preset) torch_presets="${torch_presets:+$torch_presets }$2"; shift 2 ;;
    *) echo "usage: $0 [--part accuracy|threads|torch]... [--seconds S] [--size N] [--preset NAME]..." >&2; exit 2 ;;
  esac
done
[ ${#parts[@]} -eq 0 ] && parts=(accuracy threads torch)
export REDRAW_ASSETS="${REDRAW_ASSETS:-$PWD/assets}"
images="${REDRAW_IMAGES:-tests/data}"
if [ -n "${REDRAW_BIN:-}" ]; then
  bin="$REDRAW_BIN"
else
  bash scripts/build.sh >/dev/null
  bin=build/bin
fi
horse="$images/horse.png"
photo="$images/chelsea.png"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
status=0

# accuracy_bench's one-line result -> "steps seconds steps/s right psnr reached"
fields() { awk '{print $5, $7, $9, $11, $13, $14}'; }

busy_pid=""
start_busy() { bash -c 'while :; do :; done' & busy_pid=$!; }
stop_busy() { [ -n "$busy_pid" ] && kill "$busy_pid" 2>/dev/null; wait "$busy_pid" 2>/dev/null || true; busy_pid=""; }
trap stop_busy EXIT

for part in "${parts[@]}"; do
  case "$part" in
  accuracy)
    echo
    echo "== horse 200x200 binary: training time to 99% of pixels right (60 s at most) =="
    echo "| preset | steps | seconds | steps/s | pixels right | PSNR dB |"
    echo "|---|---|---|---|---|---|"
    best=1e9
    for p in instant fourier siren classic classic-sgd; do
      every=10
      [ "$p" = classic-sgd ] && every=5
      line=$("$bin/accuracy_bench" --image "$horse" --preset "$p" --size 200x200 --color binary --target 0.99 \
        --time-limit 60 --check-every "$every" --quiet | fields) || true
      read -r steps secs rate right psnr reached <<<"$line"
      pct=$(python3 -c "print(f'{100*$right:.2f}%')")
      python3 -c "import sys; sys.exit(0 if $secs <= 60 else 1)" || reached=late
      shown="$secs"; [ "$reached" = reached ] || shown="not in 60 s"
      echo "| $p | $steps | $shown | $rate | $pct | $psnr |"
      if [ "$reached" = reached ] && python3 -c "import sys; sys.exit(0 if $secs < $best else 1)"; then best=$secs; fi
      [ "$p" = classic ] && classic_line="$reached $secs"
    done
    read -r creached csecs <<<"$classic_line"
    if [ "$creached" = reached ] && python3 -c "import sys; sys.exit(0 if $csecs < 60 else 1)"; then
      echo "floor: classic to 99% in under 60 s: met ($csecs s)"
    else
      echo "floor: classic to 99% in under 60 s: NOT met"; status=1
    fi
    if python3 -c "import sys; sys.exit(0 if $best < 10 else 1)"; then
      echo "floor: the best preset to 99% in under 10 s: met ($best s)"
    else
      echo "floor: the best preset to 99% in under 10 s: NOT met (best $best s)"; status=1
    fi
    ;;
  threads)
    echo
    echo "== classic-sgd 128x128 full batch: steps/s by thread count, $seconds s each =="
    echo "| neighbour | 1 thread | 2 threads | measured | 2 vs 1 |"
    echo "|---|---|---|---|---|"
    for neighbour in none busy; do
      [ "$neighbour" = busy ] && start_busy
      r=()
      for t in 1 2 0; do
        line=$("$bin/accuracy_bench" --image "$horse" --preset classic-sgd --size 128x128 --color binary --target 2 \
          --time-limit "$seconds" --check-every 4 --threads "$t" --quiet | fields) || true
        r+=("$(awk '{print $3}' <<<"$line")")
      done
      stop_busy
      ratio=$(python3 -c "print(f'{${r[1]}/${r[0]}:.2f}x')")
      echo "| ${neighbour/busy/one busy process} | ${r[0]} | ${r[1]} | ${r[2]} | $ratio |"
      if ! python3 -c "import sys; sys.exit(0 if ${r[2]} >= 0.9 * ${r[0]} else 1)"; then
        echo "floor: the measured team is slower than one thread beside '$neighbour'"; status=1
      fi
    done
    ;;
  torch)
    echo
    echo "== every preset against PyTorch on the CPU at ${size}x$size, $seconds s each (same network, batch, optimizer) =="
    torch_py=""
    for py in /usr/bin/python3 python3; do # Debian's torch is for Debian's python
      if "$py" -c "import torch" 2>/dev/null; then torch_py="$py"; break; fi
    done
    if [ -z "$torch_py" ]; then
      echo "SKIPPED: PyTorch is not installed (sudo apt-get install python3-torch)"
      continue
    fi
    echo "| preset | threads | Redraw steps/s | PyTorch steps/s | Redraw / PyTorch |"
    echo "|---|---|---|---|---|"
    for p in ${torch_presets:-classic siren fourier instant finer gauss wire}; do
      color=rgb
      [ "$p" = classic ] && color=binary
      for t in 1 2 0; do # 0: Redraw's measured team (the default) against PyTorch's 2 threads
        tt=$t
        [ "$t" = 0 ] && tt=2
        line=$("$bin/accuracy_bench" --image "$photo" --preset "$p" --size "${size}x$size" --color "$color" --target 2 \
          --time-limit "$seconds" --check-every 5 --threads "$t" --quiet | fields) || true
        ours=$(awk '{print $3}' <<<"$line")
        theirs=$(OMP_WAIT_POLICY=passive "$torch_py" bench/torch_reference.py --device cpu --threads "$tt" --presets "$p" \
          --sizes "$size" --modes eager --steps 1 --seconds "$seconds" | awk -v p="$p" '$1 == p {print $5}')
        if [ -z "$theirs" ] || [ -z "$ours" ]; then
          echo "| $p | $t | ${ours:-failed} | ${theirs:-failed} | - |"; status=1; continue
        fi
        ratio=$(python3 -c "print(f'{$ours/$theirs:.2f}')")
        label=$t
        [ "$t" = 0 ] && label="measured (PyTorch 2)"
        echo "| $p | $label | $ours | $theirs | ${ratio}x |"
        python3 -c "import sys; sys.exit(0 if $ours >= 1.5 * $theirs else 1)" || { echo "floor 1.5x not met: $p, $t threads"; status=1; }
      done
    done
    ;;
  *) echo "unknown part '$part' (accuracy, threads, torch)" >&2; exit 2 ;;
  esac
done
exit $status
