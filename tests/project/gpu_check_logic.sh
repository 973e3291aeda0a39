#!/usr/bin/env bash
# scripts/gpu_check.py's bookkeeping and floors, on a machine without a GPU: a fake pack (stub
# binaries), a fake nvidia-smi, compute-sanitizer, PyTorch peer (python3 bench/torch_reference.py)
# and tiny-cuda-nn benchmark stand in for the device. Checks that every part's timeouts add up to
# at most 480 s, quick's included (`list`), that `run` refuses parts that add up to more,
# that a finished part's JSON says ok with its steps, that a part killed mid-step (SIGKILL, as at the
# device call's limit, and SIGTERM) still leaves its JSON saying "incomplete" with the step it
# stopped in and what the steps before it measured, that quick returns at most 8 files, skips
# tiny-cuda-nn with a reason when the pack has none and stops it once it has its figure, that a
# figure under its floor fails its part with the figure, that a part says ok only when every check
# was measured (a peer, tool or device missing, or a floor of another card, ends it incomplete,
# naming them, exit 3), that pack replaces only a folder a pack made, that every command answers
# --help, that the repository holds no recipe for tiny-cuda-nn, and that the report reads it all.
#   gpu_check_logic.sh SOURCE_DIR
set -uo pipefail
src="$1"
. "$(dirname "$0")/../lib.sh"
tmp="$work"
export TMPDIR="$tmp" # the parts' scratch folders, which a part killed by SIGKILL leaves behind
jq_py() { # jq_py FILE EXPR: exit 0 when the Python expression on j (the JSON) is true
  python3 -c "import json,sys; j=json.load(open('$1')); sys.exit(0 if ($2) else 1)"
}
check_of() { # check_of NAME: the Python expression for quick's check NAME
  echo "next(c for c in j['checks'] if c['check'] == '$1')"
}
cd "$src"
gpu_check() { python3 scripts/gpu_check.py "$@"; }

# -- list: every part within one call --------------------------------------------------------
list="$(gpu_check list)"
echo "$list" | grep -E '^[a-z-]+: '
check_run "list names all 13 parts" test "$(echo "$list" | grep -cE '^[a-z-]+: [0-9]+ s of timeouts')" -eq 13
check_run "  quick first" bash -c "echo \"\$1\" | head -1 | grep -q '^quick: '" _ "$list"
check_run "no part's timeouts add up to more than 480 s" \
  bash -c "! echo \"\$1\" | awk '/ s of timeouts/ { if (\$2 + 0 > 480) bad = 1 } END { exit !bad }'" _ "$list"
check_run "quick's timeouts add up to at most 480 s" \
  bash -c "echo \"\$1\" | awk '/^quick: / { ok = (\$2 + 0 <= 480) } END { exit !ok }'" _ "$list"
check_run "the sanitize part runs memcheck, racecheck and synccheck" \
  bash -c "python3 scripts/gpu_check.py list sanitize | grep -c -E '^  (memcheck|racecheck|synccheck) ' | grep -qx 3"
check_run "quick runs the tests, two sanitizers, instant, interop, PyTorch, tiny-cuda-nn and fullres" \
  bash -c "python3 scripts/gpu_check.py list quick | grep -cE '^  (redraw_cuda_tests|memcheck|racecheck|cuda_bench instant|redraw_interop_check|PyTorch|tiny-cuda-nn|full resolution)' | grep -qx 8"
check_run "quick gives PyTorch (cold torch.compile) at least 90 s and fullres at least 100 s" \
  bash -c "python3 scripts/gpu_check.py list quick | awk '/^  PyTorch/ { t = \$(NF-1) } /^  full resolution/ { f = \$(NF-1) } END { exit !(t >= 90 && f >= 100) }'"
check_run "the shell wrapper runs the same program" bash -c "bash scripts/gpu_check.sh list quick | grep -q '^quick: '"

# -- pack --tcnn-bin: tiny-cuda-nn's benchmark travels in bin/ (a fake build of scripts) ---------
mkdir -p "$tmp/fake-build/bin"
for b in redraw libredraw_cuda.so redraw_tests redraw_cuda_tests cuda_bench cpu_bench psnr_bench redraw_interop_check \
  decode_bench bench_image_ours; do printf '#!/bin/sh\necho %s\n' "$b" >"$tmp/fake-build/bin/$b"; done
chmod +x "$tmp/fake-build/bin/"*
gpu_check pack-from-build "$tmp/fake-build" "$tmp/fake-pack" --tcnn-bin "$tmp/fake-build/bin/bench_image_ours" \
  >"$tmp/fake-pack.out" 2>&1
check_run "pack-from-build --tcnn-bin packs every binary" test $? -eq 0
check_run "  tiny-cuda-nn's under bin/tcnn_image_bench" grep -qx './bin/tcnn_image_bench' "$tmp/fake-pack/MANIFEST"
gpu_check unpack "$tmp/fake-pack"
check_run "  and it unpacks" bash -c "'$tmp/fake-pack/bin/tcnn_image_bench' | grep -qx bench_image_ours"

