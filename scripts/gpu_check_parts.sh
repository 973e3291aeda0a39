# Sourced by scripts/gpu_check.sh: its parts, one part_PART function per part (with collect_PART,
# when the part has one, which gathers what the finished steps measured into $cur_tmp/data.json
# before each step). Each part runs its steps through timed() and ends with write_status; both,
# and the variables they read (results, pack, rx_env, cur_tmp, dry_run), are gpu_check.sh's.
# shellcheck shell=bash disable=SC2154 # the variables gpu_check.sh sets

collect_tests() {
  [ "$dry_run" = 1 ] && return 0
  python3 - "$results/tests.log" "$cur_tmp/data.json" <<'PY'
import json, re, sys
log = open(sys.argv[1]).read()
res = {"suites": []}
for m in re.finditer(r"\[doctest\] test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed \|\s*(\d+) skipped", log):
    res["suites"].append({"cases": int(m[1]), "passed": int(m[2]), "failed": int(m[3]), "skipped": int(m[4])})
res["return_codes"] = [int(x) for x in re.findall(r"^rc (\d+)$", log, re.M)]
# doctest prints a block per case between rules of '='; --duration=true prints one for every case,
# so a case failed only where its block holds an error.
res["failed_cases"] = [m[1] for block in re.split(r"^={20,}$", log, flags=re.M)
                       if re.search(r"\b(ERROR|FATAL ERROR|THREW)\b", block)
                       for m in [re.search(r"TEST CASE:\s+(.*)", block)] if m]
res["skipped_device"] = "SKIPPED: no CUDA device" in log
json.dump(res, open(sys.argv[2], "w"), indent=2)
PY
}

part_tests() {
  local log="$results/tests.log"
  : >"$log"
  {
    echo "== redraw_cuda_tests (CUDA against the CPU, op by op) =="
    timed "redraw_cuda_tests" 330 "${rx_env[@]}" "$pack/bin/redraw_cuda_tests" --reporters=console --duration=true 2>&1
    echo "rc $?"
    echo "== redraw_tests: the registry and the module on a real device =="
    timed "redraw_tests (registry, module)" 40 "${rx_env[@]}" "$pack/bin/redraw_tests" -tc='backend registry*,cuda module*' 2>&1
    echo "rc $?"
    echo "== redraw train/render/info on the GPU =="
    timed "redraw info" 20 "${rx_env[@]}" "$pack/bin/redraw" info --backends 2>&1
    # No pipes after timed: a pipeline's stage runs in a subshell, which would lose its bookkeeping.
    timed "redraw train siren 128x128" 50 "${rx_env[@]}" "$pack/bin/redraw" train "$pack/samples/horse.png" \
      --preset siren --size 128x128 --steps 300 --backend cuda --out "$cur_tmp/run" >"$cur_tmp/out" 2>&1
    echo "rc $?"
    tail -4 "$cur_tmp/out"
    timed "redraw render 2048x2048" 40 "${rx_env[@]}" "$pack/bin/redraw" render "$cur_tmp/run/model.redraw" \
      --size 2048x2048 -o "$cur_tmp/big.png" >"$cur_tmp/out" 2>&1
    echo "rc $?"
    tail -2 "$cur_tmp/out"
  } >>"$log"
  collect_tests
  [ "$dry_run" = 1 ] && return 0
  local verdict
  verdict="$(python3 -c "
import json,sys; r=json.load(open('$cur_tmp/data.json'))
bad=[c for c in r['return_codes'] if c!=0]
if len(r['suites'])<2: print('failed: a test binary did not finish (see tests.log)')
elif r['skipped_device']: print('failed: the CUDA tests skipped although a device is present')
elif bad or any(s['failed'] for s in r['suites']): print('failed: '+'; '.join(r['failed_cases'][:5] or ['exit codes %s'%r['return_codes']]))
else: print('ok: %d CUDA test cases passed'%sum(s['passed'] for s in r['suites']))" 2>/dev/null || echo "failed: no results")"
  write_status tests "${verdict%%:*}" "${verdict#*: }"
  grep -E "^\[doctest\] test cases|^rc " "$log"
}

collect_bench() {
  [ "$dry_run" = 1 ] && return 0
  python3 - "$cur_tmp" "$cur_tmp/run/metrics.csv" "$cur_tmp/data.json" <<'PY'
import csv, glob, json, os, sys
tmp, metrics, out = sys.argv[1:4]
data = {"throughput": []}
for f in sorted(glob.glob(os.path.join(tmp, "bench_*.json"))):
    try:
        j = json.load(open(f))
    except ValueError:
        continue
    data["throughput"] += j.get("throughput", [])
    data.setdefault("device", j.get("device"))
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
}

