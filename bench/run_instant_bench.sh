#!/usr/bin/env bash
# The instant preset's benchmark: training samples/s and time to 25/30/35 dB on a 512x512
# colour photo (chelsea.png from tests/data, resized to 512x512) and on camera.png (512x512 grey,
# native size), for instant against fourier and siren; then, where a GPU is found, the same on
# CUDA, the throughput at batch 2^18 beside the same-run PyTorch hash grid (bench/torch_reference.py)
# and the floors:
#   CPU: 30 dB in under 60 s, at least 10x sooner than the best other preset, bit-identical reruns
#   GPU: >= 2.6e8 training samples/s (16 levels x 2 features + 64x2 ReLU MLP, batch 2^18) and
#        >= 3x the PyTorch peer
#   bash bench/run_instant_bench.sh [--cpu-only | --gpu-only] [--time-limit S]
# Builds into build/ (scripts/build.sh). On a GPU machine without the build dependencies,
# scripts/gpu_check.py's `instant` and `instant-torch` parts run the GPU half from a pack, against
# the floors of scripts/gpu_check/floors.py.
set -euo pipefail
cd "$(dirname "$0")/.."
cpu=1
gpu=1
limit=60
while [ $# -gt 0 ]; do
  case "$1" in
    --cpu-only) gpu=0; shift ;;
    --gpu-only) cpu=0; shift ;;
    --time-limit) limit="$2"; shift 2 ;;
    *) echo "usage: $0 [--cpu-only | --gpu-only] [--time-limit S]" >&2; exit 2 ;;
  esac
done
export REDRAW_ASSETS="${REDRAW_ASSETS:-$PWD/assets}"
images="${REDRAW_IMAGES:-tests/data}"
bash scripts/build.sh >/dev/null
bin=build/bin
out="${REDRAW_BENCH_OUT:-$bin/instant-results}"
mkdir -p "$out"

if [ "$cpu" = 1 ]; then
  echo "== CPU: time to PSNR, $limit s of training per preset at most =="
  "$bin/psnr_bench" --backend cpu --image "$images/chelsea.png" --size 512x512 --presets instant,fourier,siren \
    --time-limit "$limit" --rerun-check 30 --json "$out/cpu-chelsea.json"
  echo
  "$bin/psnr_bench" --backend cpu --image "$images/camera.png" --size 512x512 --presets instant,fourier,siren \
    --time-limit "$limit" --json "$out/cpu-camera.json"
  python3 - "$out/cpu-chelsea.json" "$out/cpu-camera.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    rows = json.load(open(path))
    runs = {r["preset"]: r for r in rows if "preset" in r}
    rerun = [r for r in rows if "rerun_check" in r]
    def at30(r):
        return next((h["seconds"] for h in r["time_to_psnr"] if h["target_db"] == 30), None)
    inst = runs.get("instant")
    if not inst:
        continue
    t = at30(inst)
    others = [at30(r) for name, r in runs.items() if name != "instant"]
    limit = max(r["train_seconds"] for r in runs.values())
    best_other = min([o for o in others if o is not None], default=None)
    print(f"\n{path.split('/')[-1]}: instant reaches 30 dB in {t if t is not None else 'NOT'} s"
          f" ({'PASS' if t is not None and t < 60 else 'FAIL'} < 60 s);", end=" ")
    if best_other is not None:
        ratio = best_other / t if t else 0
        print(f"best other preset {best_other:.2f} s: {ratio:.1f}x ({'PASS' if ratio >= 10 else 'FAIL'} >= 10x)")
    else:
        bound = limit / t if t else 0
        print(f"no other preset within {limit:.0f} s: >= {bound:.0f}x ({'PASS' if bound >= 10 else 'inconclusive'} >= 10x)")
    for r in rerun:
        print(f"rerun check: {'PASS' if r['identical'] else 'FAIL'} (bit-identical after {r['steps']} steps)")
PY
fi

if [ "$gpu" = 1 ]; then
  if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "run_instant_bench: GPU part SKIPPED: no CUDA device (nvidia-smi finds none)"
    exit 0
  fi
  echo "== CUDA: throughput at batch 2^18 (precision auto: the fused fp16 MLP) =="
  "$bin/cuda_bench" --presets instant --sizes 512 --steps 200 --precision auto --json "$out/cuda-instant.json" ||
    echo "run_instant_bench: cuda_bench failed"
  "$bin/cuda_bench" --presets instant --sizes 512 --steps 200 --precision fp32 --json "$out/cuda-instant-fp32.json" ||
    echo "run_instant_bench: cuda_bench (fp32) failed"
  echo "== PyTorch hash grid, same config =="
  python3 bench/torch_reference.py --presets instant --sizes 512 --steps 200 --precision fp32 --modes eager,compile \
    --json "$out/torch-instant.json" || echo "run_instant_bench: the PyTorch peer failed"
  python3 bench/torch_reference.py --presets instant --sizes 512 --steps 200 --precision fp16 --modes eager,compile \
    --json "$out/torch-instant-fp16.json" || echo "run_instant_bench: the PyTorch peer (fp16) failed"
  python3 - "$out/cuda-instant.json" "$out/torch-instant.json" "$out/torch-instant-fp16.json" <<'PY'
import json, sys
try:
    ours = json.load(open(sys.argv[1]))["throughput"][0]
except (OSError, ValueError, KeyError, IndexError) as e:
    print(f"run_instant_bench: no Redraw CUDA result ({e})")
    sys.exit(0)
peers = []
for path in sys.argv[2:]:
    try:
        peers += [r for r in json.load(open(path)) if "samples_per_s" in r]
    except (OSError, ValueError):
        pass
sps = ours["samples_per_s"]
print(f"\nredraw instant: {sps:.3g} samples/s ({'PASS' if sps >= 2.6e8 else 'FAIL'} >= 2.6e8)")
best = max(peers, key=lambda r: r["samples_per_s"], default=None)
for r in peers:
    print(f"  {r['impl']:14} {r['precision']:5} {r['samples_per_s']:.3g} samples/s: redraw is {sps / r['samples_per_s']:.1f}x")
if best:
    ratio = sps / best["samples_per_s"]
    print(f"against the fastest peer: {ratio:.1f}x ({'PASS' if ratio >= 3 else 'FAIL'} >= 3x)")
PY
  echo "== CUDA: time to PSNR =="
  "$bin/psnr_bench" --backend cuda --precision auto --image "$images/chelsea.png" --size 512x512 \
    --presets instant,fourier,siren --time-limit "$limit" --measure-every 0.02 --json "$out/cuda-chelsea.json"
  "$bin/psnr_bench" --backend cuda --precision auto --image "$images/camera.png" --size 512x512 \
    --presets instant,fourier,siren --time-limit "$limit" --measure-every 0.02 --json "$out/cuda-camera.json"
fi
