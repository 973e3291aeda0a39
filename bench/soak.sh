#!/usr/bin/env bash
# RSS soak: trains on the CPU for SECONDS (default 3600) with checkpoints every 500
# steps and a 64 MiB timelapse cap, samples the process's resident memory every 10 s, and prints
# the samples and the growth after the first minute. Memory should stay flat within the timelapse
# cap. A benchmark, not a CI test.
# Usage: bench/soak.sh [SECONDS] [path/to/redraw]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-3600}"
redraw="${2:-build/bin/redraw}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$redraw" train tests/data/camera.png --preset siren --backend cpu --max-side 96 --steps 100000000 \
  --time-limit "$seconds" --checkpoint-every 500 --snapshot-cap-mb 64 --out "$out/run" --quiet &
pid=$!
echo "seconds,rss_mib"
samples=()
start=$SECONDS
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss" ] && { echo "$((SECONDS - start)),$rss"; samples+=("$((SECONDS - start)):$rss"); }
  sleep 10
done
wait "$pid"
python3 - "${samples[@]}" <<'PY'
import sys
pts = [tuple(map(int, s.split(':'))) for s in sys.argv[1:]]
warm = [r for t, r in pts if t >= 60] or [r for _, r in pts]
print(f"soak: {len(pts)} samples; after the first minute RSS {min(warm)}..{max(warm)} MiB, "
      f"first {warm[0]} MiB, last {warm[-1]} MiB, growth {warm[-1] - warm[0]:+d} MiB")
PY