# -- pack replaces only a folder a pack made, and every command answers --help doing nothing else ----
mkdir -p "$tmp/not-a-pack" "$tmp/empty"
echo keep >"$tmp/not-a-pack/keep.txt"
gpu_check pack-from-build "$tmp/fake-build" "$tmp/not-a-pack" >"$tmp/np.out" 2>&1
check_run "pack-from-build into a non-empty folder that no pack made is refused (exit 2)" test $? -eq 2
check_run "  naming it, and leaves it whole" \
  bash -c "grep -q 'not-a-pack is not empty and is no pack folder' '$tmp/np.out' && test -f '$tmp/not-a-pack/keep.txt'"
gpu_check pack-from-build "$tmp/fake-build" "$tmp/fake-build" >"$tmp/np2.out" 2>&1
check_run "pack-from-build into its own build folder is refused (exit 2), the build left whole" \
  bash -c "test $? -eq 2 && test -x '$tmp/fake-build/bin/redraw'"
gpu_check pack-from-build "$tmp/fake-build" "$tmp/empty" >"$tmp/np3.out" 2>&1
check_run "an empty folder takes a pack" bash -c "test $? -eq 0 && test -f '$tmp/empty/GPU_PACK'"
gpu_check pack-from-build "$tmp/fake-build" "$tmp/fake-pack" >"$tmp/np4.out" 2>&1
check_run "an earlier pack (unpacked, too) is replaced whole" \
  bash -c "test $? -eq 0 && test -f '$tmp/fake-pack/MANIFEST' && test ! -e '$tmp/fake-pack/bin'"
# `pack` in a stand-in checkout (its own copy of the program): a cmake and an nvcc that record a
# build starting, a .git and a build folder that must survive.
checkout="$tmp/checkout"
mkdir -p "$checkout/scripts" "$checkout/.git" "$checkout/build-gpu/bin" "$tmp/build-tools"
cp scripts/gpu_check.py "$checkout/scripts/"
echo "ref: refs/heads/main" >"$checkout/.git/HEAD"
echo build >"$checkout/build-gpu/bin/redraw"
for tool in cmake nvcc; do printf '#!/bin/sh\necho "$0 $*" >>"%s/built"\nexit 1\n' "$tmp" >"$tmp/build-tools/$tool"; done
chmod +x "$tmp/build-tools/"*
in_checkout() { PATH="$tmp/build-tools:$PATH" python3 "$checkout/scripts/gpu_check.py" "$@"; }
for dir in . build-gpu .git; do
  in_checkout pack "$dir" >"$tmp/pack-here.out" 2>&1
  check_run "pack $dir is refused (exit 2)" test $? -eq 2
  check_run "  naming $dir" grep -q "^gpu_check pack: $dir is not empty and is no pack folder" "$tmp/pack-here.out"
done
check_run "  the checkout, its .git and its build are whole" \
  bash -c "test -f '$checkout/.git/HEAD' && test -f '$checkout/build-gpu/bin/redraw' && test -f '$checkout/scripts/gpu_check.py'"
for cmd in pack pack-from-build unpack run list report; do
  for flag in -h --help; do
    OUT="$tmp/help-results" in_checkout "$cmd" "$flag" >"$tmp/help.out" 2>&1
    check_run "$cmd $flag prints its usage and exits 0" \
      bash -c "test $? -eq 0 && grep -q '^usage: scripts/gpu_check.py $cmd' '$tmp/help.out'"
  done
done
in_checkout --help >"$tmp/help.out" 2>&1
check_run "--help prints the whole help and exits 0" bash -c "test $? -eq 0 && grep -q '^Parts: quick' '$tmp/help.out'"
check_run "  and no --help started a build, ran a part or unpacked anything" \
  bash -c "test ! -e '$tmp/built' && test ! -e '$tmp/help-results' && test ! -e '$checkout/.gpu-pack'"
rm "$tmp/fake-build/bin/cuda_bench"
gpu_check pack-from-build "$tmp/fake-build" "$tmp/fake-pack2" >"$tmp/fake-pack2.out" 2>&1
check_run "a build without cuda_bench makes an incomplete pack (exit 1)" test $? -eq 1
check_run "  naming it" grep -q "cuda_bench was not built" "$tmp/fake-pack2.out"