part_bench() {
  local log="$results/bench.log" steps="${REDRAW_GPU_STEPS:-200}" p failed=""
  : >"$log"
  for p in fp32 tf32 bf16; do
    echo "== cuda_bench $p ==" >>"$log"
    timed "cuda_bench $p" 120 "${rx_env[@]}" "$pack/bin/cuda_bench" --presets classic,siren,fourier \
      --sizes 200,256,512 --steps "$steps" --precision "$p" --json "$cur_tmp/bench_$p.json" >>"$log" 2>&1 ||
      failed="$failed cuda_bench-$p"
  done
  # The CLI's own throughput on the same preset and size as the benchmark (metrics, snapshots and
  # all): what a user sees, against what the step costs alone.
  echo "== redraw train, siren 256x256, 3000 steps ==" >>"$log"
  timed "redraw train siren 256x256" 120 "${rx_env[@]}" "$pack/bin/redraw" train "$pack/samples/camera.png" \
    --preset siren --size 256x256 --steps 3000 --backend cuda --out "$cur_tmp/run" >>"$log" 2>&1 ||
    failed="$failed redraw-train"
  collect_bench
  if [ -n "$failed" ]; then write_status bench failed "did not finish:$failed (see bench.log)"
  else write_status bench ok "cuda_bench fp32/tf32/bf16 and redraw train"; fi
  grep -A12 "^preset" "$log" | grep -v "^--" | head -40
}

collect_torch() {
  [ "$dry_run" = 1 ] && return 0
  python3 - "$cur_tmp" "$cur_tmp/data.json" <<'PY'
import glob, json, os, sys
rows = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*32.json"))):
    try:
        rows += json.load(open(f))
    except ValueError:
        pass
json.dump({"torch": rows}, open(sys.argv[2], "w"), indent=2)
PY
}

part_torch() {
  local log="$results/torch.log"
  : >"$log"
  # PyTorch runs with the machine's own libraries: no LD_LIBRARY_PATH from the pack.
  {
    PYTHONUNBUFFERED=1 timed "PyTorch fp32 eager and compile" 300 python3 bench/torch_reference.py \
      --presets classic,siren,fourier --sizes 200,256,512 --steps "${REDRAW_GPU_STEPS:-200}" --modes eager,compile \
      --json "$cur_tmp/fp32.json"
    echo "rc $?"
    PYTHONUNBUFFERED=1 timed "PyTorch tf32 eager" 120 python3 bench/torch_reference.py \
      --presets classic,siren,fourier --sizes 200,256,512 --steps "${REDRAW_GPU_STEPS:-200}" --precision tf32 \
      --modes eager --json "$cur_tmp/tf32.json"
    echo "rc $?"
  } >>"$log" 2>&1
  collect_torch
  if grep -q "SKIPPED" "$log"; then write_status torch skipped "$(grep -m1 SKIPPED "$log")"
  elif grep -q "^rc [^0]" "$log"; then write_status torch failed "the PyTorch reference did not finish (see torch.log)"
  else write_status torch ok "PyTorch eager, torch.compile and tf32 eager"; fi
  grep -E "^(preset|classic|siren|fourier)" "$log" | head -30
}

collect_accuracy() {
  [ "$dry_run" = 1 ] && return 0
  python3 - "$cur_tmp/a10.json" "$cur_tmp/a60.json" "$cur_tmp/data.json" <<'PY'
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
}

part_accuracy() {
  local log="$results/accuracy.log" failed=""
  : >"$log"
  {
    echo "== every preset, 10 s limit =="
    timed "every preset, 10 s limit" 150 "${rx_env[@]}" "$pack/bin/cuda_bench" --presets fourier,siren,classic \
      --sizes 200 --steps 20 --accuracy "$pack/samples/horse.png" --time-limit 10 --json "$cur_tmp/a10.json" ||
      echo "FAILED: 10 s run"
    echo "== classic as the original trained it (SGD, cosine over 800,000 steps), 60 s limit =="
    timed "classic as the original, 60 s limit" 150 "${rx_env[@]}" "$pack/bin/cuda_bench" --presets classic \
      --sizes 200 --steps 20 --accuracy "$pack/samples/horse.png" --time-limit 60 --accuracy-steps 800000 \
      --json "$cur_tmp/a60.json" || echo "FAILED: 60 s run"
  } >>"$log" 2>&1
  grep -q "^FAILED" "$log" && failed=1
  collect_accuracy
  if [ -n "$failed" ]; then write_status accuracy failed "a run did not finish (see accuracy.log)"
  else write_status accuracy ok "horse 200x200 binary to 99% of pixels"; fi
  sed -n '/^accuracy/,$p' "$log" | grep -v "^==" | head -12
}

