#!/usr/bin/env bash
# After a failed ctest run under ASan (scripts/sanitize.sh): reruns once, alone, the failed tests
# whose failure was LeakSanitizer's own tracer crashing at exit ("Tracer caught signal 11" and
# "LeakSanitizer has encountered a fatal error" in the test's output), a rare crash of the
# sanitizer runtime's stop-the-world step that reports no leak and no test result. The tests ctest
# did not run because such a test failed (a fixture's check: its block's command is empty) are
# rerun with them. Nothing else is ever rerun: when any other failed test's output lacks that
# signature, or shows a sanitizer report, or when no failure is the tracer crash, this exits 1 at
# once and names the failures. A rerun that fails again fails the stage.
# Usage: scripts/lsan_tracer_rerun.sh BUILD_DIR [ctest args...]
# (BUILD_DIR/Testing/Temporary holds the failed run's LastTestsFailed.log and LastTest.log.)
set -euo pipefail
build="$1"
shift
failed_list="$build/Testing/Temporary/LastTestsFailed.log"
log="$build/Testing/Temporary/LastTest.log"
if [ ! -s "$failed_list" ] || [ ! -f "$log" ]; then
  echo "lsan rerun: no list of failed tests in $build/Testing/Temporary: nothing to rerun"
  exit 1
fi
# Each test's block in LastTest.log runs from "N/M Testing: NAME" to "Test Passed." or
# "Test Failed." (ctest writes a block whole when its test ends). Prints "T N" for each test N
# whose block carries the tracer signature and no sanitizer report, and "N N" for each test that
# was not run (ctest writes its block with an empty command).
blocks="$(awk '
  /^[0-9]+\/[0-9]+ Testing: / { split($1, nm, "/"); num = nm[1]; tracer = 0; fatal = 0; report = 0; notrun = 0; next }
  /^Command: ""$/ { notrun = 1 }
  /Tracer caught signal/ { tracer = 1 }
  /LeakSanitizer has encountered a fatal error/ { fatal = 1 }
  /ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error:|SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer/ { report = 1 }
  /^Test (Failed|Passed)|^Test .*(Exception|Timeout|Child aborted)/ {
    if (num != "" && tracer && fatal && !report) print "T " num
    else if (num != "" && notrun) print "N " num
    num = ""
  }' "$log" | sort -k2n | uniq)"
tracer_only="$(awk '$1 == "T" { print $2 }' <<<"$blocks")"
not_run="$(awk '$1 == "N" { print $2 }' <<<"$blocks")"
mapfile -t failed < <(cut -d: -f1 "$failed_list" | sort -n | uniq)
real=()
crashes=0
for n in "${failed[@]}"; do
  if grep -qx "$n" <<<"$tracer_only"; then
    crashes=$((crashes + 1))
  elif ! grep -qx "$n" <<<"$not_run"; then
    real+=("$n")
  fi
done
if [ "${#real[@]}" -gt 0 ] || [ "$crashes" -eq 0 ]; then
  echo "lsan rerun: not rerun, these failures are not the tracer crash:"
  for n in "${real[@]}"; do grep "^$n:" "$failed_list" | sed 's/^/  /'; done
  [ "$crashes" -gt 0 ] || echo "  (none of the failures is the tracer crash)"
  exit 1
fi
echo "lsan rerun: LeakSanitizer's tracer crashed at the exit of (no leak or test result was reported),"
echo "or ctest did not run because of it:"
sed 's/^/  /' "$failed_list"
echo "lsan rerun: running them once more, alone"
# By name, each anchored and its regular-expression characters escaped: a test's number can change
# when the build directory is configured again (two tests moved by two after the fuzzing step).
names=""
while IFS= read -r line; do
  name="$(printf '%s' "${line#*:}" | sed 's/[][\\^$.*+?()|{}]/\\&/g')"
  names="${names:+$names|}$name"
done <"$failed_list"
(cd "$build" && ctest --output-on-failure -R "^($names)\$" "$@")
