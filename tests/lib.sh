# Shared by the shell tests, sourced after `set -u` as `. "$(dirname "$0")/../lib.sh"`:
# - tests_dir (this folder), samples (tests/data), and the tools beside them: make_png.py (a test
#   pattern PNG of any size) and model_mutate.py (a .redraw with one change in meaning);
# - work: a fresh temporary folder, removed at exit after every process in `pids` is killed;
# - ok / fail / check CONDITION (eval'd) / check_run DESCRIPTION COMMAND... (counted in `failures`),
#   skip, finish NAME (prints the count and returns non-zero when anything failed);
# - expect CODE NEEDLE -- COMMAND...: runs it, checks the exit code and that its output has NEEDLE;
# - wait_for SECONDS CONDITION: polls a state with a deadline, never a fixed sleep;
# - png_size FILE: "WxH" from the PNG header;
# - python3: Debian's interpreter (not a shim that PATH may find first);
# - tiny_config FILE STEPS METRICS_EVERY [adam] [DATA]: the small network the shell tests train
#   (16-16 Tanh, sigmoid output, gray); `adam` adds Adam on a cosine schedule from 0.01 to 0.0001,
#   DATA replaces the "data" object;
# - require_tools TOOL...: exits 77 (a skip to ctest), naming the tools that are not installed.
# python3 is Debian's interpreter, called directly (scripts/install_deps.sh installs it with the
# modules the tests use). The first python3 on PATH may be a version manager's shim: pyenv's is a
# bash script that costs 0.3 s a call, 10 times the interpreter's own start, and png_size alone
# called it 60 times in aspect_ratios (20 of its 30 s).
lib_python="$(command -v /usr/bin/python3 || command -v python3)"
python3() { "$lib_python" "$@"; }
tests_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
samples="$tests_dir/data"
make_png() { python3 "$tests_dir/make_png.py" "$@"; }
model_mutate() { python3 "$tests_dir/model_mutate.py" "$@"; }
lib_tmp="$(mktemp -d)"
work="$lib_tmp" # a script may point `work` elsewhere; the temporary folder still goes
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$lib_tmp"
}
trap cleanup EXIT
failures=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { if eval "$1"; then ok "$1"; else fail "$1"; fi; }
check_run() { # check_run DESCRIPTION COMMAND...: the command's status decides
  local what="$1"; shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}
skip() { echo "SKIP: $*"; }
finish() {
  echo "${1:+$1: }$failures failure(s)"
  [ "$failures" -eq 0 ]
}
expect() {
  local code="$1" needle="$2"
  shift 3
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" != "$code" ]; then
    fail "exit $got (wanted $code): $*"; cat "$work/err"; return
  fi
  if [ -n "$needle" ] && ! grep -qF -- "$needle" "$work/err" "$work/out"; then
    fail "output lacks '$needle': $*"; cat "$work/err"; return
  fi
  ok "$code $*"
}
wait_for() {
  local deadline=$((SECONDS + $1))
  while [ "$SECONDS" -lt "$deadline" ]; do
    eval "$2" && return 0
    sleep 0.05
  done
  return 1
}
png_size() { # the IHDR's two big-endian 32-bit numbers, bytes 16 to 23
  local b
  b=($(od -An -tu1 -j16 -N8 "$1" 2>/dev/null))
  [ ${#b[@]} = 8 ] || return 1
  echo "$(((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]))x$(((b[4] << 24) | (b[5] << 16) | (b[6] << 8) | b[7]))"
}
tiny_config() {
  local optimizer="" data='{"color_mode": "gray"}'
  if [ "${4:-}" = adam ]; then
    optimizer='
 "optimizer": {"otype": "Adam"}, "schedule": {"otype": "Cosine", "lr_max": 0.01, "lr_min": 0.0001},'
  fi
  if [ -n "${5:-}" ]; then data="$5"; fi
  printf '%s\n' '{"model": {"hidden": [16, 16], "activation": "Tanh", "output_activation": "Sigmoid"},'"$optimizer" \
    " \"training\": {\"steps\": $2, \"metrics_every\": $3}, \"data\": $data}" >"$1"
}
require_tools() {
  local missing="" tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || missing="$missing $tool"
  done
  if [ -n "$missing" ]; then
    echo "SKIP: not installed:$missing (scripts/install_deps.sh installs them)"
    exit 77
  fi
}