# -- a fake device ---------------------------------------------------------------------------
pack="$tmp/pack"
mkdir -p "$pack/bin" "$pack/lib" "$pack/samples" "$tmp/path" "$tmp/cublas"
cp tests/data/*.png "$pack/samples/"
echo fake >"$pack/REVISION"
# FAKE_GPU_NAME: the card's name (an H100's floors apply only on a card so named).
cat >"$tmp/path/nvidia-smi" <<'EOF'
#!/bin/sh
[ "$1" = -L ] && { echo "GPU 0: ${FAKE_GPU_NAME:-Fake GPU}"; exit 0; }
echo "${FAKE_GPU_NAME:-Fake GPU}, 81559 MiB, 999.0"
EOF
# Test binaries: a doctest summary; FAKE_HANG=NAME makes that one hang (killed by the test).
cat >"$pack/bin/redraw_cuda_tests" <<'EOF'
#!/bin/sh
[ "${FAKE_HANG:-}" = redraw_cuda_tests ] && { echo "hanging"; sleep 20; }
echo "[doctest] test cases: 30 | 30 passed | 0 failed | 0 skipped"
EOF
cat >"$pack/bin/redraw_tests" <<'EOF'
#!/bin/sh
[ "${FAKE_HANG:-}" = redraw_tests ] && { echo "hanging"; sleep 20; }
echo "[doctest] test cases: 4 | 4 passed | 0 failed | 0 skipped"
EOF
# redraw train prints train's summary: 300 steps at --max-side 1000, FAKE_FULL_STEPS (default 270)
# at any other size, in the 30 s of the fullres part's runs.
cat >"$pack/bin/redraw" <<'EOF'
#!/bin/sh
[ "$1" = train ] || { echo "redraw $1 (fake)"; exit 0; }
steps=${FAKE_FULL_STEPS:-270}
while [ $# -gt 0 ]; do [ "$1" = --max-side ] && [ "$2" = 1000 ] && steps=300; shift; done
echo "stopped: $steps steps, PSNR 30.00 dB, 30.0s -> final.png"
echo "metrics rows: 30 sampled, 0.30 s, 1.0% of the training time"
EOF
cat >"$pack/bin/decode_bench" <<'EOF'
#!/bin/sh
[ "$1" = make ] && : >"$3"
EOF
# cuda_bench: its JSON, a row per --grids x --backwards pair (as the real one, rewritten after each
# row), each naming its grid as the engine resolves instant's at 512x512 (tests/engine/
# test_hash_grid_summary.cpp); the default backward at FAKE_SAMPLES samples/s (default 3.5e8), the
# shared-dense one at FAKE_AB_SAMPLES (default 3.2e8); FAKE_AB_CRASH=1 dies after the first row.
real_python="$(python3 -c 'import sys; print(sys.executable)')" # the interpreter itself (a pyenv shim would put its own bin first in PATH)
cat >"$pack/bin/cuda_bench" <<EOF
#!$real_python
import json, os, sys
a = sys.argv[1:]
opt = lambda k, d: a[a.index(k) + 1] if k in a else d
grids = {"image": {"sizing": "image", "levels": 16, "dense_levels": 15, "features_per_level": 2, "log2_hashmap_size": 18,
                   "base_resolution": 16, "finest_resolution": 512, "per_level_scale": 2 ** (5 / 15), "entries": 710639},
         "preset": {"sizing": "preset", "levels": 16, "dense_levels": 8, "features_per_level": 2, "log2_hashmap_size": 17,
                    "base_resolution": 16, "finest_resolution": 7006, "per_level_scale": 1.5, "entries": 1184057}}
rows = []
for g in opt("--grids", "image").split(","):
    for b in opt("--backwards", os.environ.get("REDRAW_HASH_GRID_BACKWARD", "per-sample")).split(","):
        s = float(os.environ.get("FAKE_SAMPLES" if b == "per-sample" else "FAKE_AB_SAMPLES", "3.5e8" if b == "per-sample" else "3.2e8"))
        print(f"grid ({g}), {b} backward\ninstant     512   262144 samples/s {s}", flush=True)
        rows.append({"impl": "redraw-cuda", "preset": "instant", "size": 512, "batch": 262144,
                     "precision": opt("--precision", "auto"), "grid": grids[g], "hash_grid_backward": b,
                     "steps_per_s": s / 262144, "samples_per_s": s})
        with open(opt("--json", os.devnull), "w") as f:
            json.dump({"throughput": rows, "accuracy": []}, f)
        if os.environ.get("FAKE_AB_CRASH") == "1":
            sys.exit(134)
EOF
# cpu_bench: 10 steps/s per thread, and FAKE_CPU_X16 (default 12) times one thread's at 16;
# FAKE_CPU_CORES (default 16) in its first line.
cat >"$pack/bin/cpu_bench" <<'EOF'
#!/bin/sh
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
EOF
cat >"$pack/bin/psnr_bench" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --json ] && echo '[]' >"$2"; shift; done
EOF
# The interop check: FAKE_INTEROP_MS for copy + upload (default 0.640); FAKE_NO_EGL=1 skips it as
# the real one does without an EGL device (exit 77).
cat >"$pack/bin/redraw_interop_check" <<'EOF'
#!/bin/sh
[ "${FAKE_NO_EGL:-}" = 1 ] && { echo "SKIPPED: no EGL device"; exit 77; }
while [ $# -gt 0 ]; do [ "$1" = --json ] && json="$2"; shift; done
ms="${FAKE_INTEROP_MS:-0.640}"
echo "interop_check: 1024x1024, 60 frames: render 10.400 ms, copy + upload $ms ms, total 11.000 ms per frame (median)"
printf '{"interop": {"ok": true, "gl_renderer": "fake", "size": 1024, "frames": 60, "render_ms": 10.4, "copy_upload_ms": %s, "total_ms": 11.0, "max_level_diff": 0}}\n' "$ms" >"$json"
echo "interop_check: OK"
EOF
cat >"$tmp/path/compute-sanitizer" <<'EOF'
#!/bin/sh
echo "========= COMPUTE-SANITIZER $*"
shift 6
"$@" 2>&1 | sed 's/^/  /'
echo "========= ERROR SUMMARY: 0 errors"
EOF
# python3 bench/torch_reference.py: the PyTorch hash grid at FAKE_TORCH_SAMPLES (default 1.2e8,
# compiled; eager a third of it), each row naming the grid: the one --grid-from names, with
# FAKE_TORCH_LOG2 (when set) as its table size, else none; FAKE_NO_TORCH=1 says SKIPPED as the real
# one does without PyTorch. Everything else goes to the real python3.
cat >"$tmp/path/python3" <<EOF
#!/bin/sh
case "\$1" in */torch_reference.py) ;; *) exec "$real_python" "\$@" ;; esac
[ "\${FAKE_NO_TORCH:-}" = 1 ] && { echo "torch_reference: SKIPPED: no CUDA device: PyTorch is not installed"; exit 0; }
echo "torch_reference \$*"
exec "$real_python" - "\$@" <<'PY'
import json, os, sys
a = sys.argv[1:]
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
PY
EOF
# tiny-cuda-nn's image benchmark as bench_ours prints it: batch 2^21 (iterations 25 apart) at
# 9e8, then 2^18 (100 apart) at FAKE_TCNN_SAMPLES (default 2.9e8), then a long pause.
cat >"$tmp/tcnn_image_bench" <<'EOF'
#!/bin/sh
[ -f "$2" ] && grep -q HashGrid "$2" || { echo "no config"; exit 1; }
for i in 0 25 50 75 100 125 150 175 200 225; do echo "Iteration#$i: loss=0.1 time=1000[µs] thp=9e8/s"; done
echo "Finished training benchmark. Mean throughput is 9e+08/s. Waiting 10 seconds for GPU to cool down."
echo "Iteration#0: time=1000[µs] thp=3e9/s"
echo "Finished inference benchmark. Mean throughput is 3e+09/s. Waiting 10 seconds for GPU to cool down."
for i in 0 100 200 300 400 500 600 700 800 900; do echo "Iteration#$i: loss=0.1 time=1000[µs] thp=1e8/s"; done
echo "Finished training benchmark. Mean throughput is ${FAKE_TCNN_SAMPLES:-2.9e8}/s. Waiting 10 seconds for GPU to cool down."
sleep 30
EOF
chmod +x "$tmp/path/"* "$pack/bin/"* "$tmp/tcnn_image_bench"
export REDRAW_GPU_PACK="$pack" REDRAW_CUBLAS_DIR="$tmp/cublas" PATH="$tmp/path:$PATH"

