#!/usr/bin/env bash
# `train` at full resolution on a 1024x1024 picture (512x512 in an instrumented build) stops
# promptly on SIGTERM, SIGINT or SIGHUP, whatever its preset: a step in progress is left between
# its chunks and the last finished one is saved (a model that opens), or, before the first step
# finished, a clear line and no files. A second signal during the save is told it is saving and
# does not cut it short; a third ends the process at once, leaving the earlier files whole. Usage: train_signals.sh path/to/redraw
#
# "Promptly" is counted in work, not in time: the CPU time the process spends after the signal
# (all its threads), which a busy machine does not stretch as it stretches the wall clock. Within
# 10 s of CPU (before the step checked a stop flag, SIREN took 44 s of wall time on 2 threads;
# the 2 s wall floor on a quiet machine is measured by bench/stop_latency.sh).
set -u
redraw="$1"
. "$(dirname "$0")/../lib.sh"
# The bound is for an optimised build; an instrumented one (scripts/sanitize.sh sets the factor)
# runs every step several times slower, so the bound scales with it.
bound_ms=$(( 10000 * ${REDRAW_TEST_TIME_FACTOR:-1} ))
tick_ms=$(( 1000 / $(getconf CLK_TCK) ))
# The CPU time (ms, user + system, every thread) a live process has used so far.
proc_cpu_ms() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  local fields=(${stat##*) })
  echo $(( (fields[11] + fields[12]) * tick_ms ))
}
# Sets children_ms: the CPU time (ms) of this shell's children that have ended and been waited
# for. bash's `times` in this shell itself (in a subshell it would count the subshell's children).
to_ms() { local m="${1%%m*}" s="${1#*m}"; s="${s%s}"; echo $(( m * 60000 + 10#${s%.*} * 1000 + 10#${s#*.} )); }
children_cpu() {
  times >"$work/times"
  local user sys
  read -r user sys < <(tail -1 "$work/times")
  children_ms=$(( $(to_ms "$user") + $(to_ms "$sys") ))
}
temps_in() { find "$1" -maxdepth 1 -name '.redraw-*.tmp*' 2>/dev/null | wc -l; }
# 1 MP: a SIREN step takes many seconds on a CPU (a stop lands inside it), and its chunks are many
# (a stop is checked between them); 4 MP checked the same at four times the work (151 s under ASan).
# An instrumented build (a time factor over 1) takes a quarter of that, 512 x 512: its steps are
# still longer than an optimised build's at 1 MP (ASan makes them four to ten times slower), so every
# stop still lands inside a step, and the test takes 60 s there, not 160.
side=1024
[ "${REDRAW_TEST_TIME_FACTOR:-1}" -gt 1 ] && side=512
make_png "$work/photo.png" "$side" "$side"

# stop NAME SIG CODE WAIT_FOR [ARGS...]: train NAME, send SIG once WAIT_FOR (a condition) holds,
# check the exit code and that it came within the bound; stderr in $work/NAME.err.
stop() {
  local name="$1" sig="$2" code="$3" cond="$4"
  shift 4
  "$redraw" train "$work/photo.png" --full --out "$work/$name" "$@" >"$work/$name.out" 2>"$work/$name.err" &
  local pid=$!
  pids+=("$pid")
  if ! wait_for 120 "$cond"; then
    fail "$name: never reached '$cond'"; cat "$work/$name.err"; return
  fi
  local t0=$EPOCHREALTIME before_children before_self
  children_cpu
  before_children=$children_ms
  before_self=$(proc_cpu_ms "$pid")
  kill -"$sig" "$pid"
  wait "$pid"
  local got=$?
  local ms=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
  children_cpu
  local cpu=$(( children_ms - before_children - before_self ))
  echo "$name: SIG$sig -> exit $got after $ms ms, $cpu ms of CPU after the signal"
  check "[ $got = $code ]  # $name exit code"
  check "[ $cpu -lt $bound_ms ]  # $name stopped promptly ($cpu ms of CPU)"
  check "[ \"\$(temps_in '$work/$name')\" = 0 ]  # $name left no temp file"
}

# SIREN takes far longer than a few seconds a full-batch step at 1 MP on a CPU: stopped inside
# the first step, it says so and leaves no folder.
stop siren TERM 143 "grep -q \"training 'siren'\" '$work/siren.err' && sleep 1" --preset siren
check "grep -q 'stopped before the first step finished: nothing was written' '$work/siren.err'"
check "[ ! -e '$work/siren' ]  # no partial files"

# instant and classic finish steps: the last one is saved and opens.
stop instant TERM 143 "grep -q 'step [0-9]' '$work/instant.err'" --preset instant
check "'$redraw' info '$work/instant/model.redraw' >/dev/null 2>&1  # the instant model opens"
stop classic INT 130 "grep -q 'step [0-9]' '$work/classic.err'" --preset classic
check "'$redraw' info '$work/classic/model.redraw' >/dev/null 2>&1  # the classic model opens"

# SIGHUP (the terminal closed, the ssh connection dropped) is SIGTERM: saved, exit 129.
stop hup HUP 129 "grep -q 'step [0-9]' '$work/hup.err'" --preset classic
check "'$redraw' info '$work/hup/model.redraw' >/dev/null 2>&1  # saved on SIGHUP"

# A second signal while it saves: told so, and the save completes.
REDRAW_TEST_SLOW_SAVE_MS=1500 "$redraw" train "$work/photo.png" --max-side 64 --preset classic --out "$work/twice" \
  >/dev/null 2>"$work/twice.err" &
pid=$!
pids+=("$pid")
if wait_for 60 "grep -q 'step [0-9]' '$work/twice.err'"; then
  kill -TERM "$pid"
  wait_for 10 "[ \"\$(temps_in '$work/twice')\" -gt 0 ]" # in the save
  kill -TERM "$pid"
  wait "$pid"
  code=$?
  check "[ $code = 143 ]  # twice: exit code"
  check "grep -q 'stopping: saving the run so far' '$work/twice.err'"
  check "'$redraw' info '$work/twice/model.redraw' >/dev/null 2>&1  # the save was not cut short"
else
  fail "twice: train never started"
fi

# A third signal ends it at once: the earlier checkpoint stays whole.
REDRAW_TEST_SLOW_SAVE_MS=3000 "$redraw" train "$work/photo.png" --max-side 64 --preset classic --out "$work/thrice" \
  --checkpoint-every 20 >/dev/null 2>"$work/thrice.err" &
pid=$!
pids+=("$pid")
if wait_for 60 "[ -s '$work/thrice/model.redraw' ]"; then
  kill -TERM "$pid"
  wait_for 10 "grep -q 'interrupted: saving' '$work/thrice.err'"
  kill -TERM "$pid"
  sleep 0.2
  children_cpu
  before_children=$children_ms
  before_self=$(proc_cpu_ms "$pid")
  kill -TERM "$pid"
  wait "$pid"
  code=$?
  children_cpu
  cpu=$(( children_ms - before_children - before_self ))
  # At once: no more than a tick or two of work (the slow save sleeps; it does not compute).
  check "[ $code = 143 ] && [ $cpu -lt $(( 200 * ${REDRAW_TEST_TIME_FACTOR:-1} )) ]  # thrice: ended at once ($cpu ms of CPU)"
  check "'$redraw' info '$work/thrice/model.redraw' >/dev/null 2>&1  # the earlier checkpoint is whole"
else
  fail "thrice: no checkpoint was written"
fi
finish train_signals
