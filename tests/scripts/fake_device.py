"""A fake GPU machine for scripts/gpu_check's tests, on a machine without a GPU: a fake pack (stub
binaries that print what the real ones print), a fake nvidia-smi, compute-sanitizer, PyTorch peer
(python3 bench/torch_reference.py) and tiny-cuda-nn image benchmark, each steered by FAKE_*
variables in the environment of the run:

  FAKE_GPU_NAME      the card's name (an H100's floors apply only on a card so named)
  FAKE_HANG          redraw_cuda_tests or redraw_tests: that binary prints "hanging" and sleeps 20 s
  FAKE_FULL_STEPS    redraw train's steps at full resolution (300 at --max-side 1000; default 270)
  FAKE_IGNORE_SET=1  redraw train ignores --set: each size trains the grid it sizes (unlike grids)
  FAKE_SAMPLES       cuda_bench's samples/s with the default (shared-dense) backward (default 3.5e8)
  FAKE_AB_SAMPLES    ... with the per-sample one, the A/B's other (default 3.2e8); FAKE_AB_CRASH=1: dies after a row
  FAKE_UNREACHED     with --accuracy: the presets (comma-separated) that do not reach the target
                     ("reached": false, exit 0, as cuda_bench reports it); the others reach it
  FAKE_CPU_X16       cpu_bench at 16 threads, in multiples of 1 thread's 10 steps/s (default 12)
  FAKE_CPU_CORES     the cores cpu_bench reports (default 16)
  FAKE_INTEROP_MS    the interop check's copy + upload (default 0.640); FAKE_NO_EGL=1 skips it (77)
  FAKE_TORCH_SAMPLES the PyTorch hash grid compiled (default 1.2e8; eager a third of it);
                     FAKE_TORCH_LOG2 its table size; FAKE_NO_TORCH=1 says SKIPPED as without PyTorch
  FAKE_TCNN_SAMPLES  tiny-cuda-nn at batch 2^18 (default 2.9e8), after 2^21's 9e8; then a 30 s pause
  FAKE_NCU_KERNELS   the kernels Nsight Compute (ncu) reports, each with its Duration (default 24), exit 0
"""
import glob
import os
import shutil
import stat
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = sys.executable  # the interpreter itself (a pyenv shim would put its own bin first in PATH)