part_interop() {
  local log="$results/interop.log" rc
  # OpenGL through EGL on the NVIDIA device: glvnd's libEGL (packed) finds the driver's vendor
  # library through its JSON file.
  local vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json extra="" d
  [ -f "$vendor" ] && export __EGL_VENDOR_LIBRARY_FILENAMES="$vendor"
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do [ -d "$d" ] && extra="$extra:$d"; done
  local saved=("${rx_env[@]}")
  set_rx_env "$extra"
  timed "redraw_interop_check 1024x1024, 60 frames" 300 "${rx_env[@]}" "$pack/bin/redraw_interop_check" \
    --size 1024 --frames 60 --image "$pack/samples/horse.png" --json "$cur_tmp/data.json" >"$log" 2>&1
  rc=$?
  rx_env=("${saved[@]}")
  case $rc in
  0) write_status interop ok "$(grep -m1 'per frame' "$log" | sed 's/^interop_check: //')" ;;
  77) write_status interop skipped "$(grep -m1 SKIPPED "$log")" ;;
  *) write_status interop failed "$(grep -m1 -E 'FAIL|error' "$log" || echo "exit $rc")" ;;
  esac
  cat "$log"
}

# sanitize_with PART CASES SECONDS_MEMCHECK SECONDS_RACECHECK SECONDS_SYNCCHECK: redraw_cuda_tests
# restricted to CASES under each compute-sanitizer tool; the JSON counts each tool's errors.
sanitize_with() {
  local part="$1" cases="$2" log="$results/$1.log" tool rc failed="" sanitizer secs
  shift 2
  sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
  if [ "$dry_run" != 1 ] && [ ! -x "$sanitizer" ]; then write_status "$part" skipped "compute-sanitizer not found"; return; fi
  : >"$log"
  echo '{"tools": {}}' >"$cur_tmp/data.json"
  for tool in memcheck racecheck synccheck; do
    secs="$1"
    shift
    echo "== $tool ==" >>"$log"
    timed "$tool" "$secs" "${rx_env[@]}" "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 \
      "$pack/bin/redraw_cuda_tests" -tc="$cases" >>"$log" 2>&1
    rc=$?
    echo "rc $rc" >>"$log"
    [ "$dry_run" = 1 ] && continue
    python3 - "$cur_tmp/data.json" "$tool" "$rc" "$log" <<'PY'
import json, re, sys
f, tool, rc, log = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
j = json.load(open(f))
text = open(log).read().split("== " + tool + " ==")[-1]
m = re.search(r"ERROR SUMMARY: (\d+) error", text)
cases = re.search(r"\[doctest\] test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed", text)
j["tools"][tool] = {"exit": rc, "errors": int(m[1]) if m else None, "timed_out": rc in (124, 137),
                    "cases": int(cases[1]) if cases else None, "cases_failed": int(cases[3]) if cases else None}
json.dump(j, open(f, "w"))
PY
    case $rc in
    0) ;;
    124 | 137) failed="$failed $tool(timed out after $secs s)" ;;
    *) failed="$failed $tool(exit $rc)" ;;
    esac
  done
  if [ -n "$failed" ]; then write_status "$part" failed "reports or errors:$failed (see $part.log)"
  else write_status "$part" ok "memcheck, racecheck and synccheck clean"; fi
  grep -E "^== |ERROR SUMMARY|test cases:|^rc " "$log"
}

# The kernels of the instant preset, on small batches (tests/cuda/test_cuda_sanitize.cpp): the
# fused fp16 MLP at every width, the hash grid's encode, grid encode and backward, and bound
# steps with graph replay, rendering and snapshot copies.
part_sanitize() {
  sanitize_with sanitize 'cuda sanitize:*' 150 180 150
}

# The fp32 parity cases, which cover every cuBLAS-path kernel; the bf16 and 200-step runs repeat
# them and are left out to keep each tool within its time.
part_sanitize-parity() {
  sanitize_with sanitize-parity 'cuda parity: encode*,cuda parity: predict, every*,cuda parity: loss and gradients*,cuda parity: gradients over*,cuda parity: optimizer*,cuda parity: bound state*,cuda parity: rendering*,cuda: graph replay*,cuda: errors*' 160 160 160
}

