#!/usr/bin/env bash
# scripts/lsan_tracer_rerun.sh on made-up ctest logs, with a fake ctest that records its arguments:
# a failure that is LeakSanitizer's tracer crash alone is rerun once, by its name, and the
# rerun's status is the result, and a test ctest did not run because of it is rerun with it; a real
# failure beside it, a sanitizer report in the same output, a crash without LSan's fatal-error
# line, a test not run without a tracer crash, or missing logs are never rerun.
#   lsan_rerun_logic.sh SOURCE_DIR
set -uo pipefail
src="$1"
. "$(dirname "$0")/../lib.sh"
script="$src/scripts/lsan_tracer_rerun.sh"
mkdir -p "$work/path"
cat >"$work/path/ctest" <<'EOF'
#!/bin/sh
echo "$*" >>"$FAKE_CTEST_CALLS"
exit "${FAKE_CTEST_RC:-0}"
EOF
chmod +x "$work/path/ctest"
export PATH="$work/path:$PATH" FAKE_CTEST_CALLS="$work/calls"

block() { # block NUMBER NAME STATUS OUTPUT: one test's block as ctest writes it in LastTest.log
  printf -- '----------------------------------------------------------\n%s/40 Testing: %s\n%s/40 Test: %s\n' \
    "$1" "$2" "$1" "$2"
  printf 'Output:\n----------------------------------------------------------\n%s\n<end of output>\n' "$4"
  printf 'Test time =   1.00 sec\n----------------------------------------------------------\n%s\n\n' "$3"
}
notrun_block() { # notrun_block NUMBER NAME: a test ctest did not run (a fixture it requires failed)
  printf -- '----------------------------------------------------------\n%s/40 Testing: %s\n%s/40 Test: %s\n' \
    "$1" "$2" "$1" "$2"
  printf 'Command: ""\nDirectory: /b/tests\n"%s" start time: \nOutput:\n' "$2"
  printf -- '----------------------------------------------------------\n<end of output>\nTest time =   0.00 sec\n'
  printf -- '----------------------------------------------------------\nTest Passed.\n\n'
}
tracer=$'ok: every line\nTracer caught signal 11: addr=0x0 pc=0x1 sp=0x2\n==1==LeakSanitizer has encountered a fatal error.'
# make_build DIR FAILED_LIST LOG_BLOCKS...
make_build() {
  local dir="$1" list="$2"
  shift 2
  rm -rf "$dir" "$work/calls"
  mkdir -p "$dir/Testing/Temporary"
  printf '%b' "$list" >"$dir/Testing/Temporary/LastTestsFailed.log"
  printf '%s' "$*" >"$dir/Testing/Temporary/LastTest.log"
}
calls() { cat "$work/calls" 2>/dev/null; }

b="$work/b"
make_build "$b" '12:gui_compare_runs\n' "$(block 3 passing 'Test Passed.' 'fine')" \
  "$(block 12 gui_compare_runs 'Test Failed.' "$tracer")"
expect 0 "running them once more" -- bash "$script" "$b"
check '[ "$(calls)" = "--output-on-failure -R ^(gui_compare_runs)$" ]'

rm -f "$work/calls"
FAKE_CTEST_RC=8 expect 8 "" -- bash "$script" "$b"
check_run "a rerun that fails again fails" test "$(calls)" = "--output-on-failure -R ^(gui_compare_runs)$"

make_build "$b" '7:gui a (1/2) [x]\n12:gui_b\n' "$(block 12 gui_b 'Test Failed.' "$tracer")" \
  "$(block 7 'gui a (1/2) [x]' 'Test Failed.' "$tracer")"
expect 0 "" -- bash "$script" "$b"
check_run "two tracer crashes are rerun by their names, escaped" \
  test "$(calls)" = '--output-on-failure -R ^(gui a \(1/2\) \[x\]|gui_b)$'

make_build "$b" '361:gui_compare_runs\n362:gui_compare_runs_check\n' \
  "$(block 361 gui_compare_runs 'Test Failed.' "$tracer")" "$(notrun_block 362 gui_compare_runs_check)"
expect 0 "did not run because of it" -- bash "$script" "$b"
check_run "the check a tracer crash kept from running is rerun with it" \
  test "$(calls)" = "--output-on-failure -R ^(gui_compare_runs|gui_compare_runs_check)$"

make_build "$b" '362:gui_compare_runs_check\n' "$(notrun_block 362 gui_compare_runs_check)"
expect 1 "none of the failures is the tracer crash" -- bash "$script" "$b"
check_run "a test not run, with no tracer crash: nothing rerun" test -z "$(calls)"

make_build "$b" '7:engine_test\n8:engine_check\n' \
  "$(block 7 engine_test 'Test Failed.' $'[doctest] Status: FAILURE!')" "$(notrun_block 8 engine_check)"
expect 1 "7:engine_test" -- bash "$script" "$b"
check_run "a real failure and the check it kept from running: nothing rerun" test -z "$(calls)"

make_build "$b" '7:engine_test\n12:gui_b\n' "$(block 12 gui_b 'Test Failed.' "$tracer")" \
  "$(block 7 engine_test 'Test Failed.' $'[doctest] Status: FAILURE!')"
expect 1 "7:engine_test" -- bash "$script" "$b"
check_run "a real failure beside a tracer crash: nothing rerun" test -z "$(calls)"

make_build "$b" '12:gui_b\n' "$(block 12 gui_b 'Test Failed.' \
  $'==1==ERROR: LeakSanitizer: detected memory leaks\nSUMMARY: AddressSanitizer: 64 byte(s) leaked\n'"$tracer")"
expect 1 "12:gui_b" -- bash "$script" "$b"
check_run "a sanitizer report in the output: nothing rerun" test -z "$(calls)"

make_build "$b" '12:gui_b\n' "$(block 12 gui_b 'Test Failed.' $'Tracer caught signal 11: addr=0x0')"
expect 1 "12:gui_b" -- bash "$script" "$b"
check_run "the tracer line without LSan's fatal error: nothing rerun" test -z "$(calls)"

make_build "$b" '12:gui_b\n' "$(block 3 other 'Test Passed.' "$tracer")" \
  "$(block 12 gui_b 'Test Failed.' 'FAIL: line 4')"
expect 1 "12:gui_b" -- bash "$script" "$b"
check_run "the signature in another test's block does not count" test -z "$(calls)"

rm -rf "$b" "$work/calls"
mkdir -p "$b"
expect 1 "nothing to rerun" -- bash "$script" "$b"
check_run "no logs: nothing rerun" test -z "$(calls)"
finish lsan_rerun_logic
