#!/usr/bin/env bash
# After a failed ctest run under ASan (scripts/sanitize.sh): reruns once, alone, the failed tests
# whose failure was LeakSanitizer's own tracer crashing at exit ("Tracer caught signal 11" and
# "LeakSanitizer has encountered a fatal error" in the test's output), a rare crash of the
# sanitizer runtime's stop-the-world step that reports no leak and no test result. Nothing else is
# ever rerun: when any failed test's output lacks that signature, or shows a sanitizer report, this
# exits 1 at once and names the failures. A rerun that fails again fails the stage.
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
# "Test Failed." (ctest writes a block whole when its test ends). Prints the number of each failed
# test whose block carries the tracer signature and no sanitizer report.
tracer_only="$(awk '
  /^[0-9]+\/[0-9]+ Testing: / { split($1, nm, "/"); num = nm[1]; tracer = 0; fatal = 0; report = 0; next }
  /Tracer caught signal/ { tracer = 1 }
  /LeakSanitizer has encountered a fatal error/ { fatal = 1 }
  /ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error:|SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer/ { report = 1 }
  /^Test (Failed|Passed)|^Test .*(Exception|Timeout|Child aborted)/ {
    if (num != "" && tracer && fatal && !report) print num
    num = ""
  }' "$log" | sort -n | uniq)"
mapfile -t failed < <(cut -d: -f1 "$failed_list" | sort -n | uniq)
real=()
for n in "${failed[@]}"; do
  if ! grep -qx "$n" <<<"$tracer_only"; then real+=("$n"); fi
done
if [ "${#real[@]}" -gt 0 ]; then
  echo "lsan rerun: not rerun, these failures are not the tracer crash:"
  for n in "${real[@]}"; do grep "^$n:" "$failed_list" | sed 's/^/  /'; done
  exit 1
fi
echo "lsan rerun: LeakSanitizer's tracer crashed at the exit of (no leak or test result was reported):"
sed 's/^/  /' "$failed_list"
echo "lsan rerun: running them once more, alone"
numbers="$(IFS=,; echo "${failed[*]}")"
(cd "$build" && ctest --output-on-failure -I "0,0,0,$numbers" "$@")