# -- a part that finishes --------------------------------------------------------------------
OUT="$tmp/r1" gpu_check run tests >"$tmp/r1.out" 2>&1
check_run "a finished tests part exits 0" test $? -eq 0
check_run "its JSON says ok with 5 steps finished" \
  jq_py "$tmp/r1/tests.json" "j['status'] == 'ok' and len(j['steps_finished']) == 5 and len(j['suites']) == 2"
OUT="$tmp/r1" gpu_check run sanitize >"$tmp/r1s.out" 2>&1
check_run "the sanitize part's JSON holds all three tools, clean" \
  jq_py "$tmp/r1/sanitize.json" "j['status'] == 'ok' and sorted(j['tools']) == ['memcheck', 'racecheck', 'synccheck'] and all(t['errors'] == 0 and t['cases'] == 30 for t in j['tools'].values())"

# -- quick: everything in one call ------------------------------------------------------------
OUT="$tmp/q1" gpu_check run quick >"$tmp/q1.out" 2>&1
rc=$?
cat "$tmp/q1.out"
check_run "quick without tiny-cuda-nn, on a card other than an H100, exits 3 (incomplete)" test $rc -eq 3
check_run "  its JSON says incomplete with every check" \
  jq_py "$tmp/q1/quick.json" "j['status'] == 'incomplete' and [c['check'] for c in j['checks']] == ['tests', 'memcheck', 'racecheck', 'instant', 'backward A/B', 'interop', 'PyTorch', 'tiny-cuda-nn', 'fullres']"
check_run "  naming what was not measured: tiny-cuda-nn and the H100 floor" \
  jq_py "$tmp/q1/quick.json" "j['reason'].startswith('not measured: ') and 'tiny-cuda-nn (skipped' in j['reason'] and 'instant (reported' in j['reason'] and 'PyTorch' not in j['reason']"
check_run "  tiny-cuda-nn is skipped, with the reason" \
  jq_py "$tmp/q1/quick.json" "$(check_of tiny-cuda-nn)['status'] == 'skipped' and 'no tiny-cuda-nn binary' in $(check_of tiny-cuda-nn)['detail']"
check_run "  memcheck and racecheck ran the fused MLP and hash-grid cases only" \
  test "$(grep -cF -- '-tc=cuda sanitize: fused MLP*,cuda sanitize: hash grid*' "$tmp/q1/quick.log")" -eq 2
check_run "  on a card other than an H100 the samples/s floor is reported, not checked" \
  jq_py "$tmp/q1/quick.json" "$(check_of instant)['status'] == 'reported' and '3.50e8' in $(check_of instant)['detail']"
