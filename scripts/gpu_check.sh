#!/usr/bin/env bash
# Proves (or disproves) every GPU claim of Redraw in a few fixed commands on a bare GPU machine
# (CUDA driver, cuBLAS, cmake and PyTorch, but no package registry and no build dependencies).
#
#   scripts/gpu_check.sh pack [DIR]        here: builds for sm_90 without the GUI and packs the
#                                          binaries, the libraries they need and the test images
#                                          into DIR (default .gpu-pack, git-ignored), then prints
#                                          the device calls to make
#   scripts/gpu_check.sh run PART...       there: PART is tests, bench, torch, accuracy, interop,
#                                          sanitize, instant or all; each part ends in under 8 minutes
#   scripts/gpu_check.sh report [DIR...]   here: one table from the results of every call
#                                          (default: /work/.device/*/ and .gpu-results/)
#
# `run` writes PART.json (machine-readable, with "status": ok | failed | skipped and the reason)
# and PART.log into $OUT when set, else .gpu-results/. Library paths are set only for Redraw's own
# processes (PyTorch keeps its own). cuBLAS is found in the machine's toolkit or PyTorch's wheels.
# A part that finds no device writes "skipped" with the reason and exits 0; a part that fails
# says which check failed and the script exits 1. Environment: REDRAW_GPU_PACK (the pack folder),
# REDRAW_CUDA_ARCHS (the pack's architectures, default 90), REDRAW_GPU_BUILD (its build folder,
# default build-gpu), REDRAW_GPU_STEPS (bench steps, default 200).
set -uo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
pack="${REDRAW_GPU_PACK:-.gpu-pack}"
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"

