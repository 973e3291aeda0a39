#!/usr/bin/env bash
# unit_shard.sh K N redraw_tests: runs the K-th of N nearly equal runs of the unit-test cases
# (doctest's cases in name order, those that REDRAW_UNIT_EXCLUDE names left out: a
# --test-case-exclude list), all in one process. For builds configured with REDRAW_UNIT_SHARDS
# (scripts/sanitize.sh), where starting an instrumented process for each of 500 cases cost
# more than many of the cases themselves.
set -u
k="$1" n="$2" bin="$3"
args=(--order-by=name)
[ -n "${REDRAW_UNIT_EXCLUDE:-}" ] && args+=("--test-case-exclude=$REDRAW_UNIT_EXCLUDE")
count="$("$bin" "${args[@]}" --count | sed -n 's/.*passing the current filters: \([0-9]*\).*/\1/p')"
if ! [ "${count:-}" -gt 0 ] 2>/dev/null; then
  echo "unit_shard: $bin --count found no test case (${count:-no count})"
  exit 1
fi
first=$(((k - 1) * count / n + 1))
last=$((k * count / n))
echo "unit_shard: cases $first to $last of $count"
exec "$bin" "${args[@]}" --first="$first" --last="$last"
