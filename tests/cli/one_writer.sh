#!/usr/bin/env bash
# One writer per output folder: a second `train` on the same --out is refused naming the first
# (its pid); the first runs on and its SIGTERM save still works; a lock left by kill -9 is stale
# and taken over. Usage: one_writer.sh path/to/redraw
set -u
redraw="$1"
. "$(dirname "$0")/../lib.sh"
tiny_config "$work/long.json" 100000000 50
make_png "$work/img.png" 32 24
out="$work/out"
"$redraw" train "$work/img.png" --config "$work/long.json" --out "$out" --quiet >/dev/null 2>"$work/first.err" &
first=$!
pids+=("$first")
check 'wait_for 60 "[ -e \"$out/.redraw-lock\" ]"'
"$redraw" train "$work/img.png" --config "$work/long.json" --steps 5 --out "$out" >/dev/null 2>"$work/second.err"
rc=$?
check "[ $rc = 1 ] && grep -q '^error: .*another redraw is writing to this folder (redraw train .*pid $first' '$work/second.err'"
check 'kill -0 "$first"  # the first runs on'
kill -TERM "$first"
wait "$first"
rc=$?
check "[ $rc != 0 ] && [ -s '$out/model.redraw' ] && [ ! -e '$out/.redraw-lock' ]  # SIGTERM saved, lock released"
# --resume into the same folder, then kill -9: the lock file stays, its holder is gone
"$redraw" train "$work/img.png" --resume "$out/model.redraw" --steps 100000000 --out "$out" --quiet >/dev/null 2>&1 &
third=$!
pids+=("$third")
check 'wait_for 60 "[ -e \"$out/.redraw-lock\" ] && grep -q \"pid $third\" \"$out/.redraw-lock\""'
kill -9 "$third"
wait "$third" 2>/dev/null
check '[ -e "$out/.redraw-lock" ]'
"$redraw" train "$work/img.png" --config "$work/long.json" --steps 5 --out "$out" >/dev/null 2>"$work/fourth.err"
check "[ \$? = 0 ] && [ ! -e '$out/.redraw-lock' ]  # a stale lock is taken over"
finish one_writer
