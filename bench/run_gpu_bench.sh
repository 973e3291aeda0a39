#!/usr/bin/env bash
# Runs Redraw's CUDA benchmark and the PyTorch reference on the same GPU, one after the other, and
# prints the ratio table against the floors of issue #3:
#   classic 200x200 full batch: >= 3x PyTorch eager, >= 1.5x torch.compile
#   siren   256x256 full batch: >= 2x PyTorch eager
# then the accuracy runs on horse.png (200x200 binary, 99% of pixels right after thresholding):
# each shipped preset within 10 s, and the classic preset (unchanged SGD, cosine over 800,000
# steps as the original) within 60 s.
#   bash bench/run_gpu_bench.sh [--precision fp32|tf32|bf16] [--steps 200] [--tests] [--prebuilt DIR]
#     --tests         run the CUDA parity tests (redraw_tests -tc='*cuda*') first
#     --prebuilt DIR  use DIR/cuda_bench and DIR/redraw_tests (and DIR/lib, DIR/horse.png) made by
#                     --pack instead of building here (for a GPU machine without the build deps)
#   bash bench/run_gpu_bench.sh --pack DIR
#     on the build machine: builds for sm_90 (H100/H200) into build-cuda/ and copies the binaries,
#     the shared libraries they need beyond glibc and CUDA (cuBLAS comes from the GPU machine's
#     toolkit), and horse.png into DIR (about 50 MB)
# Exits 0 with a SKIPPED line on a machine without a CUDA device. Without --prebuilt it builds here,
# which needs the build dependencies (scripts/install_deps.sh); a GPU machine without a package
# registry uses --pack on the build machine and --prebuilt DIR on the GPU machine (README-gpu.md).
# The whole script takes several minutes: run its parts separately under a 10-minute limit.
set -euo pipefail
cd "$(dirname "$0")/.."
precision=fp32
steps=200
prebuilt=""
pack=""
tests=0
while [ $# -gt 0 ]; do
  case "$1" in
    --precision) precision="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --prebuilt) prebuilt="$2"; shift 2 ;;
    --pack) pack="$2"; shift 2 ;;
    --tests) tests=1; shift ;;
    *) echo "usage: $0 [--precision fp32|tf32|bf16] [--steps N] [--tests] [--prebuilt DIR] | --pack DIR" >&2; exit 2 ;;
  esac
done
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null 2>&1; then export PATH="/usr/local/cuda/bin:$PATH"; fi

if [ -n "$pack" ]; then
  cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DREDRAW_GUI=OFF -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
  cmake --build build-cuda --target cuda_bench psnr_bench redraw_tests redraw -j2 >/dev/null
  mkdir -p "$pack/lib"
  cp build-cuda/bin/cuda_bench build-cuda/bin/psnr_bench build-cuda/bin/redraw_tests build-cuda/bin/redraw "$pack/"
  ldd build-cuda/bin/redraw_tests build-cuda/bin/cuda_bench | awk '$3 ~ /^\// {print $1, $3}' | sort -u |
    while read -r name path; do
      case "$name" in
        libc.so*|libm.so*|libmvec.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|libcublas*|libcuda*) ;;
        *) cp -L "$path" "$pack/lib/" ;;
      esac
    done
  cp "${REDRAW_HORSE:-../shared/images/horse.png}" "$pack/" 2>/dev/null || echo "run_gpu_bench: no horse.png to pack"
  cp ../shared/images/chelsea.png ../shared/images/camera.png "$pack/" 2>/dev/null ||
    echo "run_gpu_bench: no chelsea.png / camera.png to pack (bench/run_instant_bench.sh needs them)"
  du -sh "$pack"
  exit 0
fi

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "run_gpu_bench: SKIPPED: no CUDA device (nvidia-smi finds none)"
  exit 0
fi
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
export REDRAW_ASSETS="${REDRAW_ASSETS:-$PWD/assets}"
if [ -n "$prebuilt" ]; then
  bin="$prebuilt"
  # cuBLAS from the machine's toolkit, or from PyTorch's wheel.
  cublas_wheel="$(python3 -c 'import os, nvidia.cublas as c; print(os.path.join(list(c.__path__)[0], "lib"))' 2>/dev/null || true)"
  export LD_LIBRARY_PATH="$prebuilt/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:${cublas_wheel}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  horse="${REDRAW_HORSE:-$prebuilt/horse.png}"
  out="${REDRAW_BENCH_OUT:-$prebuilt/results}"