check_run "  ours against PyTorch's fastest: 2.92x" \
  jq_py "$tmp/q1/quick.json" "$(check_of PyTorch)['status'] == 'ok' and abs($(check_of PyTorch)['figure'] - 3.5 / 1.2) < 1e-9"
check_run "  at most 8 files come back" test "$(find "$tmp/q1" -type f | wc -l)" -le 8
check_run "  its reason names the floors quick leaves to another part (the CPU's 16 threads)" \
  jq_py "$tmp/q1/quick.json" "j['reason'].endswith('not part of quick: cpu_threads_instant, cpu_threads_fourier (run cpu-threads)')"
# -- like grids: every figure names its grid, the peers train ours, the A/B runs on both grids -------
check_run "  the samples/s judged is the default backward's on a user's grid (2^18, 15 dense levels)" \
  jq_py "$tmp/q1/quick.json" "$(check_of instant)['figure'] == 3.5e8 and [r for r in j['instant_cuda'] if r['hash_grid_kernels'] == 'default kernels'][0]['grid']['log2_hashmap_size'] == 18"
check_run "  the backward A/B has both backwards on both grids, with the shares" \
  jq_py "$tmp/q1/quick.json" "$(check_of 'backward A/B')['status'] == 'ok' and sorted((r['grid'], r['backward']) for r in j['backward_ab']) == [('image', 'per-sample'), ('image', 'shared-dense'), ('preset', 'per-sample'), ('preset', 'shared-dense')] and abs($(check_of 'backward A/B')['shares']['image'] - 3.2 / 3.5) < 1e-9 and '0.91x' in $(check_of 'backward A/B')['detail']"
check_run "  PyTorch was given cuda_bench's grid and judged on it" \
  bash -c "grep -q 'torch_reference .*--grid-from .*cuda-auto.json' '$tmp/q1/quick.log' && python3 -c \"import json,sys; j=json.load(open('$tmp/q1/quick.json')); sys.exit(0 if all(r['grid']['log2_hashmap_size'] == 18 and r['grid']['entries'] == 710639 for r in j['instant_torch']) else 1)\""
FAKE_TORCH_LOG2=19 OUT="$tmp/g1" gpu_check run quick >"$tmp/g1.out" 2>&1
check_run "a PyTorch figure on another grid gives no ratio: failed, naming both grids" \
  jq_py "$tmp/g1/quick.json" "j['status'] == 'failed' and $(check_of PyTorch)['status'] == 'failed' and 'unlike grids' in $(check_of PyTorch)['detail'] and 'log2_hashmap_size' in $(check_of PyTorch)['detail'] and 'figure' not in $(check_of PyTorch)"
FAKE_AB_CRASH=1 OUT="$tmp/g2" gpu_check run quick >"$tmp/g2.out" 2>&1
check_run "a shared-dense run that dies fails the A/B, naming the rows missing; instant's figure stands" \
  jq_py "$tmp/g2/quick.json" "$(check_of 'backward A/B')['status'] == 'failed' and 'shared-dense on the image grid' in $(check_of 'backward A/B')['detail'] and $(check_of instant)['figure'] == 3.5e8"
# With tiny-cuda-nn packed: its figure at 2^18 beside ours, and the benchmark ended once it had it.
cp "$tmp/tcnn_image_bench" "$pack/bin/"
start=$SECONDS
OUT="$tmp/q2" gpu_check run quick >"$tmp/q2.out" 2>&1
rc=$?
check_run "quick with tiny-cuda-nn, on a card other than an H100, exits 3 (incomplete)" test $rc -eq 3
check_run "  tiny-cuda-nn was given cuda_bench's grid: 16 levels, 2^18 rows, scale 32^(1/15)" \
  jq_py "$tmp/q2/quick.json" "j['tcnn']['config']['encoding']['log2_hashmap_size'] == 18 and j['tcnn']['config']['encoding']['n_levels'] == 16 and abs(j['tcnn']['config']['encoding']['per_level_scale'] - 2 ** (5 / 15)) < 1e-12"
check_run "  its batch 2^18 figure is the one compared (not 2^21's)" \
  jq_py "$tmp/q2/quick.json" "j['tcnn']['samples_per_s'] == 2.9e8 and j['tcnn']['runs'][0]['batch'] is None and $(check_of tiny-cuda-nn)['status'] == 'ok' and '2.90e8' in $(check_of tiny-cuda-nn)['detail'] and '3.50e8' in $(check_of tiny-cuda-nn)['detail']"
check_run "  and the benchmark was ended once it printed it (not after its 30 s pause)" test $((SECONDS - start)) -lt 25
FAKE_TCNN_SAMPLES=4.2e8 OUT="$tmp/q3" gpu_check run quick >"$tmp/q3.out" 2>&1
rc=$?
check_run "quick slower than tiny-cuda-nn fails (exit 1)" test $rc -eq 1
check_run "  naming both figures" \
  jq_py "$tmp/q3/quick.json" "j['status'] == 'failed' and 'tiny-cuda-nn' in j['reason'] and '4.20e8' in j['reason'] and '0.83x' in j['reason']"
