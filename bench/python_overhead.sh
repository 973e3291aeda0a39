#!/usr/bin/env bash
# Time per training step through Python (redraw.Trainer) against the CLI (`redraw train`), for the
# `instant` preset on a 512x512 picture on the CPU: the engine's own training clock of each run
# (startup and saving excluded) over the same steps, and their ratio. The floor: at most 1.05.
#   bench/python_overhead.sh BUILD_DIR [STEPS]     (default 200 steps; PYTHON=... picks the interpreter)
# The Python run gets the OpenMP spin the CLI sets for itself (app/cli_openmp_env.h), so the
# comparison is of the bindings, not of the runtime's settings.
set -euo pipefail
build="$(realpath "${1:-build}")"
steps="${2:-200}"
src="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
image="$src/assets/default.png"
python="${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}" # the interpreter the module was built for

"$build/bin/redraw" train "$image" --preset instant --size 512x512 --steps "$steps" --backend cpu --quiet \
  --out "$work/cli" >/dev/null
cli_s="$(tail -n 1 "$work/cli/metrics.csv" | cut -d, -f6)"

py_s="$(GOMP_SPINCOUNT=10000 OPENBLAS_NUM_THREADS=1 PYTHONPATH="$build/python" "$python" -c "
import redraw
t = redraw.Trainer('$image', preset='instant', size=(512, 512), steps=$steps, backend='cpu')
t.train()
print(t.metrics['seconds'][-1])")"

python3 - "$steps" "$cli_s" "$py_s" <<'PY'
import sys
steps, cli, py = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"instant 512x512, {steps} steps on the CPU: CLI {1000 * cli / steps:.2f} ms/step, "
      f"Python {1000 * py / steps:.2f} ms/step, ratio {py / cli:.3f} (floor: 1.05)")
PY
