#!/usr/bin/env bash
# SIGTERM and SIGHUP (the login session's end) to a training GUI: it autosaves the run before it
# exits (128 + the signal), and leaves the autosave with its session lock so the next launch
# offers to restore it. Usage: gui_signals.sh path/to/redraw path/to/assets path/to/tiny.json
set -u
redraw="$1"
assets="$2"
preset="$3"
. "$(dirname "$0")/../lib.sh"
# After a failed check, the exit status and the GUI's own output: a sanitizer's report (or its
# tracer crashing at exit, which scripts/lsan_tracer_rerun.sh reruns) shows in the test's log.
failures_before=0
show_log_if_failed() {
  if [ "$failures" -gt "$failures_before" ]; then
    echo "--- $1: exit status $(cat "$1/rc" 2>/dev/null || echo none); the GUI's output:"
    tail -n 60 "$1/log"
    echo "---"
  fi
  failures_before=$failures
}
for sig in TERM HUP; do
  d="$work/$sig"
  mkdir -p "$d"
  export XDG_CONFIG_HOME="$d/config" XDG_DATA_HOME="$d/data"
  # The signal comes once the run has trained 20 steps (a state, not a fixed time): the script
  # marks that, then waits far longer than the test for a file that never appears.
  printf 'wait step>=20\nexec touch %s/trained\nwait_within 3600 file_exists %s/never\n' "$d" "$d" >"$d/script.txt"
  # xvfb-run does not pass signals on: the GUI's own pid is written to a file and signalled.
  xvfb-run -a -s "-screen 0 1280x800x24" sh -c '"$@" & echo $! >"'"$d"'/pid"; wait $!; echo $? >"'"$d"'/rc"' sh \
    "$redraw" gui "$assets/default.png" --preset "$preset" --backend cpu --autostart \
    --test-script "$d/script.txt" >"$d/log" 2>&1 &
  runner=$!
  check "wait_for 60 '[ -s \"$d/pid\" ]'"
  pid="$(cat "$d/pid")"
  lock="$d/data/redraw/autosave/session-$pid.lock"
  check "wait_for 60 '[ -e \"$lock\" ]'"
  check "wait_for 180 '[ -e \"$d/trained\" ]'  # trained 20 steps"
  kill -"$sig" "$pid"
  check "wait_for 90 '[ -s \"$d/rc\" ]'"
  wait "$runner" 2>/dev/null
  model="$d/data/redraw/autosave/autosave-$pid.redraw"
  want=$((128 + $(kill -l "$sig")))
  check "[ \"\$(cat '$d/rc')\" = $want ]  # exit status after SIG$sig"
  step="$("$redraw" info --json "$model" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["step"])' 2>/dev/null)"
  check "[ -n '$step' ] && [ '${step:-0}' -ge 20 ]  # the run was autosaved at step ${step:-none}"
  check "[ -e '$lock' ] && grep -q 'autosaved to' '$d/log'  # kept for the restore offer"
  show_log_if_failed "$d"
done

# The autosave folder cannot take the model (a folder stands at its name, as a full disk fails a
# write): the run goes to the private fallback folder ($TMPDIR/redraw-<uid>/autosave), the line
# says what failed and where the run went, and that is where the next launch finds it.
d="$work/fallback"
mkdir -p "$d/tmp"
export XDG_CONFIG_HOME="$d/config" XDG_DATA_HOME="$d/data" TMPDIR="$d/tmp"
printf 'wait step>=20\nexec touch %s/trained\nwait_within 3600 file_exists %s/never\n' "$d" "$d" >"$d/script.txt"
xvfb-run -a -s "-screen 0 1280x800x24" sh -c '"$@" & echo $! >"'"$d"'/pid"; wait $!; echo $? >"'"$d"'/rc"' sh \
  "$redraw" gui "$assets/default.png" --preset "$preset" --backend cpu --autostart \
  --test-script "$d/script.txt" >"$d/log" 2>&1 &
runner=$!
check "wait_for 60 '[ -s \"$d/pid\" ]'"
pid="$(cat "$d/pid")"
check "wait_for 60 '[ -e \"$d/data/redraw/autosave/session-$pid.lock\" ]'"
mkdir -p "$d/data/redraw/autosave/autosave-$pid.redraw/blocked"
check "wait_for 180 '[ -e \"$d/trained\" ]'  # trained 20 steps"
kill -TERM "$pid"
check "wait_for 90 '[ -s \"$d/rc\" ]'"
wait "$runner" 2>/dev/null
fallback="$d/tmp/redraw-$(id -u)/autosave"
check "[ \"\$(cat '$d/rc')\" = 143 ]"
check "grep -q 'the autosave to .*autosave-$pid.redraw failed (.*); the run was autosaved to $fallback/autosave-$pid.redraw instead' '$d/log'"
check "'$redraw' info '$fallback/autosave-$pid.redraw' >/dev/null 2>&1 && [ -e '$fallback/session-$pid.lock' ]"
check "[ ! -e '$d/data/redraw/autosave/session-$pid.lock' ]  # the session moved to the fallback folder"
show_log_if_failed "$d"
finish gui_signals