h100="NVIDIA H100 80GB HBM3"
FAKE_GPU_NAME="$h100" OUT="$tmp/q5" gpu_check run quick >"$tmp/q5.out" 2>&1
rc=$?
check_run "quick on an H100 at 3.5e8 samples/s with every peer measured says ok (exit 0)" \
  bash -c "test $rc -eq 0 && python3 -c \"import json,sys; j=json.load(open('$tmp/q5/quick.json')); sys.exit(0 if j['status'] == 'ok' and all(c['status'] == 'ok' for c in j['checks']) else 1)\""
check_run "  and its ok names the CPU floors as not part of quick" \
  jq_py "$tmp/q5/quick.json" "'not part of quick: cpu_threads_instant, cpu_threads_fourier' in j['reason']"
FAKE_NO_TORCH=1 FAKE_GPU_NAME="$h100" OUT="$tmp/q6" gpu_check run quick >"$tmp/q6.out" 2>&1
rc=$?
check_run "  without PyTorch it is incomplete (exit 3), naming PyTorch only" \
  bash -c "test $rc -eq 3 && python3 -c \"import json,sys; r=json.load(open('$tmp/q6/quick.json'))['reason']; sys.exit(0 if r.startswith('not measured: PyTorch (skipped') and 'interop' not in r else 1)\""
FAKE_NO_EGL=1 FAKE_GPU_NAME="$h100" OUT="$tmp/q7" gpu_check run quick >"$tmp/q7.out" 2>&1
rc=$?
check_run "  without EGL it is incomplete (exit 3), naming interop only" \
  bash -c "test $rc -eq 3 && python3 -c \"import json,sys; r=json.load(open('$tmp/q7/quick.json'))['reason']; sys.exit(0 if r.startswith('not measured: interop (skipped') and 'PyTorch' not in r else 1)\""
rm "$pack/bin/tcnn_image_bench"
FAKE_GPU_NAME="$h100" OUT="$tmp/q8" gpu_check run quick >"$tmp/q8.out" 2>&1
check_run "  without tiny-cuda-nn it is incomplete, naming tiny-cuda-nn only" \
  jq_py "$tmp/q8/quick.json" "j['status'] == 'incomplete' and j['reason'].startswith('not measured: tiny-cuda-nn (skipped') and 'instant (' not in j['reason']"
FAKE_GPU_NAME="$h100" FAKE_SAMPLES=2.0e8 OUT="$tmp/q4" gpu_check run quick >"$tmp/q4.out" 2>&1
check_run "quick on an H100 under 3.0e8 samples/s fails with the figure (exit 1), unmeasured parts aside" \
  bash -c "test $? -eq 1 && python3 -c \"import json,sys; j=json.load(open('$tmp/q4/quick.json')); sys.exit(0 if j['status'] == 'failed' and '2.00e8' in j['reason'] and '3.00e8' in j['reason'] else 1)\""

# -- every part checks its own floor ----------------------------------------------------------
FAKE_GPU_NAME="NVIDIA H100 80GB HBM3" FAKE_SAMPLES=2.5e8 OUT="$tmp/f1" gpu_check run instant >"$tmp/f1.out" 2>&1
check_run "instant on an H100 at 2.5e8 samples/s fails with the figure" \
  jq_py "$tmp/f1/instant.json" "j['status'] == 'failed' and '2.50e8' in j['reason'] and '3.00e8' in j['reason']"
FAKE_SAMPLES=2.5e8 OUT="$tmp/f2" gpu_check run instant >"$tmp/f2.out" 2>&1
check_run "  on another card it reports the figure and ends incomplete (exit 3), not ok" \
  bash -c "test $? -eq 3 && python3 -c \"import json,sys; j=json.load(open('$tmp/f2/instant.json')); sys.exit(0 if j['status'] == 'incomplete' and '2.50e8' in j['reason'] and '0.83 of the H100 floor' in j['reason'] else 1)\""
FAKE_GPU_NAME="NVIDIA H100 80GB HBM3" OUT="$tmp/f2b" gpu_check run instant >"$tmp/f2b.out" 2>&1
check_run "  on an H100 at 3.5e8 it passes (exit 0)" \
  bash -c "test $? -eq 0 && grep -q '\"status\": \"ok\"' '$tmp/f2b/instant.json'"
FAKE_TORCH_SAMPLES=5e8 OUT="$tmp/f3" gpu_check run instant-torch >"$tmp/f3.out" 2>&1
check_run "instant-torch with PyTorch faster than ours fails with both figures" \
  jq_py "$tmp/f3/instant-torch.json" "j['status'] == 'failed' and '5.00e8' in j['reason'] and '3.50e8' in j['reason'] and '0.70x' in j['reason']"
OUT="$tmp/f4" gpu_check run instant-torch >"$tmp/f4.out" 2>&1
check_run "  and passes when ours is faster" jq_py "$tmp/f4/instant-torch.json" "j['status'] == 'ok'"
FAKE_INTEROP_MS=1.5 OUT="$tmp/f5" gpu_check run interop >"$tmp/f5.out" 2>&1
check_run "interop at 1.5 ms a frame fails with the figure" \
  jq_py "$tmp/f5/interop.json" "j['status'] == 'failed' and '1.500 ms' in j['reason'] and '1.000 ms' in j['reason']"
