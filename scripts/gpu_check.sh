#!/usr/bin/env bash
# Proves (or disproves) every GPU claim of Redraw in a few fixed commands on a bare GPU machine
# (CUDA driver, cuBLAS, cmake and PyTorch, but no package registry and no build dependencies).
#
#   scripts/gpu_check.sh pack [DIR]        here: builds for sm_90 without the GUI and packs the
#                                          binaries, the libraries they need and the test images
#                                          into DIR (default .gpu-pack, git-ignored), then prints
#                                          the device calls to make
#   scripts/gpu_check.sh run PART          there: one part per device call (see list)
#   scripts/gpu_check.sh list [PART...]    anywhere: each part's steps and their timeouts, added up
#                                          by walking the part without running anything
#   scripts/gpu_check.sh report [DIR...]   here: one table from the results of every call
#                                          (default: $REDRAW_GPU_RESULTS, else .gpu-results/)
#
# Parts: tests, sanitize, sanitize-parity, bench, accuracy, interop, torch, instant, instant-torch,
# profile (Nsight Compute's limiters for the kernels of instant's training step), fullres (100 MP at
# full resolution against 1 MP). A lease is short (15 minutes of device time, the start included):
# run tests first, then fullres, then the rest in the order listed.
# The timeouts inside one part add up to at most 480 s, so a part fits one device command (600 s,
# unpacking included); `run` refuses parts whose timeouts add up to more (REDRAW_GPU_LONG=1 allows
# it on a machine without that limit; `all` needs it).
# `run` writes PART.json (machine-readable, "status": ok | failed | skipped | incomplete, the reason,
# and the steps finished) and PART.log into $OUT when set, else .gpu-results/. PART.json is
# rewritten before every step with what the finished steps measured, so a part killed at the
# command's limit still leaves its JSON ("incomplete", naming the step it stopped in).
# Library paths are set only for Redraw's own processes (PyTorch keeps its own). cuBLAS is found in
# the machine's toolkit or PyTorch's wheels. A part that finds no device writes "skipped" with the
# reason and exits 0; a part that fails says which check failed and the script exits 1.
# Environment: REDRAW_GPU_PACK (the pack folder), REDRAW_CUDA_ARCHS (the pack's architectures,
# default 90), REDRAW_GPU_BUILD (its build folder, default build-gpu), REDRAW_GPU_STEPS (bench
# steps, default 200), REDRAW_GPU_RESULTS (report's folders, ':'-separated), REDRAW_CUBLAS_DIR
# (cuBLAS 13's folder, when it is neither in /usr/local/cuda nor in PyTorch's wheels).
set -uo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
pack="${REDRAW_GPU_PACK:-.gpu-pack}"
case "$pack" in /*) pack_abs="$pack" ;; *) pack_abs="$root/$pack" ;; esac
all_parts=(tests sanitize sanitize-parity bench accuracy interop torch instant instant-torch profile fullres)
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"

usage() {
  sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# ---- pack (build machine) ------------------------------------------------------------------
pack_binaries=(redraw libredraw_cuda.so redraw_tests redraw_cuda_tests cuda_bench psnr_bench redraw_interop_check decode_bench)

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
  out="$(cd "$out" && pwd)" # absolute: the tar below runs inside the staging folder
  (cd "$dir" && find . -type f | sort >"$out/MANIFEST" && XZ_OPT="-3 -T2" tar -cJf "$out/pack.tar.xz" .) || missing=1
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
    cuda_bench psnr_bench redraw_interop_check decode_bench >>"$build.log" 2>&1 || { grep -E "error" "$build.log" | head -20; exit 1; }
  pack_from_build "$build" "$dir" || exit 1
  local mib
  mib=$(du -sm "$dir" | cut -f1)
  echo "gpu_check pack: $dir is $mib MiB compressed (limit 60): $(grep -c . "$dir/MANIFEST") files"
  [ "$mib" -le 60 ] || { echo "gpu_check pack: the pack is over 60 MiB"; exit 1; }
  cat <<EOF

Device calls (the run tool, carry ["$dir"]), one part per call, each under 8 minutes:
$(for p in "${all_parts[@]}"; do echo "  bash scripts/gpu_check.sh run $p"; done)
Then here:  bash scripts/gpu_check.sh report DIR...   (the folders the calls' files came back to)
EOF
}

# ---- run (GPU machine) ---------------------------------------------------------------------
results="${OUT:-$root/.gpu-results}"
cublas_dir=""
overall=0
part_limit=480 # seconds: the timeouts inside one part add up to at most this
dry_run=0      # 1: walk the parts, adding up their timeouts, running nothing (list)
rx_env=()      # env ... : what Redraw's own processes run under (set_rx_env)

# The part being run: its name, scratch folder, timeouts so far and steps finished.
cur_part=""
cur_tmp=""
cur_spent=0
cur_step=""
cur_done=()
cur_child="" # the step's timeout process, while it runs

find_cublas() {
  local d
  [ -n "${REDRAW_CUBLAS_DIR:-}" ] && { cublas_dir="$REDRAW_CUBLAS_DIR"; return 0; }
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
set_rx_env() {
  rx_env=(env LD_LIBRARY_PATH="$pack_abs/lib${cublas_dir:+:$cublas_dir}${1:-}" REDRAW_ASSETS="$root/assets"
    REDRAW_SAMPLE_DIR="$pack_abs/samples" REDRAW_TEST_ASSET_DIR="$root/assets")
}

# write_json PART STATUS REASON: PART.json from the part's data so far ($cur_tmp/data.json, when
# there), the status, the reason and the steps finished.
write_json() {
  [ "$dry_run" = 1 ] && return 0
  local data="${cur_tmp:+$cur_tmp/data.json}"
  python3 - "$results/$1.json" "$1" "$2" "$3" "${data:-}" "${cur_done[@]}" <<'PY'
import json, os, sys
out, part, status, reason, extra = sys.argv[1:6]
data = {}
if extra and os.path.exists(extra):
    try:
        data = json.load(open(extra))
    except ValueError as e:
        status, reason = "failed", f"unreadable results ({e}); " + reason
data.update({"part": part, "status": status, "reason": reason, "steps_finished": sys.argv[6:]})
tmp = out + ".tmp"
json.dump(data, open(tmp, "w"), indent=2)
os.replace(tmp, out)  # a reader (or a kill) never sees half a file
PY
}

# write_status PART STATUS REASON: the part's final JSON and one line on stdout.
write_status() {
  [ "$dry_run" = 1 ] && return 0
  write_json "$@"
  echo "gpu_check $1: $2${3:+ ($3)}"
  [ "$2" = failed ] && overall=1
  return 0
}

# Before each step: collect what the finished steps left (collect_PART, when the part has one)
# and write PART.json as incomplete, naming the step; a kill during the step leaves exactly that.
progress() {
  cur_step="$1"
  [ "$dry_run" = 1 ] && return 0
  if declare -F "collect_$cur_part" >/dev/null; then "collect_$cur_part" || true; fi
  write_json "$cur_part" incomplete "stopped during '$1' (killed at the device call's limit, or still running)"
}

# timed LABEL SECONDS CMD...: CMD under `timeout SECONDS`, after progress(LABEL); its exit code.
# Refuses (125) a step that would take the part's timeouts past part_limit. In a dry run it only
# counts, and prints the step on fd 3.
timed() {
  local label="$1" secs="$2"
  shift 2
  cur_spent=$((cur_spent + secs))
  if [ "$cur_spent" -gt "$part_limit" ] && [ "${REDRAW_GPU_LONG:-0}" != 1 ]; then
    echo "gpu_check $cur_part: '$label' takes the part's timeouts to $cur_spent s (limit $part_limit)" >&2
    return 125
  fi
  if [ "$dry_run" = 1 ]; then
    printf '  %-46s %4d s\n' "$label" "$secs" >&3
    return 0
  fi
  progress "$label"
  # In the background and waited for, so a signal's trap runs at once, not when the step ends.
  timeout "$secs" "$@" &
  cur_child=$!
  wait "$cur_child"
  local rc=$?
  cur_child=""
  cur_done+=("$label")
  return $rc
}

# A signal (the device call's limit, Ctrl-C) ends the part in progress with its JSON saying so.
on_signal() {
  [ -n "$cur_child" ] && kill -TERM "$cur_child" 2>/dev/null
  [ -n "$cur_part" ] && write_status "$cur_part" incomplete "killed by SIG$1 during '$cur_step'"
  exit $((128 + $2))
}
trap 'on_signal TERM 15' TERM
trap 'on_signal INT 2' INT

device_ready() { # sets $why when no device
  why=""
  unpack "$pack" || { why="no pack at $pack (run 'scripts/gpu_check.sh pack' on the build machine and carry it)"; return 1; }
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 || { why="no CUDA device (nvidia-smi finds none)"; return 1; }
  find_cublas || { why="cuBLAS 13 not found (toolkit or PyTorch wheel)"; return 1; }
  return 0
}

# ---- parts: each writes $cur_tmp/data.json (collect_PART) and ends with write_status ----------
# part_PART and collect_PART for every part of all_parts, in scripts/gpu_check_parts.sh.
# shellcheck source=scripts/gpu_check_parts.sh
. "$root/scripts/gpu_check_parts.sh"

# run_part PART: one part with fresh bookkeeping.
run_part() {
  cur_part="$1"
  cur_tmp="$(mktemp -d)"
  cur_spent=0
  cur_step="(start)"
  cur_done=()
  "part_$1"
  rm -rf "$cur_tmp"
  cur_part=""
  cur_tmp=""
}

known_part() {
  local p
  for p in "${all_parts[@]}"; do [ "$p" = "$1" ] && return 0; done
  return 1
}

# Seconds of timeouts in PART, by walking it without running anything (its steps go to fd 3).
part_seconds() {
  local saved_results="$results" saved_env=("${rx_env[@]}")
  dry_run=1
  results="$(mktemp -d)"
  set_rx_env
  cur_part="$1"
  cur_tmp="$(mktemp -d)"
  cur_spent=0
  cur_done=()
  "part_$1" >/dev/null 2>&1
  echo "$cur_spent"
  rm -rf "$results" "$cur_tmp"
  results="$saved_results"
  rx_env=("${saved_env[@]}")
  cur_part=""
  cur_tmp=""
  dry_run=0
}

cmd_list() {
  local parts=("$@") part secs
  [ ${#parts[@]} -gt 0 ] || parts=("${all_parts[@]}")
  for part in "${parts[@]}"; do
    known_part "$part" || { echo "gpu_check: unknown part '$part' (known: ${all_parts[*]})"; return 2; }
    secs="$(part_seconds "$part" 3>/dev/null)"
    echo "$part: $secs s of timeouts (limit $part_limit)"
    part_seconds "$part" 3>&1 >/dev/null
  done
}

cmd_run() {
  [ $# -gt 0 ] || usage
  mkdir -p "$results"
  local parts=("$@") part total=0
  [ "${parts[0]}" = all ] && parts=("${all_parts[@]}")
  for part in "${parts[@]}"; do
    known_part "$part" || { echo "gpu_check: unknown part '$part' (known: ${all_parts[*]} all)"; return 2; }
  done
  if ! device_ready; then
    for part in "${parts[@]}"; do write_status "$part" skipped "$why"; done
    echo "SKIPPED: $why"
    return 0
  fi
  for part in "${parts[@]}"; do total=$((total + $(part_seconds "$part" 3>/dev/null))); done
  if [ "$total" -gt "$part_limit" ] && [ "${REDRAW_GPU_LONG:-0}" != 1 ]; then
    echo "gpu_check: ${parts[*]} take $total s of timeouts, over one call's $part_limit s: run one part per call" \
      "(REDRAW_GPU_LONG=1 runs them anyway)"
    return 2
  fi
  set_rx_env
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$results/device.txt"
  echo "cuBLAS from $cublas_dir; pack $(cat "$pack/REVISION" 2>/dev/null)"
  for part in "${parts[@]}"; do
    echo "==== $part ===="
    run_part "$part"
  done
  return $overall
}

case "${1:-}" in
pack) shift; cmd_pack "$@" ;;
pack-from-build) shift; pack_from_build "$@" ;;
unpack) shift; unpack "${1:-$pack}" ;;
run) shift; cmd_run "$@" ;;
list) shift; cmd_list "$@" ;;
report) shift; python3 bench/gpu_report.py "$@" ;;
*) usage ;;
esac