NVIDIA_SMI = """#!/bin/sh
[ "$1" = -L ] && { echo "GPU 0: ${FAKE_GPU_NAME:-Fake GPU}"; exit 0; }
echo "${FAKE_GPU_NAME:-Fake GPU}, 81559 MiB, 999.0"
"""
CUDA_TESTS = """#!/bin/sh
[ "${FAKE_HANG:-}" = redraw_cuda_tests ] && { echo "hanging"; sleep 20; }
echo "[doctest] test cases: 30 | 30 passed | 0 failed | 0 skipped"
"""
TESTS = """#!/bin/sh
[ "${FAKE_HANG:-}" = redraw_tests ] && { echo "hanging"; sleep 20; }
echo "[doctest] test cases: 4 | 4 passed | 0 failed | 0 skipped"
"""
# redraw train prints train's summary: 300 steps at --max-side 1000, FAKE_FULL_STEPS at any other size;
# with --out it saves a model.redraw holding its size and grid (finest at the size and a 2^19 table, or
# what --set gives them: FAKE_IGNORE_SET=1 ignores --set), which `redraw info --json` prints.
REDRAW = """#!/bin/sh
if [ "$1" = info ] && [ "$2" = --json ] && [ -f "$3" ]; then
  read -r side finest log2 <"$3"
  echo "{\\"config\\": {\\"model\\": {\\"encoding\\": {\\"otype\\": \\"HashGrid\\", \\"n_levels\\": 16," \\
    "\\"n_features_per_level\\": 2, \\"log2_hashmap_size\\": $log2, \\"base_resolution\\": 16," \\
    "\\"finest_resolution\\": $finest, \\"per_level_scale\\": 1.5}}}, \\"image_width\\": $side, \\"image_height\\": $side}"
  exit 0
fi
[ "$1" = train ] || { echo "redraw $1 (fake)"; exit 0; }
steps=${FAKE_FULL_STEPS:-270} side=10000 out="" finest="" log2=""
while [ $# -gt 0 ]; do
  case "$1" in
    --max-side) [ "$2" = 1000 ] && steps=300 side=1000 ;;
    --out) out="$2" ;;
    --set) [ "${FAKE_IGNORE_SET:-}" = 1 ] || case "$2" in
             model.encoding.finest_resolution=*) finest="${2#*=}" ;;
             model.encoding.log2_hashmap_size=*) log2="${2#*=}" ;;
           esac ;;
  esac
  shift
done
[ -n "$out" ] && mkdir -p "$out" && echo "$side ${finest:-$side} ${log2:-19}" >"$out/model.redraw"
echo "stopped: $steps steps, PSNR 30.00 dB, 30.0s -> final.png"
echo "metrics rows: 30 sampled, 0.30 s, 1.0% of the training time"
"""
DECODE_BENCH = """#!/bin/sh
[ "$1" = make ] && : >"$3"
"""
# cuda_bench: its JSON, a row per --grids x --backwards pair (rewritten after each row, as the real
# one), each naming its grid as the engine resolves instant's at 512x512
# (tests/engine/core/test_hash_grid_summary.cpp).
CUDA_BENCH = """#!{py}
import json, os, sys
a = sys.argv[1:]
opt = lambda k, d: a[a.index(k) + 1] if k in a else d
grids = {{"image": {{"sizing": "image", "levels": 16, "dense_levels": 15, "features_per_level": 2,
                   "log2_hashmap_size": 18, "base_resolution": 16, "finest_resolution": 512,
                   "per_level_scale": 2 ** (5 / 15), "entries": 710639}},
         "preset": {{"sizing": "preset", "levels": 16, "dense_levels": 8, "features_per_level": 2,
                    "log2_hashmap_size": 17, "base_resolution": 16, "finest_resolution": 7006,
                    "per_level_scale": 1.5, "entries": 1184057}}}}
rows = []
for g in opt("--grids", "image").split(","):
    for b in opt("--backwards", os.environ.get("REDRAW_HASH_GRID_BACKWARD", "shared-dense")).split(","):
        default = b == "shared-dense"
        s = float(os.environ.get("FAKE_SAMPLES" if default else "FAKE_AB_SAMPLES", "3.5e8" if default else "3.2e8"))
        print(f"grid ({{g}}), {{b}} backward\\ninstant     512   262144 samples/s {{s}}", flush=True)
        rows.append({{"impl": "redraw-cuda", "preset": "instant", "size": 512, "batch": 262144,
                     "precision": opt("--precision", "auto"), "grid": grids[g], "hash_grid_backward": b,
                     "steps_per_s": s / 262144, "samples_per_s": s}})
        with open(opt("--json", os.devnull), "w") as f:
            json.dump({{"throughput": rows, "accuracy": []}}, f)
        if os.environ.get("FAKE_AB_CRASH") == "1":
            sys.exit(134)
if "--accuracy" in a:
    unreached = os.environ.get("FAKE_UNREACHED", "").split(",")
    acc = [{{"preset": p, "steps": 400, "train_seconds": 0.2 if p not in unreached else 10.0,
            "pixel_accuracy": 0.995 if p not in unreached else 0.6694, "reached": p not in unreached}}
           for p in opt("--presets", "").split(",")]
    for r in acc:
        print(f"  {{r['preset']}} {{'reached' if r['reached'] else 'NOT reached'}}", flush=True)
    with open(opt("--json", os.devnull), "w") as f:
        json.dump({{"throughput": rows, "accuracy": acc}}, f)
"""
CPU_BENCH = """#!/bin/sh
threads=1 presets=""
while [ $# -gt 0 ]; do
  case "$1" in --threads) threads="$2" ;; --preset) presets="$presets $2" ;; esac
  shift
done
rate=$((10 * threads))
[ "$threads" = 16 ] && rate=$((10 * ${FAKE_CPU_X16:-12}))
echo "CPU backend: ${FAKE_CPU_CORES:-16} CPU cores ($threads threads), OpenBLAS (fake); training size 256x256"
echo "| preset  | params  | steps/s | samples/s  |"
echo "|---------|---------|---------|------------|"
for p in $presets; do echo "| $p | 1000 | $rate.00 | 100 |"; done
"""
PSNR_BENCH = """#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --json ] && echo '[]' >"$2"; shift; done
"""
INTEROP = """#!/bin/sh
[ "${FAKE_NO_EGL:-}" = 1 ] && { echo "SKIPPED: no EGL device"; exit 77; }
while [ $# -gt 0 ]; do [ "$1" = --json ] && json="$2"; shift; done
ms="${FAKE_INTEROP_MS:-0.640}"
echo "interop_check: 1024x1024, 60 frames: render 10.400 ms, copy + upload $ms ms, total 11.000 ms per frame (median)"
printf '{"interop": {"ok": true, "gl_renderer": "fake", "size": 1024, "frames": 60, "render_ms": 10.4, "copy_upload_ms": %s, "total_ms": 11.0, "max_level_diff": 0}}\\n' "$ms" >"$json"
echo "interop_check: OK"
"""
SANITIZER = """#!/bin/sh
echo "========= COMPUTE-SANITIZER $*"
shift 6
"$@" 2>&1 | sed 's/^/  /'
echo "========= ERROR SUMMARY: 0 errors"
"""
# python3: bench/torch_reference.py is the fake PyTorch hash grid, each row naming the grid the
# --grid-from JSON names (FAKE_TORCH_LOG2 replacing its table size), else none; anything else goes
# to the real interpreter.
PYTHON3 = """#!/bin/sh
case "$1" in */torch_reference.py) ;; *) exec "{py}" "$@" ;; esac
if [ "${{FAKE_NO_TORCH:-}}" = 1 ]; then
  echo "torch_reference: SKIPPED: no CUDA device: PyTorch is not installed"
  exit 0
fi
echo "torch_reference $*"
exec "{py}" "{peer}" "$@"
"""
TORCH_PEER = """import json, os, sys
a = sys.argv[2:]
opt = lambda k, d: a[a.index(k) + 1] if k in a else d
grid = None
if "--grid-from" in a:
    grid = next(r["grid"] for r in json.load(open(opt("--grid-from", "")))["throughput"] if r.get("grid"))
    if os.environ.get("FAKE_TORCH_LOG2"):
        grid = dict(grid, log2_hashmap_size=int(os.environ["FAKE_TORCH_LOG2"]))
s = float(os.environ.get("FAKE_TORCH_SAMPLES", "1.2e8"))
print(f"instant     512  compile   262144 samples/s {s}")
rows = [{"impl": "torch-" + m, "preset": "instant", "size": 512, "precision": opt("--precision", "fp32"),
         "samples_per_s": s / (3 if m == "eager" else 1), "grid": grid} for m in ("eager", "compile")]
json.dump(rows, open(opt("--json", os.devnull), "w"))
"""
# tiny-cuda-nn's image benchmark as bench_ours prints it: batch 2^21 (iterations 25 apart) at 9e8,
# then 2^18 (100 apart) at FAKE_TCNN_SAMPLES, then a long pause (the step must end it).
TCNN = """#!/bin/sh
[ -f "$2" ] && grep -q HashGrid "$2" || { echo "no config"; exit 1; }
for i in 0 25 50 75 100 125 150 175 200 225; do echo "Iteration#$i: loss=0.1 time=1000[us] thp=9e8/s"; done
echo "Finished training benchmark. Mean throughput is 9e+08/s. Waiting 10 seconds for GPU to cool down."
echo "Iteration#0: time=1000[us] thp=3e9/s"
echo "Finished inference benchmark. Mean throughput is 3e+09/s. Waiting 10 seconds for GPU to cool down."
for i in 0 100 200 300 400 500 600 700 800 900; do echo "Iteration#$i: loss=0.1 time=1000[us] thp=1e8/s"; done
echo "Finished training benchmark. Mean throughput is ${FAKE_TCNN_SAMPLES:-2.9e8}/s." \
  "Waiting 10 seconds for GPU to cool down."
sleep 30
"""