OUT="$tmp/f6" gpu_check run interop >"$tmp/f6.out" 2>&1
check_run "  and passes at 0.64 ms" jq_py "$tmp/f6/interop.json" "j['status'] == 'ok' and '0.640 ms' in j['reason']"

# -- the full-resolution floor: the bench's table and share in the JSON, the floor judged ----------
OUT="$tmp/r5" gpu_check run fullres >"$tmp/r5.out" 2>&1
check_run "a fullres part at 0.90 of the 1 MP rate says ok" \
  jq_py "$tmp/r5/fullres.json" "j['status'] == 'ok' and j['fullres']['share'] == 0.9 and len(j['fullres']['rows']) == 4"
check_run "  with both sizes in both rounds" \
  jq_py "$tmp/r5/fullres.json" "sorted((r['side'], r['round']) for r in j['fullres']['rows']) == [(1000, 1), (1000, 2), (10000, 1), (10000, 2)]"
FAKE_FULL_STEPS=200 OUT="$tmp/r6" gpu_check run fullres >"$tmp/r6.out" 2>&1
check_run "a fullres part at 0.67 fails, naming the floor" \
  jq_py "$tmp/r6/fullres.json" "j['status'] == 'failed' and '0.67' in j['reason'] and '0.80' in j['reason']"
check_run "  and the report prints its table" \
  bash -c "python3 bench/gpu_report.py '$tmp/r6' | grep -q '^| 10000 px | 2 | 6.7 |'"

# -- the CPU's threads: every preset at 1 to 16 threads, the floor for instant and fourier --------
OUT="$tmp/c1" gpu_check run cpu-threads >"$tmp/c1.out" 2>&1
check_run "cpu-threads at 12x from 1 to 16 threads says ok" \
  jq_py "$tmp/c1/cpu-threads.json" "j['status'] == 'ok' and [c['check'] for c in j['checks']] == ['instant', 'fourier'] and '12.00x' in j['reason']"
check_run "  with every preset at every count" \
  jq_py "$tmp/c1/cpu-threads.json" "sorted(j['cpu_threads']) == sorted(['instant', 'fourier', 'siren', 'classic', 'classic-sgd']) and all(sorted(v, key=int) == ['1', '2', '4', '8', '16'] for v in j['cpu_threads'].values())"
FAKE_CPU_X16=6 OUT="$tmp/c2" gpu_check run cpu-threads >"$tmp/c2.out" 2>&1
check_run "cpu-threads at 6x fails (exit 1)" test $? -eq 1
check_run "  naming the figure and the floor" \
  jq_py "$tmp/c2/cpu-threads.json" "j['status'] == 'failed' and '6.00x' in j['reason'] and '8.00x' in j['reason']"
check_run "  and the report prints its table" \
  bash -c "python3 bench/gpu_report.py '$tmp/c2' | grep -q '^| fourier | 10.00 | 20.00 | 40.00 | 80.00 | 60.00 | 6.00x |'"
FAKE_CPU_X16=6 FAKE_CPU_CORES=8 OUT="$tmp/c3" gpu_check run cpu-threads >"$tmp/c3.out" 2>&1
check_run "on 8 cores the floor is not measured: incomplete, with the reason" \
  jq_py "$tmp/c3/cpu-threads.json" "j['status'] == 'incomplete' and all(c['status'] == 'skipped' for c in j['checks']) and '8 CPU cores' in j['reason']"

# -- two parts in one call are refused -------------------------------------------------------
OUT="$tmp/r2" gpu_check run tests sanitize >"$tmp/r2.out" 2>&1
rc=$?
check_run "run tests sanitize (960 s of timeouts) is refused" test $rc -eq 2
check_run "  and says why" grep -q "run one part per call" "$tmp/r2.out"
check_run "  and runs nothing" test ! -e "$tmp/r2/tests.json"
OUT="$tmp/r2" gpu_check run quick accuracy >"$tmp/r2q.out" 2>&1
check_run "run quick accuracy (720 s) is refused too" test $? -eq 2

