#!/usr/bin/env bash
# The sanitizer and fuzzing stage of scripts/test.sh (also runnable alone):
#  1. builds build-asan/ with clang, AddressSanitizer + UndefinedBehaviorSanitizer
#     (-fno-sanitize-recover=all: the first report fails), CUDA off, GUI on, the fuzz targets on
#     (the CPU backend's kernels at -O2 and without the fuzzers' coverage hooks: CMakeLists.txt says why);
#  2. runs every ctest test there (the unit-test cases as four runs of a quarter each). Any
#     sanitizer report fails its test (a test whose only fault was LeakSanitizer's tracer
#     crashing at exit is rerun once: scripts/lsan_tracer_rerun.sh). The GUI tests run with
#     tests/gui/lsan_gui.supp, which suppresses the leaks of the GL driver (Mesa) only, and with
#     tests/gui/dlclose_noop.c preloaded so the driver is still loaded (and nameable) when LSan reports;
#  3. runs each libFuzzer target in tests/fuzz for REDRAW_FUZZ_SECONDS (default 30) from its seed
#     corpus in tests/fuzz/corpus, one target per core at a time; a crash, leak, timeout or
#     sanitizer report fails the stage and leaves the input in build-asan/fuzz-artifacts/.
#     The seed is fixed (REDRAW_FUZZ_SEED, default 1) so that CI runs the same inputs every time
#     and never fails by chance; REDRAW_FUZZ_SEED=0 lets libFuzzer pick one (for hunting by hand).
# Usage: scripts/sanitize.sh [ctest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
bash scripts/install_deps.sh
mkdir -p build-asan
cc -shared -fPIC -O1 tests/gui/dlclose_noop.c -o build-asan/libdlclose_noop.so
# The Python module is off here: an extension module would need the sanitizer runtimes preloaded into python3.
flags="-O1 -gline-tables-only -Wno-pass-failed -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link"
# Ninja for a new folder, as scripts/build.sh does (a folder configured before keeps its generator).
generator=()
[ -f build-asan/CMakeCache.txt ] || generator=(-G Ninja)
CC=clang CXX=clang++ cmake -S . -B build-asan "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREDRAW_CUDA=OFF -DREDRAW_GUI=ON -DREDRAW_PCH=ON -DREDRAW_PYTHON=OFF \
  -DREDRAW_FUZZ=ON -DREDRAW_TEST_LD_PRELOAD="$root/build-asan/libdlclose_noop.so" -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DREDRAW_CPU_EXTRA_OPTIONS="-O2;-fno-sanitize=fuzzer-no-link" -DREDRAW_UNIT_SHARDS=4 >/dev/null
# Only what the tests and fuzzers run (the benchmarks are not built here).
cmake --build build-asan -j"$(nproc)" --target redraw redraw_tests redraw_gui_screenshot_check redraw_gui_layout_check \
  redraw_gui_insight_check redraw_x11_close_request redraw_decoder_exit_check \
  fuzz_image fuzz_checkpoint fuzz_config fuzz_render fuzz_gui_open

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/tests/gui/lsan_gui.supp:print_suppressions=0"
# Tests with a time bound (a stop that must come promptly) allow this many times longer here:
# ASan and UBSan make the CPU backend's steps several times slower, more under load (a stop that
# took 0.4 s took 5 to 14 s there).
export REDRAW_TEST_TIME_FACTOR="${REDRAW_TEST_TIME_FACTOR:-10}"
export ASAN_SYMBOLIZER_PATH="$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)"
echo "sanitize: ctest under ASan + UBSan"
# The install and package checks run in the first stage; an installed, instrumented GUI would
# report the GL driver's leaks without the suppression set-up of the build tree's GUI tests.
# The kernel-family reruns (label kernels) belong to the first stage.
# Left to the first stage as well: the scripts' own tests (label scripts: nothing instrumented runs) and
# the long fits (the PSNR floor, the per-format fit: the same code runs here in shorter tests), and
# the every-preset bit comparison at 1 to 32 threads (its longest test, a seventh of its test time: it compares
# bits, which instrumentation cannot change, and the same team code runs here in the 1-to-4-thread
# weights test and every CPU training test).
# A test that failed only because LeakSanitizer's tracer crashed at its exit (a rare fault of the
# sanitizer runtime: no leak, no test result) is rerun once, alone; scripts/lsan_tracer_rerun.sh
# reruns nothing else.
# The unit-test cases run as four entries of a quarter each (REDRAW_UNIT_SHARDS: an instrumented
# process takes 0.2 s to start and end, more than most cases), the cases named here left out.
export REDRAW_UNIT_EXCLUDE="end to end: a SIREN learns the cameraman*,formats: a short SIREN fit*,every preset trains the same bits at*"
if ! (cd build-asan && ctest --output-on-failure -j"$(nproc)" -LE "packaging|kernels|scripts" "$@"); then
  bash scripts/lsan_tracer_rerun.sh build-asan
fi

seconds="${REDRAW_FUZZ_SECONDS:-30}"
seed="${REDRAW_FUZZ_SEED:-1}"
mkdir -p build-asan/fuzz-artifacts
# Each target is one single-threaded process, so they run side by side, one per core: every
# target still gets its full time (libFuzzer's -max_total_time is wall time) in less total time.
# The model reader is held to 600 MB (the floor for any model file whose declared network is small:
# fuzz_support.h leaves larger networks out), with a small ASan quarantine so freed memory is not
# counted against it; its seeds include chunk-size bombs (tests/model_bombs.py).
fuzz_one() {
  local target="$1" work rss=2048
  [ "$target" = checkpoint ] && rss=600
  work="$(mktemp -d)" # new corpus entries go here, never into the source tree
  ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}quarantine_size_mb=16" \
  build-asan/bin/fuzz_$target -max_total_time="$seconds" -seed="$seed" -timeout=10 -rss_limit_mb="$rss" -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="build-asan/fuzz-artifacts/$target-" \
    "$work" "tests/fuzz/corpus/$target" >"build-asan/fuzz-$target.log" 2>&1
  local rc=$?
  rm -rf "$work"
  return $rc
}
targets=(image checkpoint config render gui_open)
jobs_max="$(nproc)"
declare -A pid_of=()
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  echo "sanitize: fuzz_$target for ${seconds}s"
  fuzz_one "$target" &
  pid_of[$target]=$!
done
status=0
for target in "${targets[@]}"; do
  if ! wait "${pid_of[$target]}"; then
    echo "FAIL: fuzz_$target (see build-asan/fuzz-$target.log and build-asan/fuzz-artifacts/)"
    tail -40 "build-asan/fuzz-$target.log"
    status=1
  else
    echo "fuzz_$target: $(grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build-asan/fuzz-$target.log" | tr '\n' ' ')"
  fi
done
[ "$status" -eq 0 ] && echo "sanitize: fuzzing clean"
exit "$status"