usage() {
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# ---- pack (build machine) ------------------------------------------------------------------
pack_binaries=(redraw libredraw_cuda.so redraw_tests redraw_cuda_tests cuda_bench psnr_bench redraw_interop_check)

# Copies the binaries of BUILD_DIR/bin and their shared-library closure into DIR/pack.tar.xz
# (what travels to the GPU machine; `run` unpacks it there). Libraries the GPU machine provides
# itself stay out: glibc, the driver (libcuda, libnvidia-*, the EGL vendor library) and cuBLAS
# (its toolkit or PyTorch's wheel has the one matching its driver).
pack_from_build() {
  local build="$1" out="$2" dir
  dir="$(mktemp -d)"
  mkdir -p "$dir/bin" "$dir/lib" "$dir/samples"
  local b missing=0
  for b in "${pack_binaries[@]}"; do
    if [ -f "$build/bin/$b" ]; then cp "$build/bin/$b" "$dir/bin/"; else echo "gpu_check pack: $build/bin/$b was not built"; missing=1; fi
  done
  strip --strip-unneeded "$dir"/bin/* 2>/dev/null || true
  ldd "$dir"/bin/* 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
    while read -r name path; do
      case "$name" in
      libc.so* | libm.so* | libmvec.so* | libdl.so* | librt.so* | libpthread.so* | ld-linux* | libresolv.so*) ;;
      libcuda.so* | libcublas* | libnvidia* | libEGL_nvidia* | libcudart*) ;;
      *) cp -L "$path" "$dir/lib/" ;;
      esac
    done
  cp tests/data/*.png "$dir/samples/"
  git rev-parse HEAD >"$dir/REVISION" 2>/dev/null || echo unknown >"$dir/REVISION"
  rm -rf "$out"
  mkdir -p "$out"
  (cd "$dir" && find . -type f | sort >"$out/MANIFEST" && XZ_OPT="-6 -T2" tar -cJf "$out/pack.tar.xz" .) || missing=1
  cp "$dir/REVISION" "$out/"
  rm -rf "$dir"
  return $missing
}

# Unpacks DIR/pack.tar.xz into DIR once (on the GPU machine; its copy of the tree is writable).
unpack() {
  local dir="$1"
  [ -d "$dir/bin" ] && return 0
  [ -f "$dir/pack.tar.xz" ] || return 1
  tar -xJf "$dir/pack.tar.xz" -C "$dir"
}

cmd_pack() {
  local dir="${1:-$pack}"
  local archs="${REDRAW_CUDA_ARCHS:-90}"
  command -v nvcc >/dev/null || { echo "gpu_check pack: no nvcc (install the CUDA toolkit)"; exit 1; }
  bash scripts/install_deps.sh >/dev/null
  local build="${REDRAW_GPU_BUILD:-build-gpu}"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DREDRAW_GUI=OFF -DREDRAW_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="$archs" >"$build.log" 2>&1 || { tail -20 "$build.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" --target redraw redraw_cuda_module redraw_tests redraw_cuda_tests \
    cuda_bench psnr_bench redraw_interop_check >>"$build.log" 2>&1 || { grep -E "error" "$build.log" | head -20; exit 1; }
  pack_from_build "$build" "$dir" || exit 1
  local mib
  mib=$(du -sm "$dir" | cut -f1)
  echo "gpu_check pack: $dir is $mib MiB compressed (limit 60): $(grep -c . "$dir/MANIFEST") files"
  [ "$mib" -le 60 ] || { echo "gpu_check pack: the pack is over 60 MiB"; exit 1; }
  cat <<EOF

Device calls (the run tool, carry ["$dir"]), one per line, each under 10 minutes:
  bash scripts/gpu_check.sh run tests sanitize
  bash scripts/gpu_check.sh run bench accuracy interop
  bash scripts/gpu_check.sh run torch
  bash scripts/gpu_check.sh run instant
Then here:  bash scripts/gpu_check.sh report
EOF
}

# ---- run (GPU machine) ---------------------------------------------------------------------
results="${OUT:-$root/.gpu-results}"
cublas_dir=""
overall=0

find_cublas() {
  local d
  for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -e "$d/libcublas.so.13" ] && { cublas_dir="$d"; return 0; }
  done
  # PyTorch's CUDA 13 wheels put cuBLAS under nvidia/cu13/lib (older ones under nvidia/cublas/lib).
  d="$(python3 - <<'PY' 2>/dev/null
import glob, os, site
roots = site.getsitepackages() + [site.getusersitepackages()]
for r in roots:
    for pat in ("nvidia/cu13/lib", "nvidia/cublas/lib"):
        for d in glob.glob(os.path.join(r, pat)):
            if glob.glob(os.path.join(d, "libcublas.so.13*")):
                print(d); raise SystemExit
PY
)"
  [ -n "$d" ] && { cublas_dir="$d"; return 0; }
  return 1
}

# Redraw's own processes: the pack's libraries, cuBLAS, the packed test images.
rx() {
  env LD_LIBRARY_PATH="$root/$pack/lib${cublas_dir:+:$cublas_dir}" REDRAW_ASSETS="$root/assets" \
    REDRAW_SAMPLE_DIR="$root/$pack/samples" REDRAW_TEST_ASSET_DIR="$root/assets" "$@"
}

# write_status PART STATUS REASON [EXTRA_JSON_FILE]: PART.json with the status merged into EXTRA.
write_status() {
  python3 - "$results/$1.json" "$1" "$2" "$3" "${4:-}" <<'PY'
import json, os, sys
out, part, status, reason, extra = sys.argv[1:6]
data = {}
if extra and os.path.exists(extra):
    try:
        data = json.load(open(extra))
    except ValueError as e:
        status, reason = "failed", f"unreadable results ({e}); " + reason
data.update({"part": part, "status": status, "reason": reason})
json.dump(data, open(out, "w"), indent=2)
PY
  echo "gpu_check $1: $2${3:+ ($3)}"
  [ "$2" = failed ] && overall=1
  return 0
}

device_ready() { # sets $why when no device
  why=""
  unpack "$pack" || { why="no pack at $pack (run 'scripts/gpu_check.sh pack' on the build machine and carry it)"; return 1; }
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 || { why="no CUDA device (nvidia-smi finds none)"; return 1; }
  find_cublas || { why="cuBLAS 13 not found (toolkit or PyTorch wheel)"; return 1; }
  return 0
}

part_tests() {
  local log="$results/tests.log" tmp
  tmp="$(mktemp -d)"
  {
    echo "== redraw_cuda_tests (CUDA against the CPU, op by op) =="
    rx timeout 420 "$pack/bin/redraw_cuda_tests" --reporters=console --duration=true 2>&1
    echo "rc $?"
    echo "== redraw_tests: the registry and the module on a real device =="
    rx timeout 60 "$pack/bin/redraw_tests" -tc='backend registry*,cuda module*' 2>&1
    echo "rc $?"
    echo "== redraw train/render/info on the GPU =="
    rx "$pack/bin/redraw" info --backends 2>&1
    rx timeout 60 "$pack/bin/redraw" train "$pack/samples/horse.png" --preset siren --size 128x128 --steps 300 \
      --backend cuda --out "$tmp/run" 2>&1 | tail -4
    echo "rc ${PIPESTATUS[0]}"
    rx timeout 60 "$pack/bin/redraw" render "$tmp/run/model.redraw" --size 2048x2048 -o "$tmp/big.png" 2>&1 | tail -2
    echo "rc ${PIPESTATUS[0]}"
  } >"$log"
  python3 - "$log" "$tmp/parsed.json" <<'PY'
import json, re, sys
log = open(sys.argv[1]).read()
sections = log.split("== ")
res = {"suites": []}
for m in re.finditer(r"\[doctest\] test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed \|\s*(\d+) skipped", log):
    res["suites"].append({"cases": int(m[1]), "passed": int(m[2]), "failed": int(m[3]), "skipped": int(m[4])})
res["return_codes"] = [int(x) for x in re.findall(r"^rc (\d+)$", log, re.M)]
res["failed_cases"] = re.findall(r"TEST CASE:\s+(.*)", log)
res["skipped_device"] = "SKIPPED: no CUDA device" in log
json.dump(res, open(sys.argv[2], "w"), indent=2)
PY
  local verdict
  verdict="$(python3 -c "
import json,sys; r=json.load(open('$tmp/parsed.json'))
bad=[c for c in r['return_codes'] if c!=0]
if len(r['suites'])<2: print('failed: a test binary did not finish (see tests.log)')
elif r['skipped_device']: print('failed: the CUDA tests skipped although a device is present')
elif bad or any(s['failed'] for s in r['suites']): print('failed: '+'; '.join(r['failed_cases'][:5] or ['exit codes %s'%r['return_codes']]))
else: print('ok: %d CUDA test cases passed'%sum(s['passed'] for s in r['suites']))")"
  write_status tests "${verdict%%:*}" "${verdict#*: }" "$tmp/parsed.json"
  grep -E "^\[doctest\] test cases|^rc " "$log"
  rm -rf "$tmp"
}

part_bench() {
  local log="$results/bench.log" steps="${REDRAW_GPU_STEPS:-200}" p failed=""
  : >"$log"
  for p in fp32 tf32 bf16; do
    echo "== cuda_bench $p ==" >>"$log"
    rx timeout 120 "$pack/bin/cuda_bench" --presets classic,siren,fourier --sizes 200,256,512 --steps "$steps" \
      --precision "$p" --json "$results/bench_$p.tmp.json" >>"$log" 2>&1 || failed="$failed cuda_bench-$p"
  done
  # The CLI's own throughput on the same preset and size as the benchmark (metrics, snapshots and
  # all): what a user sees, against what the step costs alone.
  local tmp
  tmp="$(mktemp -d)"
  echo "== redraw train, siren 256x256, 3000 steps ==" >>"$log"
  rx timeout 120 "$pack/bin/redraw" train "$pack/samples/camera.png" --preset siren --size 256x256 --steps 3000 \
    --backend cuda --out "$tmp/run" >>"$log" 2>&1 || failed="$failed redraw-train"
  python3 - "$results" "$tmp/run/metrics.csv" "$tmp/bench.json" <<'PY'
import csv, glob, json, os, sys
results, metrics, out = sys.argv[1:4]
data = {"throughput": []}
for f in sorted(glob.glob(os.path.join(results, "bench_*.tmp.json"))):
    try:
        j = json.load(open(f))
    except ValueError:
        continue
    data["throughput"] += j.get("throughput", [])
    data.setdefault("device", j.get("device"))
    os.remove(f)
try:
    rows = list(csv.DictReader(open(metrics)))
    last, first = rows[-1], rows[0]
    steps = int(last["step"]) - int(first["step"])
    secs = float(last["seconds"]) - float(first["seconds"])
    data["cli_train"] = {"preset": "siren", "size": 256, "steps": steps, "seconds": secs,
                         "steps_per_s": steps / secs if secs > 0 else None,
                         "final_psnr_db": float(last["psnr_db"])}
except (OSError, ValueError, KeyError, IndexError) as e:
    data["cli_train"] = {"error": str(e)}
json.dump(data, open(out, "w"), indent=2)
PY
  if [ -n "$failed" ]; then write_status bench failed "did not finish:$failed (see bench.log)" "$tmp/bench.json"
  else write_status bench ok "cuda_bench fp32/tf32/bf16 and redraw train" "$tmp/bench.json"; fi
  grep -A12 "^preset" "$log" | grep -v "^--" | head -40
  rm -rf "$tmp"
}

part_torch() {
  local log="$results/torch.log" tmp
  tmp="$(mktemp -d)"
  # PyTorch runs with the machine's own libraries: no LD_LIBRARY_PATH from the pack.
  {
    PYTHONUNBUFFERED=1 timeout 300 python3 bench/torch_reference.py --presets classic,siren,fourier \
      --sizes 200,256,512 --steps "${REDRAW_GPU_STEPS:-200}" --modes eager,compile --json "$tmp/fp32.json"
    echo "rc $?"
    PYTHONUNBUFFERED=1 timeout 120 python3 bench/torch_reference.py --presets classic,siren,fourier \
      --sizes 200,256,512 --steps "${REDRAW_GPU_STEPS:-200}" --precision tf32 --modes eager --json "$tmp/tf32.json"
    echo "rc $?"
  } >"$log" 2>&1
  python3 - "$tmp" "$tmp/torch.json" <<'PY'
import glob, json, os, sys
rows = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*32.json"))):
    try:
        rows += json.load(open(f))
    except ValueError:
        pass
json.dump({"torch": rows}, open(sys.argv[2], "w"), indent=2)
PY
  if grep -q "SKIPPED" "$log"; then write_status torch skipped "$(grep -m1 SKIPPED "$log")" "$tmp/torch.json"
  elif grep -q "^rc [^0]" "$log"; then write_status torch failed "the PyTorch reference did not finish (see torch.log)" "$tmp/torch.json"
  else write_status torch ok "PyTorch eager, torch.compile and tf32 eager" "$tmp/torch.json"; fi
  grep -E "^(preset|classic|siren|fourier)" "$log" | head -30
  rm -rf "$tmp"
}

part_accuracy() {
  local log="$results/accuracy.log" tmp failed=""
  tmp="$(mktemp -d)"
  {
    echo "== every preset, 10 s limit =="
    rx timeout 150 "$pack/bin/cuda_bench" --presets fourier,siren,classic --sizes 200 --steps 20 \
      --accuracy "$pack/samples/horse.png" --time-limit 10 --json "$tmp/a10.json" || echo "FAILED: 10 s run"
    echo "== classic as the original trained it (SGD, cosine over 800,000 steps), 60 s limit =="
    rx timeout 150 "$pack/bin/cuda_bench" --presets classic --sizes 200 --steps 20 \
      --accuracy "$pack/samples/horse.png" --time-limit 60 --accuracy-steps 800000 --json "$tmp/a60.json" ||
      echo "FAILED: 60 s run"
  } >"$log" 2>&1
  grep -q "^FAILED" "$log" && failed=1
  python3 - "$tmp/a10.json" "$tmp/a60.json" "$tmp/acc.json" <<'PY'
import json, sys
out = {"accuracy": []}
for f, limit in ((sys.argv[1], 10), (sys.argv[2], 60)):
    try:
        for r in json.load(open(f)).get("accuracy", []):
            r["time_limit_s"] = limit
            out["accuracy"].append(r)
    except (OSError, ValueError):
        pass
json.dump(out, open(sys.argv[3], "w"), indent=2)
PY
  if [ -n "$failed" ]; then write_status accuracy failed "a run did not finish (see accuracy.log)" "$tmp/acc.json"
  else write_status accuracy ok "horse 200x200 binary to 99% of pixels" "$tmp/acc.json"; fi
  sed -n '/^accuracy/,$p' "$log" | grep -v "^==" | head -12
  rm -rf "$tmp"
}

part_interop() {
  local log="$results/interop.log" tmp rc
  tmp="$(mktemp -d)"
  # OpenGL through EGL on the NVIDIA device: glvnd's libEGL (packed) finds the driver's vendor
  # library through its JSON file.
  local vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json extra=""
  [ -f "$vendor" ] && export __EGL_VENDOR_LIBRARY_FILENAMES="$vendor"
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do [ -d "$d" ] && extra="$extra:$d"; done
  env LD_LIBRARY_PATH="$root/$pack/lib${cublas_dir:+:$cublas_dir}$extra" REDRAW_ASSETS="$root/assets" \
    timeout 300 "$pack/bin/redraw_interop_check" --size 1024 --frames 60 --image "$pack/samples/horse.png" \
    --json "$tmp/interop.json" >"$log" 2>&1
  rc=$?
  case $rc in
  0) write_status interop ok "$(grep -m1 'per frame' "$log" | sed 's/^interop_check: //')" "$tmp/interop.json" ;;
  77) write_status interop skipped "$(grep -m1 SKIPPED "$log")" "$tmp/interop.json" ;;
  *) write_status interop failed "$(grep -m1 -E 'FAIL|error' "$log" || echo "exit $rc")" "$tmp/interop.json" ;;
  esac
  cat "$log"
  rm -rf "$tmp"
}

part_sanitize() {
  local log="$results/sanitize.log" tmp tool rc failed="" sanitizer
  sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
  [ -x "$sanitizer" ] || { write_status sanitize skipped "compute-sanitizer not found"; return; }
  tmp="$(mktemp -d)"
  : >"$log"
  echo '{"tools": {}}' >"$tmp/s.json"
  # The parity cases cover every kernel; the bf16 and 200-step runs repeat them and are left out
  # to keep each tool within its time.
  local cases='cuda parity: encode*,cuda parity: predict, every*,cuda parity: loss and gradients*,cuda parity: gradients over*,cuda parity: optimizer*,cuda parity: bound state*,cuda parity: rendering*,cuda: graph replay*,cuda: errors*'
  for tool in memcheck racecheck synccheck; do
    echo "== $tool ==" >>"$log"
    rx timeout 220 "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 \
      "$pack/bin/redraw_cuda_tests" -tc="$cases" >>"$log" 2>&1
    rc=$?
    echo "rc $rc" >>"$log"
    python3 - "$tmp/s.json" "$tool" "$rc" "$log" <<'PY'
import json, re, sys
f, tool, rc, log = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
j = json.load(open(f))
text = open(log).read().split("== " + tool + " ==")[-1]
m = re.search(r"ERROR SUMMARY: (\d+) error", text)
j["tools"][tool] = {"exit": rc, "errors": int(m[1]) if m else None}
json.dump(j, open(f, "w"))
PY
    [ $rc -eq 0 ] || failed="$failed $tool(exit $rc)"
  done
  if [ -n "$failed" ]; then write_status sanitize failed "reports or errors:$failed (see sanitize.log)" "$tmp/s.json"
  else write_status sanitize ok "memcheck, racecheck and synccheck clean" "$tmp/s.json"; fi
  grep -E "^== |ERROR SUMMARY|^rc " "$log"
  rm -rf "$tmp"
}

# The instant preset (hash grid + fused MLP): samples/s at batch 2^18 against the PyTorch hash grid,
# and the time to 25/30/35 dB on a 512x512 photo against fourier and siren.
part_instant() {
  local log="$results/instant.log" tmp failed=""
  tmp="$(mktemp -d)"
  {
    for p in auto fp32; do
      echo "== cuda_bench instant $p =="
      rx timeout 90 "$pack/bin/cuda_bench" --presets instant --sizes 512 --steps 200 --precision "$p" \
        --json "$tmp/cuda-$p.json" || echo "FAILED: cuda_bench $p"
    done
    for p in fp32 fp16; do
      echo "== PyTorch hash grid $p =="
      PYTHONUNBUFFERED=1 timeout 150 python3 bench/torch_reference.py --presets instant --sizes 512 --steps 200 \
        --precision "$p" --modes eager,compile --json "$tmp/torch-$p.json" || echo "PEER FAILED: torch $p"
    done
    for img in chelsea camera; do
      echo "== time to PSNR, $img 512x512 =="
      rx timeout 100 "$pack/bin/psnr_bench" --backend cuda --precision auto --image "$pack/samples/$img.png" \
        --size 512x512 --presets instant,fourier,siren --time-limit 20 --measure-every 0.02 \
        --json "$tmp/psnr-$img.json" || echo "FAILED: psnr_bench $img"
    done
  } >"$log" 2>&1
  grep -q "^FAILED" "$log" && failed="$(grep '^FAILED' "$log" | tr '\n' ' ')"
  python3 - "$tmp" "$tmp/instant.json" <<'PY'
import glob, json, os, sys
d, out = sys.argv[1:3]
res = {"instant_cuda": [], "instant_torch": [], "instant_psnr": {}}
for f in sorted(glob.glob(os.path.join(d, "cuda-*.json"))):
    try:
        res["instant_cuda"] += json.load(open(f)).get("throughput", [])
    except ValueError:
        pass
for f in sorted(glob.glob(os.path.join(d, "torch-*.json"))):
    try:
        res["instant_torch"] += [r for r in json.load(open(f)) if "samples_per_s" in r]
    except ValueError:
        pass
for f in sorted(glob.glob(os.path.join(d, "psnr-*.json"))):
    try:
        res["instant_psnr"][os.path.basename(f)[5:-5]] = json.load(open(f))
    except ValueError:
        pass
json.dump(res, open(out, "w"), indent=2)
PY
  if [ -n "$failed" ]; then write_status instant failed "$failed(see instant.log)" "$tmp/instant.json"
  else write_status instant ok "hash grid + fused MLP throughput and time to PSNR" "$tmp/instant.json"; fi
  grep -E "^(preset|instant|fourier|siren)|samples/s|dB" "$log" | head -30
  rm -rf "$tmp"
}

cmd_run() {
  [ $# -gt 0 ] || usage
  mkdir -p "$results"
  local parts=("$@")
  [ "${parts[0]}" = all ] && parts=(tests sanitize bench accuracy interop torch instant)
  local part why
  if ! device_ready; then
    for part in "${parts[@]}"; do write_status "$part" skipped "$why"; done
    echo "SKIPPED: $why"
    return 0
  fi
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$results/device.txt"
  echo "cuBLAS from $cublas_dir; pack $(cat "$pack/REVISION" 2>/dev/null)"
  for part in "${parts[@]}"; do
    echo "==== $part ===="
    case "$part" in
    tests | bench | torch | accuracy | interop | sanitize | instant) "part_$part" ;;
    *) echo "gpu_check: unknown part '$part' (known: tests bench torch accuracy interop sanitize instant all)"; overall=1 ;;
    esac
  done
  return $overall
}

case "${1:-}" in
pack) shift; cmd_pack "$@" ;;
pack-from-build) shift; pack_from_build "$@" ;;
unpack) shift; unpack "${1:-$pack}" ;;
run) shift; cmd_run "$@" ;;
report) shift; python3 bench/gpu_report.py "$@" ;;
*) usage ;;
esac