# -- a part killed mid-step ------------------------------------------------------------------
# interrupt_tests_part SIGNAL STEP DIR: the tests part into DIR with STEP hanging; once it hangs,
# SIGNAL goes to the part's whole process group.
interrupt_tests_part() {
  local signal="$1" step="$2" dir="$3" pid
  mkdir -p "$dir"
  FAKE_HANG="$step" OUT="$dir" setsid python3 scripts/gpu_check.py run tests >"$dir.out" 2>&1 &
  pid=$!
  # up to 60 s for the part to reach its hanging step (python3 starts slowly on a loaded machine)
  for _ in $(seq 300); do grep -q hanging "$dir/tests.log" 2>/dev/null && break; sleep 0.2; done
  kill -"$signal" -- -"$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}
# SIGKILL to the whole process group, as a device command's limit does: no handler can run.
interrupt_tests_part KILL redraw_tests "$tmp/r3"
check_run "a part killed by SIGKILL leaves its JSON" test -f "$tmp/r3/tests.json"
check_run "  saying incomplete, in the step it was in" \
  jq_py "$tmp/r3/tests.json" "j['status'] == 'incomplete' and 'redraw_tests' in j['reason']"
check_run "  with the step before it finished and measured" \
  jq_py "$tmp/r3/tests.json" "j['steps_finished'] == ['redraw_cuda_tests'] and j['suites'][0]['passed'] == 30"

# SIGTERM (the command's own timeout, Ctrl-C): the handler names the signal.
interrupt_tests_part TERM redraw_cuda_tests "$tmp/r4"
check_run "a part ended by SIGTERM says so in its JSON" \
  jq_py "$tmp/r4/tests.json" "j['status'] == 'incomplete' and 'SIGTERM' in j['reason'] and 'redraw_cuda_tests' in j['reason']"

# -- the report reads every call's folder ----------------------------------------------------
report="$(python3 bench/gpu_report.py "$tmp/r1" "$tmp/r3" 2>&1)"
rc=$?
echo "$report" | grep -E '^\| (tests|sanitize) '
check_run "the report shows the killed part as incomplete, with what it finished" \
  bash -c "grep -q '| tests | incomplete |.*finished: redraw_cuda_tests' <<<\"\$1\"" _ "$report"
check_run "  and exits 1 for it" test $rc -eq 1
report="$(gpu_check report "$tmp/q2" 2>&1)"
check_run "the report of quick shows its checks and tiny-cuda-nn beside instant" \
  bash -c "grep -q '^| quick | tiny-cuda-nn | ok |' <<<\"\$1\" && grep -q '^| tiny-cuda-nn .* | 2.9e+08 |' <<<\"\$1\"" _ "$report"
check_run "  each row with its grid; a ratio to PyTorch only on a like grid" \
  bash -c "grep -q '^| Redraw auto, default kernels | image: 16 levels (15 dense), 2^18, 710639 rows | 3.5e+08 | 2.9x' <<<\"\$1\" && grep -q '^| Redraw auto, default kernels, preset grid | preset: 16 levels (8 dense), 2^17, 1184057 rows | 3.5e+08 | unlike grids |' <<<\"\$1\"" _ "$report"
check_run "  and takes no folder of the development machine by default" \
  bash -c "! grep -n '/work/' bench/gpu_report.py scripts/gpu_check.py scripts/gpu_check.sh"
# -- bench/torch_reference.py resolves the grid as the engine does (no PyTorch needed) --------------
# The numbers are tests/engine/test_hash_grid_summary.cpp's, worked out by hand there.
check_run "torch_reference resolves instant at 512x512 as a user's run: 2^18, 15 dense levels, 710639 rows" \
  python3 -c "import sys; sys.path.insert(0, 'bench'); import torch_reference as t; g = t.resolve_grid(t.load_preset('instant'), 512, 512)[0]; sys.exit(0 if (g['log2_hashmap_size'], g['dense_levels'], g['finest_resolution'], g['entries']) == (18, 15, 512, 710639) else 1)"
check_run "  and takes a grid given whole (the preset's unsized one: 2^17, scale 1.5, 8 dense, 1184057 rows)" \
  python3 -c "import sys; sys.path.insert(0, 'bench'); import torch_reference as t; g = {'sizing': 'preset', 'levels': 16, 'dense_levels': 8, 'features_per_level': 2, 'log2_hashmap_size': 17, 'base_resolution': 16, 'finest_resolution': 7006, 'per_level_scale': 1.5, 'entries': 1184057}; q = t.use_grid(t.load_preset('instant'), g); sys.exit(0 if t.resolve_grid(q, 512, 512)[0] == g else 1)"
check_run "  and refuses one it cannot reproduce (exit 2)" \
  bash -c "python3 -c \"import sys; sys.path.insert(0, 'bench'); import torch_reference as t; t.use_grid(t.load_preset('instant'), {'sizing': 'image', 'levels': 16, 'dense_levels': 16, 'features_per_level': 2, 'log2_hashmap_size': 18, 'base_resolution': 16, 'finest_resolution': 512, 'per_level_scale': 2 ** (5 / 15), 'entries': 710639})\" >/dev/null; test \$? -eq 2"

# -- no recipe for another project's code: tiny-cuda-nn's benchmark is built by hand, elsewhere ----
# A tracked file that configures, patches or builds tiny-cuda-nn (its CMake switches, its benchmark
# target, a script named for it); this test itself spells the patterns and is left out.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  recipes="$(git -C "$src" ls-files -z | grep -zv '^tests/project/gpu_check_logic\.sh$' |
    xargs -0 grep -lIE -- '-DTCNN_|TCNN_BUILD_|--target bench_image_ours|build_tcnn' 2>/dev/null)"
  echo "files with a tiny-cuda-nn build recipe: ${recipes:-none}"
  check_run "no tracked file builds or patches tiny-cuda-nn" test -z "$recipes"
  check_run "  and no tracked file is its code or a binary of it" \
    bash -c "! git -C '$src' ls-files | grep -iE '(^|/)(tiny-cuda-nn|tcnn)[^/]*/|bench_image_ours|tcnn_image_bench\$'"
else
  skip "no git checkout at $src (the recipe check reads the tracked files)"
fi
finish gpu_check_logic
