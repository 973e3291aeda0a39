#!/usr/bin/env bash
# Runs the chosen ctest tests N times in build/ and prints how often each passed: a flaky test
# shows as less than N of N. --busy keeps one busy process (a shell loop) running beside them.
#   scripts/stress_tests.sh N [--busy] [CTEST_REGEX]
# Exits non-zero when any test failed any run. Build first (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 N [--busy] [CTEST_REGEX]" >&2; exit 2; }
runs="$1"
shift
busy=0
if [ "${1:-}" = "--busy" ]; then busy=1; shift; fi
regex="${1:-.}"
busy_pid=""
if [ "$busy" = 1 ]; then
  bash -c 'while :; do :; done' &
  busy_pid=$!
fi
trap '[ -n "$busy_pid" ] && kill "$busy_pid" 2>/dev/null || true' EXIT
log="$(mktemp)"
for ((i = 1; i <= runs; ++i)); do
  (cd build && ctest -R "$regex" -j"$(nproc)" --timeout 900 2>&1 || true) |
    grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' >>"$log"
  echo "stress: run $i of $runs done ($(grep -c ' Passed' "$log") passed, $(grep -Evc ' Passed| Skipped|Not Run' "$log") failed so far)" >&2
done
echo "| test | passed | skipped | of |"
echo "|---|---|---|---|"
awk -v runs="$runs" '{
  name = $0; sub(/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: /, "", name)
  sub(/ \.* *(Passed|\*\*\*|Failed|Skipped|Not Run|Exception).*$/, "", name)
  seen[name]++; if ($0 ~ / Passed/) ok[name]++; if ($0 ~ / Skipped|Not Run/) skip[name]++
} END { for (n in seen) printf "| %s | %d | %d | %d |\n", n, ok[n], skip[n], runs }' "$log" | sort
failed=$(grep -Evc ' Passed| Skipped|Not Run' "$log" || true)
rm -f "$log"
echo "stress: $runs runs of '$regex'$([ "$busy" = 1 ] && echo ' beside a busy process'): $failed failed results"
[ "$failed" -eq 0 ]