# Nsight Compute: FAKE_NCU_KERNELS kernels, each as ncu prints one (a header line, its sections' rows).
NCU = """#!/bin/sh
i=0
while [ "$i" -lt "${FAKE_NCU_KERNELS:-24}" ]; do
  echo "  hash_grid_encode_kernel(const float *, int) (1024, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0"
  echo "    Section: GPU Speed Of Light Throughput"
  echo "    Duration                         usecond        42.10"
  echo "    Memory Throughput                      %        61.30"
  i=$((i + 1))
done
"""


def write_tool(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class FakeDevice:
    """The fake machine under FOLDER: FOLDER/pack (the pack, unpacked), FOLDER/path (tools that go
    first on PATH), FOLDER/cublas (an empty cuBLAS folder) and FOLDER/tcnn_image_bench (copied into
    the pack by with_tcnn)."""

    def __init__(self, folder):
        self.folder = folder
        self.pack = os.path.join(folder, "pack")
        self.path = os.path.join(folder, "path")
        for d in (os.path.join(self.pack, "bin"), os.path.join(self.pack, "lib"), os.path.join(self.pack, "samples"),
                  self.path, os.path.join(folder, "cublas")):
            os.makedirs(d, exist_ok=True)
        for png in glob.glob(os.path.join(ROOT, "tests", "data", "*.png")):
            shutil.copy(png, os.path.join(self.pack, "samples"))
        with open(os.path.join(self.pack, "REVISION"), "w") as f:
            f.write("fake\n")
        peer = os.path.join(folder, "torch_peer.py")
        with open(peer, "w") as f:
            f.write(TORCH_PEER)
        bins = {"redraw_cuda_tests": CUDA_TESTS, "redraw_tests": TESTS, "redraw": REDRAW, "decode_bench": DECODE_BENCH,
                "cuda_bench": CUDA_BENCH.format(py=PY), "cpu_bench": CPU_BENCH, "psnr_bench": PSNR_BENCH,
                "redraw_interop_check": INTEROP}
        for name, text in bins.items():
            write_tool(os.path.join(self.pack, "bin", name), text)
        write_tool(os.path.join(self.path, "nvidia-smi"), NVIDIA_SMI)
        write_tool(os.path.join(self.path, "compute-sanitizer"), SANITIZER)
        write_tool(os.path.join(self.path, "ncu"), NCU)
        write_tool(os.path.join(self.path, "python3"), PYTHON3.format(py=PY, peer=peer))
        self.tcnn = os.path.join(folder, "tcnn_image_bench")
        write_tool(self.tcnn, TCNN)

    def with_tcnn(self, packed):
        """Puts tiny-cuda-nn's benchmark into the pack's bin/ (PACKED) or takes it out."""
        there = os.path.join(self.pack, "bin", "tcnn_image_bench")
        if packed:
            shutil.copy2(self.tcnn, there)
        elif os.path.exists(there):
            os.remove(there)

    def environ(self, out, **fake):
        """The variables of a run on this machine writing into OUT, with FAKE (FAKE_GPU_NAME=..., ...)."""
        env = {"REDRAW_GPU_PACK": self.pack, "REDRAW_CUBLAS_DIR": os.path.join(self.folder, "cublas"), "OUT": out,
               "PATH": self.path + os.pathsep + os.environ.get("PATH", "")}
        env.update({k: str(v) for k, v in fake.items()})
        return env
