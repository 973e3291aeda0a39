#!/usr/bin/env bash
# scripts/gpu_check.sh's bookkeeping, on a machine without a GPU: a fake pack (stub binaries), a
# fake nvidia-smi and compute-sanitizer stand in for the device. Checks that every part's timeouts
# add up to at most 480 s (`list`), that `run` refuses parts that add up to more, that a finished
# part's JSON says ok with its steps, that a part killed mid-step (SIGKILL, as at the device call's
# limit, and SIGTERM) still leaves its JSON saying "incomplete" with the step it stopped in and what
# the steps before it measured, and that the report reads it all.
#   gpu_check_logic.sh SOURCE_DIR
set -uo pipefail
src="$1"
. "$(dirname "$0")/../lib.sh"
tmp="$work"
jq_py() { # jq_py FILE EXPR: exit 0 when the Python expression on j (the JSON) is true
  python3 -c "import json,sys; j=json.load(open('$1')); sys.exit(0 if ($2) else 1)"
}
cd "$src"

# -- list: every part within one call --------------------------------------------------------
list="$(bash scripts/gpu_check.sh list)"
echo "$list" | grep -E '^[a-z-]+: '
check_run "list names all 11 parts" test "$(echo "$list" | grep -cE '^[a-z-]+: [0-9]+ s of timeouts')" -eq 11
check_run "no part's timeouts add up to more than 480 s" \
  bash -c "! echo \"\$1\" | awk '/ s of timeouts/ { if (\$2 + 0 > 480) bad = 1 } END { exit !bad }'" _ "$list"
check_run "the sanitize part runs memcheck, racecheck and synccheck" \
  bash -c "bash scripts/gpu_check.sh list sanitize | grep -c -E '^  (memcheck|racecheck|synccheck) ' | grep -qx 3"

# -- a fake device ---------------------------------------------------------------------------
pack="$tmp/pack"
mkdir -p "$pack/bin" "$pack/lib" "$pack/samples" "$tmp/path" "$tmp/cublas"
echo fake >"$pack/REVISION"
cat >"$tmp/path/nvidia-smi" <<'EOF'
#!/bin/sh
[ "$1" = -L ] && { echo "GPU 0: Fake GPU"; exit 0; }
echo "Fake GPU, 81559 MiB, 999.0"
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
cat >"$tmp/path/compute-sanitizer" <<'EOF'
#!/bin/sh
echo "========= COMPUTE-SANITIZER"
"$@" 2>&1 | sed 's/^/  /'
echo "========= ERROR SUMMARY: 0 errors"
EOF
chmod +x "$tmp/path/"* "$pack/bin/"*
export REDRAW_GPU_PACK="$pack" REDRAW_CUBLAS_DIR="$tmp/cublas" PATH="$tmp/path:$PATH"

# -- a part that finishes --------------------------------------------------------------------
OUT="$tmp/r1" bash scripts/gpu_check.sh run tests >"$tmp/r1.out" 2>&1
check_run "a finished tests part exits 0" test $? -eq 0
check_run "its JSON says ok with 5 steps finished" \
  jq_py "$tmp/r1/tests.json" "j['status'] == 'ok' and len(j['steps_finished']) == 5 and len(j['suites']) == 2"
OUT="$tmp/r1" bash scripts/gpu_check.sh run sanitize >"$tmp/r1s.out" 2>&1
check_run "the sanitize part's JSON holds all three tools, clean" \
  jq_py "$tmp/r1/sanitize.json" "j['status'] == 'ok' and sorted(j['tools']) == ['memcheck', 'racecheck', 'synccheck'] and all(t['errors'] == 0 for t in j['tools'].values())"

# -- the full-resolution floor: the bench's table and share in the JSON, the floor judged ----------
OUT="$tmp/r5" bash scripts/gpu_check.sh run fullres >"$tmp/r5.out" 2>&1
check_run "a fullres part at 0.90 of the 1 MP rate says ok" \
  jq_py "$tmp/r5/fullres.json" "j['status'] == 'ok' and j['fullres']['share'] == 0.9 and len(j['fullres']['rows']) == 4"
check_run "  with both sizes in both rounds" \
  jq_py "$tmp/r5/fullres.json" "sorted((r['side'], r['round']) for r in j['fullres']['rows']) == [(1000, 1), (1000, 2), (10000, 1), (10000, 2)]"
FAKE_FULL_STEPS=200 OUT="$tmp/r6" bash scripts/gpu_check.sh run fullres >"$tmp/r6.out" 2>&1
check_run "a fullres part at 0.67 fails, naming the floor" \
  jq_py "$tmp/r6/fullres.json" "j['status'] == 'failed' and '0.67' in j['reason'] and '0.80' in j['reason']"
check_run "  and the report prints its table" \
  bash -c "python3 bench/gpu_report.py '$tmp/r6' | grep -q '^| 10000 px | 2 | 6.7 |'"

# -- two parts in one call are refused -------------------------------------------------------
OUT="$tmp/r2" bash scripts/gpu_check.sh run tests sanitize >"$tmp/r2.out" 2>&1
rc=$?
check_run "run tests sanitize (960 s of timeouts) is refused" test $rc -eq 2
check_run "  and says why" grep -q "run one part per call" "$tmp/r2.out"
check_run "  and runs nothing" test ! -e "$tmp/r2/tests.json"

# -- a part killed mid-step ------------------------------------------------------------------
# interrupt_tests_part SIGNAL STEP DIR: the tests part into DIR with STEP hanging; once it hangs,
# SIGNAL goes to the part's whole process group.
interrupt_tests_part() {
  local signal="$1" step="$2" dir="$3" pid
  mkdir -p "$dir"
  FAKE_HANG="$step" OUT="$dir" setsid bash scripts/gpu_check.sh run tests >"$dir.out" 2>&1 &
  pid=$!
  for _ in $(seq 50); do grep -q hanging "$dir/tests.log" 2>/dev/null && break; sleep 0.2; done
  kill -"$signal" -- -"$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}
# SIGKILL to the whole process group, as a device command's limit does: no trap can run.
interrupt_tests_part KILL redraw_tests "$tmp/r3"
check_run "a part killed by SIGKILL leaves its JSON" test -f "$tmp/r3/tests.json"
check_run "  saying incomplete, in the step it was in" \
  jq_py "$tmp/r3/tests.json" "j['status'] == 'incomplete' and 'redraw_tests' in j['reason']"
check_run "  with the step before it finished and measured" \
  jq_py "$tmp/r3/tests.json" "j['steps_finished'] == ['redraw_cuda_tests'] and j['suites'][0]['passed'] == 30"

# SIGTERM (the command's own timeout, Ctrl-C): the trap names the signal.
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
check_run "  and takes no folder of the development machine by default" \
  bash -c "! grep -n '/work/' bench/gpu_report.py scripts/gpu_check.sh scripts/gpu_check_parts.sh"
finish gpu_check_logic
