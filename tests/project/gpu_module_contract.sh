#!/usr/bin/env bash
# The redraw executable starts on any machine: it links no CUDA library (the CUDA backend is a
# module loaded at run time), and without the module, or with it switched off, it trains on the
# CPU and says why in one line; --backend cuda then fails with a clear error, never a loader error.
#   gpu_module_contract.sh path/to/redraw CUDA_BUILT(ON|OFF)
set -uo pipefail
redraw="$1"
cuda_built="${2:-OFF}"
. "$(dirname "$0")/../lib.sh"
tmp="$work"

# 1. No CUDA library among the executable's own dependencies.
needed="$(readelf -d "$redraw" | awk '/NEEDED/ {print $NF}' | tr -d '[]')"
echo "NEEDED: $(echo $needed)"
check_run "redraw needs no CUDA library (libcuda, libcudart, libcublas)" \
  bash -c "! grep -Eq '^lib(cuda|cudart|cublas|cublasLt|nvrtc)' <<<\"$needed\""

# 2. The module, when built, is beside the executable and exports only its entry point.
module="$(dirname "$redraw")/libredraw_cuda.so"
if [ "$cuda_built" = ON ] || [ "$cuda_built" = 1 ]; then
  check_run "libredraw_cuda.so is built beside redraw" test -f "$module"
  if [ -f "$module" ]; then
    exported="$(nm -D --defined-only "$module" | awk '$2 ~ /^[TDBRW]$/ {print $3}' | grep -v '^_' | sort -u)"
    check_run "the module exports only redraw_device_plugin_v1 (got: $(echo $exported))" \
      test "$exported" = "redraw_device_plugin_v1"
  fi
fi

# 3. A copy of the executable in a folder without the module, and no library path: trains on the CPU.
cp "$redraw" "$tmp/redraw"
img="$REDRAW_ASSETS/default.png"
out="$(env -u LD_LIBRARY_PATH "$tmp/redraw" train "$img" --preset siren --size 16x16 --steps 3 --backend auto \
       --out "$tmp/run" 2>&1)"; rc=$?
echo "$out" | tail -3
check_run "without the module, train --backend auto exits 0" test "$rc" -eq 0
check_run "... and says in one line why it uses the CPU" grep -q "using the CPU backend" <<<"$out"
check_run "... and wrote the model" test -f "$tmp/run/model.redraw"
out="$(env -u LD_LIBRARY_PATH "$tmp/redraw" train "$img" --size 16x16 --steps 3 --backend cuda --out "$tmp/run2" 2>&1)"; rc=$?
echo "$out" | tail -2
check_run "without the module, --backend cuda exits 1" test "$rc" -eq 1
check_run "... with an error naming why the GPU is unavailable" grep -q "^error: .*GPU is unavailable" <<<"$out"

# 4. The module switched off from the environment.
out="$(REDRAW_CUDA_PLUGIN=off "$redraw" info --backends 2>&1)"; rc=$?
echo "$out"
check_run "REDRAW_CUDA_PLUGIN=off: info --backends exits 0" test "$rc" -eq 0
if [ "$cuda_built" = ON ] || [ "$cuda_built" = 1 ]; then
  check_run "... and says the GPU is switched off" grep -q "switched off" <<<"$out"
fi
out="$(REDRAW_CUDA_PLUGIN=/nonexistent/libredraw_cuda.so "$redraw" train "$img" --size 16x16 --steps 2 \
       --out "$tmp/run3" 2>&1)"; rc=$?
check_run "a REDRAW_CUDA_PLUGIN path that does not exist falls back to the CPU (exit 0)" test "$rc" -eq 0
check_run "... naming the path" grep -q "/nonexistent/libredraw_cuda.so" <<<"$out"
finish gpu_module_contract
