#!/usr/bin/env bash
# scripts/lsan_tracer_rerun.sh on made-up ctest logs, with a fake ctest that records its arguments:
# a failure that is LeakSanitizer's tracer crash alone is rerun once, by its test number, and the
# rerun's status is the result; a real failure beside it, a sanitizer report in the same output, a
# crash without LSan's fatal-error line, or missing logs are never rerun.
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
check '[ "$(calls)" = "--output-on-failure -I 0,0,0,12" ]'

rm -f "$work/calls"
FAKE_CTEST_RC=8 expect 8 "" -- bash "$script" "$b"
check_run "a rerun that fails again fails" test "$(calls)" = "--output-on-failure -I 0,0,0,12"

make_build "$b" '7:gui_a\n12:gui_b\n' "$(block 12 gui_b 'Test Failed.' "$tracer")" \
  "$(block 7 gui_a 'Test Failed.' "$tracer")"
expect 0 "" -- bash "$script" "$b"
check '[ "$(calls)" = "--output-on-failure -I 0,0,0,7,12" ]'

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