collect_instant() {
  [ "$dry_run" = 1 ] && return 0
  python3 - "$cur_tmp" "$cur_tmp/data.json" <<'PY'
import glob, json, os, sys
d, out = sys.argv[1:3]
res = {"instant_cuda": [], "instant_torch": [], "instant_psnr": {}}
for f in sorted(glob.glob(os.path.join(d, "cuda-*.json"))):
    # cuda-PRECISION[-KERNEL].json: KERNEL names the kernel that differs from the defaults.
    variant = os.path.basename(f)[5:-5].partition("-")[2] or "default kernels"
    try:
        rows = json.load(open(f)).get("throughput", [])
    except ValueError:
        continue
    for r in rows:
        r["hash_grid_kernels"] = variant
    res["instant_cuda"] += rows
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
}
collect_instant-torch() { collect_instant; }

# The instant preset (hash grid + fused MLP): samples/s at batch 2^18, and the time to 25/30/35 dB
# on a 512x512 photo against fourier and siren. Its PyTorch peer is instant-torch (the next call).
part_instant() {
  local log="$results/instant.log" failed="" p img
  : >"$log"
  {
    for p in auto fp32; do
      echo "== cuda_bench instant $p =="
      timed "cuda_bench instant $p" 70 "${rx_env[@]}" "$pack/bin/cuda_bench" --presets instant --sizes 512 \
        --steps 200 --precision "$p" --json "$cur_tmp/cuda-$p.json" || echo "FAILED: cuda_bench $p"
    done
    # The other kernels (cuda/fused_mlp_rules.h, cuda/hash_grid_choice.h), one at a time against
    # the defaults.
    echo "== cuda_bench instant auto, fragment epilogue =="
    REDRAW_FUSED_MLP_EPILOGUE=fragment timed "cuda_bench instant auto, fragment epilogue" 50 "${rx_env[@]}" \
      "$pack/bin/cuda_bench" --presets instant --sizes 512 --steps 200 --precision auto \
      --json "$cur_tmp/cuda-auto-fragment-epilogue.json" || echo "FAILED: cuda_bench fragment epilogue"
    echo "== cuda_bench instant auto, atomic backward =="
    REDRAW_HASH_GRID_BACKWARD=atomic timed "cuda_bench instant auto, atomic backward" 50 "${rx_env[@]}" \
      "$pack/bin/cuda_bench" --presets instant --sizes 512 --steps 200 --precision auto \
      --json "$cur_tmp/cuda-auto-atomic-backward.json" || echo "FAILED: cuda_bench atomic backward"
    echo "== cuda_bench instant auto, warp-aggregated backward =="
    REDRAW_HASH_GRID_BACKWARD=warp-aggregated timed "cuda_bench instant auto, warp-aggregated backward" 50 \
      "${rx_env[@]}" "$pack/bin/cuda_bench" --presets instant --sizes 512 --steps 200 --precision auto \
      --json "$cur_tmp/cuda-auto-warp-aggregated.json" || echo "FAILED: cuda_bench warp-aggregated backward"
    for img in chelsea camera; do
      echo "== time to PSNR, $img 512x512 =="
      timed "time to PSNR, $img 512x512" 90 "${rx_env[@]}" "$pack/bin/psnr_bench" --backend cuda --precision auto \
        --image "$pack/samples/$img.png" --size 512x512 --presets instant,fourier,siren --time-limit 20 \
        --measure-every 0.02 --json "$cur_tmp/psnr-$img.json" || echo "FAILED: psnr_bench $img"
    done
  } >>"$log" 2>&1
  grep -q "^FAILED" "$log" && failed="$(grep '^FAILED' "$log" | tr '\n' ' ')"
  collect_instant
  if [ -n "$failed" ]; then write_status instant failed "$failed(see instant.log)"
  else write_status instant ok "hash grid + fused MLP throughput and time to PSNR"; fi
  grep -E "^(preset|instant|fourier|siren)|samples/s|dB" "$log" | head -30
}

# The pure-PyTorch hash grid on the same network and batch, fp32 and fp16, eager and compiled.
part_instant-torch() {
  local log="$results/instant-torch.log" p failed=""
  : >"$log"
  for p in fp32 fp16; do
    echo "== PyTorch hash grid $p ==" >>"$log"
    PYTHONUNBUFFERED=1 timed "PyTorch hash grid $p" 150 python3 bench/torch_reference.py --presets instant \
      --sizes 512 --steps 200 --precision "$p" --modes eager,compile --json "$cur_tmp/torch-$p.json" >>"$log" 2>&1 ||
      failed="$failed torch-$p"
  done
  collect_instant
  if grep -q "SKIPPED" "$log"; then write_status instant-torch skipped "$(grep -m1 SKIPPED "$log")"
  elif [ -n "$failed" ]; then write_status instant-torch failed "did not finish:$failed (see instant-torch.log)"
  else write_status instant-torch ok "PyTorch hash grid fp32 and fp16, eager and compiled"; fi
  grep -E "^(preset|instant)|samples/s" "$log" | head -20
}