else
  arch="${REDRAW_CUDA_ARCHS:-native}"
  cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DREDRAW_GUI=OFF -DCMAKE_CUDA_ARCHITECTURES="$arch" >/dev/null
  cmake --build build-bench --target cuda_bench redraw_tests -j"$(nproc)" >/dev/null
  bin=build-bench/bin
  horse="${REDRAW_HORSE:-../shared/images/horse.png}"
  out="${REDRAW_BENCH_OUT:-build-bench/bench-results}"
fi
mkdir -p "$out"

if [ "$tests" = 1 ]; then
  echo "== CUDA parity tests =="
  "$bin/redraw_tests" -tc='*cuda*,backend registry*' || echo "run_gpu_bench: CUDA TESTS FAILED"
fi

echo "== redraw (CUDA) =="
"$bin"/cuda_bench --presets classic,siren,fourier --sizes 200,256,512 --steps "$steps" \
  --precision "$precision" --json "$out/redraw.json" || echo "run_gpu_bench: cuda_bench failed"
echo "== PyTorch =="
python3 bench/torch_reference.py --presets classic,siren,fourier --sizes 200,256,512 --steps "$steps" \
  --precision "$precision" --modes eager,compile --json "$out/torch.json" ||
  echo "run_gpu_bench: the PyTorch reference failed (the table shows Redraw alone)"

python3 - "$out/redraw.json" "$out/torch.json" <<'PY'
import json, sys
try:
    ours = {(r["preset"], r["size"]): r for r in json.load(open(sys.argv[1]))["throughput"]}
except (OSError, ValueError, KeyError) as e:
    print(f"run_gpu_bench: no Redraw results to compare ({e})")
    sys.exit(0)
try:
    theirs = json.load(open(sys.argv[2]))
except (OSError, ValueError):
    theirs = []
ref = {(r["preset"], r["size"], r["impl"]): r for r in theirs if "steps_per_s" in r}  # failed runs carry "error"
floors = {("classic", 200, "torch-eager"): 3.0, ("classic", 200, "torch-compile"): 1.5, ("siren", 256, "torch-eager"): 2.0}
print()
print(f"{'preset':8} {'size':>5} {'redraw st/s':>12} {'eager st/s':>11} {'x eager':>8} {'compile st/s':>13} {'x compile':>10}  floors")
ok = True
for (preset, size), r in sorted(ours.items()):
    line = f"{preset:8} {size:5d} {r['steps_per_s']:12.1f}"
    verdicts = []
    for impl in ("torch-eager", "torch-compile"):
        t = ref.get((preset, size, impl))
        if t is None:
            line += f" {'-':>11} {'-':>8}" if impl == "torch-eager" else f" {'-':>13} {'-':>10}"
            continue
        ratio = r["steps_per_s"] / t["steps_per_s"]
        line += (f" {t['steps_per_s']:11.1f} {ratio:7.2f}x" if impl == "torch-eager" else
                 f" {t['steps_per_s']:13.1f} {ratio:9.2f}x")
        floor = floors.get((preset, size, impl))
        if floor is not None:
            passed = ratio >= floor
            ok &= passed
            verdicts.append(f"{impl.split('-')[1]} >= {floor}x: {'PASS' if passed else 'FAIL'}")
    print(line + "  " + "; ".join(verdicts))
print("all floors met" if ok else "SOME FLOORS NOT MET")
PY

echo "== accuracy: 99% of pixels on $horse (200x200 binary) =="
"$bin"/cuda_bench --presets fourier,siren,classic --sizes 200 --steps 20 --precision "$precision" \
  --accuracy "$horse" --time-limit 10 --json "$out/accuracy10.json" | sed -n '/^accuracy/,$p'
echo "== the classic preset itself (unchanged SGD, cosine over 800,000 steps), 60 s limit =="
"$bin"/cuda_bench --presets classic --sizes 200 --steps 20 --precision "$precision" \
  --accuracy "$horse" --time-limit 60 --accuracy-steps 800000 --json "$out/accuracy60.json" | sed -n '/^accuracy/,$p'