# Nsight Compute on instant's training step: every kernel of a few steps (the graph's nodes one by
# one), with what limits each (throughput against the peaks, memory traffic, occupancy). The
# profiled program gets Redraw's library path through a shell that ncu follows; ncu keeps its own.
part_profile() {
  local log="$results/profile.log" ncu rc
  ncu="$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
  if [ "$dry_run" != 1 ] && [ ! -x "$ncu" ]; then write_status profile skipped "ncu not found"; return; fi
  local lib="${rx_env[1]#LD_LIBRARY_PATH=}"
  timed "ncu: the kernels of instant's step" 300 "$ncu" --target-processes all --graph-profiling node \
    --launch-skip 60 --launch-count 24 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
    bash -c 'export LD_LIBRARY_PATH="$1"; shift; exec "$@"' sh "$lib" "$pack/bin/cuda_bench" --presets instant \
    --sizes 512 --steps 20 --precision auto >"$log" 2>&1
  rc=$?
  [ "$dry_run" = 1 ] && return 0
  grep -E '^  [a-zA-Z_].*\(([0-9]+, ){2}[0-9]+\)x\(|Duration|Memory Throughput|Compute \(SM\) Throughput|Achieved Occupancy' "$log" | head -150
  if [ $rc -eq 0 ]; then write_status profile ok "$(grep -c 'Duration' "$log") kernels profiled (profile.log)"
  else write_status profile failed "ncu exit $rc (see profile.log)"; fi
}

# Full resolution on the GPU (the floor: a 100-megapixel image at full resolution trains
# `instant` at >= 80% of its steps/s at 1 megapixel): bench/full_res_bench.sh on chelsea tiled at
# its native scale into a 10000x10000 JPEG (decode_bench, from the pack), --max-side 1000 against
# full resolution, 30 s each, the two sizes in turns twice (a slow spell then falls on both).
collect_fullres() {
  [ "$dry_run" = 1 ] && return 0
  python3 - "$results/fullres.log" "$cur_tmp/data.json" <<'PY'
import json, re, sys
log = open(sys.argv[1]).read()
rows = []
for m in re.finditer(r"^\| (\d+)(?: \(round (\d+)\))? \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| (-?[\d.]+) \| (\d+) \| ([^|]*) \| ([^|]*) \|$", log, re.M):
    rows.append({"side": int(m[1]), "round": int(m[2] or 1), "steps": int(m[3]), "train_s": float(m[4]),
                 "steps_per_s": float(m[5]), "wall_s": float(m[6]), "outside_s": float(m[7]),
                 "peak_rss_mib": int(m[8]), "psnr_db": m[9].strip(), "metrics_rows_pct": m[10].strip()})
share = re.search(r"^steps/s at (\d+) as a share of (\d+): ([\d.]+)", log, re.M)
res = {"fullres": {"rows": rows, "floor": 0.80}}
if share:
    res["fullres"].update({"full_side": int(share[1]), "small_side": int(share[2]), "share": float(share[3])})
json.dump(res, open(sys.argv[2], "w"), indent=2)
PY
}

part_fullres() {
  local log="$results/fullres.log" rc
  : >"$log"
  # full_res_bench finds redraw and decode_bench in the pack's bin/ and chelsea in its samples.
  REDRAW_BUILD_DIR="$pack_abs" timed "full resolution: 10000x10000 against 1000, instant, 2 x 2 x 30 s" 420 \
    "${rx_env[@]}" bash bench/full_res_bench.sh --backend cuda --size 10000x10000 --side 1000 --steps 1000000 \
    --seconds 30 --rounds 2 --keep "$cur_tmp/fullres" >>"$log" 2>&1
  rc=$?
  collect_fullres
  [ "$dry_run" = 1 ] && return 0
  cat "$log"
  local verdict
  verdict="$(python3 -c "
import json; r=json.load(open('$cur_tmp/data.json'))['fullres']
if 'share' not in r: print('failed: the bench gave no share (exit $rc; see fullres.log)')
elif r['share'] >= r['floor']: print('ok: 100 MP at %.2f of 1 MP steps/s (floor %.2f)' % (r['share'], r['floor']))
else: print('failed: 100 MP at %.2f of 1 MP steps/s, under the floor %.2f' % (r['share'], r['floor']))" 2>/dev/null ||
    echo "failed: no results (exit $rc)")"
  write_status fullres "${verdict%%:*}" "${verdict#*: }"
}
