#!/usr/bin/env bash
# Fault tests: kill -9 during training and during a save (then resume), a full disk (a file-size
# limit), an injected NaN, and SIGINT/SIGTERM during train, render and timelapse export.
# Usage: fault_tests.sh path/to/redraw
set -u
redraw="$1"
. "$(dirname "$0")/../lib.sh"
temps_in() { find "$1" -maxdepth 1 -name '.redraw-*.tmp*' 2>/dev/null | wc -l; }
model_step() { "$redraw" info --json "$1" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["step"])'; }
last_printed_step() { grep -o 'step [0-9]*' "$1" | tail -1 | cut -d' ' -f2; }

cfg="$work/tiny.json"
tiny_config "$cfg" 100000000 5 adam
export REDRAW_PROGRESS_SECONDS=0 # a progress line at every metrics step (stderr is no terminal here)

# --- kill -9 during training: the model reopens and at most one checkpoint interval is lost ---
out="$work/k9"
"$redraw" train "$samples/horse.png" --config "$cfg" --max-side 24 --checkpoint-every 25 --out "$out" 2>"$work/k9.err" &
pid=$!
pids+=("$pid")
if wait_for 120 '[ -s "$out/model.redraw" ] && [ "$(last_printed_step "$work/k9.err")" -ge 200 ] 2>/dev/null'; then
  kill -9 "$pid"
  wait "$pid" 2>/dev/null
  printed="$(last_printed_step "$work/k9.err")"
  saved="$(model_step "$out/model.redraw")"
  check '[ -n "$saved" ]'
  # the process got at least to `printed` (+ up to one metrics interval); the model lost <= 25 + 5 steps
  check '[ $((printed - saved)) -le 30 ]'
  # The set is consistent, or, when the kill landed between the set's back-to-back renames (the
  # model is renamed last), the curves are one checkpoint ahead of the model; a resume repairs that.
  check '[ "$(tail -1 "$out/metrics.csv" | cut -d, -f1)" = "$saved" ] || [ "$(tail -1 "$out/metrics.csv" | cut -d, -f1)" = "$((saved + 25))" ]'
  check '[ "$(tail -1 "$out/spectrum.csv" | cut -d, -f1)" = "$saved" ] || [ "$(tail -1 "$out/spectrum.csv" | cut -d, -f1)" = "$((saved + 25))" ]'
  if "$redraw" train "$samples/horse.png" --resume "$out/model.redraw" --steps $((saved + 10)) --out "$out" --quiet >/dev/null 2>"$work/err"; then
    ok "resume after kill -9"
  else
    fail "resume after kill -9: $(cat "$work/err")"
  fi
  check '[ "$(model_step "$out/model.redraw")" = "$((saved + 10))" ]'
  check '[ "$(tail -1 "$out/metrics.csv" | cut -d, -f1)" = "$((saved + 10))" ]' # consistent again after the resume
  check '[ "$(temps_in "$out")" = 0 ]'
else
  fail "kill -9 during training: the run never reached step 200 with a checkpoint"; cat "$work/k9.err"
fi

# --- kill -9 during a save: temp files are left, the earlier model is intact, the next write cleans ---
out="$work/k9save"
REDRAW_TEST_SLOW_SAVE_MS=700 "$redraw" train "$samples/horse.png" --config "$cfg" --max-side 24 --checkpoint-every 20 \
  --out "$out" 2>"$work/k9save.err" &
pid=$!
pids+=("$pid")
if wait_for 120 '[ -s "$out/model.redraw" ] && [ "$(temps_in "$out")" -gt 0 ]'; then
  kill -9 "$pid"
  wait "$pid" 2>/dev/null
  check '[ "$(temps_in "$out")" -gt 0 ]' # what the killed save left
  saved="$(model_step "$out/model.redraw")"
  check '[ -n "$saved" ] && [ "$saved" -ge 20 ]'
  check '[ "$(tail -1 "$out/metrics.csv" | cut -d, -f1)" = "$saved" ]'
  "$redraw" train "$samples/horse.png" --resume "$out/model.redraw" --steps $((saved + 5)) --out "$out" --quiet >/dev/null 2>&1
  check '[ "$(temps_in "$out")" = 0 ]' # the dead process's temp files are gone
  check '[ "$(model_step "$out/model.redraw")" = "$((saved + 5))" ]'
else
  fail "kill -9 during a save: no save was caught in progress"; cat "$work/k9save.err"
fi

# --- a full disk (a file-size limit): a clear error, the previous outputs intact, nothing left over ---
out="$work/full"
sed 's/"steps": 100000000/"steps": 40/' "$cfg" >"$work/short.json"
"$redraw" train "$samples/horse.png" --config "$work/short.json" --max-side 24 --out "$out" --quiet >/dev/null 2>&1
mkdir -p "$work/before" && cp "$out"/* "$work/before/"
check '[ "$(stat -c %s "$out/model.redraw")" -gt 4096 ]'
(ulimit -f 4 && exec "$redraw" train "$samples/horse.png" --config "$work/short.json" --max-side 24 --seed 9 --out "$out" --quiet) \
  >/dev/null 2>"$work/full.err"
code=$?
check '[ "$code" = 1 ]'
check 'grep -q "^error: .*File too large" "$work/full.err"'
check 'cmp -s "$out/model.redraw" "$work/before/model.redraw" && cmp -s "$out/final.png" "$work/before/final.png" && cmp -s "$out/metrics.csv" "$work/before/metrics.csv" && cmp -s "$out/spectrum.csv" "$work/before/spectrum.csv"'
check '[ "$(temps_in "$out")" = 0 ]'
# a checkpoint that cannot be written mid-run is retried, reported, and the run goes on
(ulimit -f 4 && exec "$redraw" train "$samples/horse.png" --config "$work/short.json" --max-side 24 --checkpoint-every 10 \
  --out "$work/full2" --quiet) >/dev/null 2>"$work/full2.err"
check 'grep -q "checkpoint at step 10 failed" "$work/full2.err" && grep -q "training goes on" "$work/full2.err"'
check '[ ! -e "$work/full2" ]' # nothing could be written: no empty folder either

# --- an injected NaN: recovered, reported, and the run ends with a finite model ---
out="$work/nan"
REDRAW_TEST_NAN_AT_STEP=23 "$redraw" train "$samples/horse.png" --config "$work/short.json" --max-side 24 --out "$out" \
  >/dev/null 2>"$work/nan.err"
check '[ $? = 0 ]'
check 'grep -q "training diverged at step .*went back to step" "$work/nan.err"'
check 'grep -q "diverged (" "$out/metrics.csv"'
check '[ "$(model_step "$out/model.redraw")" = 40 ]'
check '"$redraw" info "$out/model.redraw" >/dev/null 2>&1'
check '"$redraw" render "$out/model.redraw" -o "$work/nan.png" >/dev/null 2>&1'

# checkpoints more often than metrics steps never save NaN: the weights are checked before each save
sed 's/"metrics_every": 5/"metrics_every": 50/' "$work/short.json" >"$work/sparse.json"
REDRAW_TEST_NAN_AT_STEP=7 "$redraw" train "$samples/horse.png" --config "$work/sparse.json" --max-side 24 --checkpoint-every 3 \
  --time-limit 60 --out "$work/sparse" >/dev/null 2>"$work/sparse.err"
check '[ $? = 0 ] && grep -q "training diverged at step [789] " "$work/sparse.err"'
check '"$redraw" info "$work/sparse/model.redraw" >/dev/null 2>&1'

# a model with NaN weights written elsewhere: info says it is damaged, render and resume refuse it
model_mutate "$work/nan/model.redraw" "$work/damaged.redraw" param 0 nan
"$redraw" info "$work/damaged.redraw" >"$work/info.out" 2>"$work/info.err"
check '[ $? = 1 ] && grep -q "DAMAGED" "$work/info.out" && grep -q "^error: .*not finite" "$work/info.err"'
"$redraw" render "$work/damaged.redraw" -o "$work/damaged.png" >/dev/null 2>"$work/err"
check '[ $? = 1 ] && grep -q "not finite" "$work/err" && [ ! -e "$work/damaged.png" ]'
"$redraw" train "$samples/horse.png" --resume "$work/damaged.redraw" --out "$work/damaged-run" >/dev/null 2>"$work/err"
check '[ $? = 1 ] && grep -q "not finite" "$work/err" && [ ! -e "$work/damaged-run" ]'
# --steps below the steps a model has done is refused, and the model is left as it was
"$redraw" train "$samples/horse.png" --resume "$work/nan/model.redraw" --steps 10 --out "$work/nan" >/dev/null 2>"$work/err"
check '[ $? = 2 ] && grep -q "below the 40 steps" "$work/err" && [ "$(model_step "$work/nan/model.redraw")" = 40 ]'

# --- weights that grow past what a model may hold (finite, over 1e6): one rule for what is kept
# and what opens. Without recoveries the run stops, and the checkpoint it says is kept renders;
# with them it goes back, and its model renders too.
cat >"$work/grow.json" <<'EOF_CFG'
{"model": {"hidden": [16, 16], "activation": "ReLU", "output_activation": "Identity"},
 "optimizer": {"otype": "SGD", "momentum": 0.0}, "schedule": {"otype": "Constant", "lr_max": 30},
 "training": {"steps": 12, "seed": 7, "metrics_every": 1, "max_recoveries": 0}, "data": {"color_mode": "gray"}}
EOF_CFG
"$redraw" train "$samples/horse.png" --max-side 24 --config "$work/grow.json" --checkpoint-every 1 --out "$work/grow" \
  >/dev/null 2>"$work/grow.err"
check '[ $? = 1 ] && grep -q "grew past what a model may hold" "$work/grow.err" && grep -q "it renders and resumes" "$work/grow.err"'
check '"$redraw" render "$work/grow/model.redraw" -o "$work/grow.png" >/dev/null 2>&1 && [ -s "$work/grow.png" ]'
sed 's/"max_recoveries": 0/"max_recoveries": 3/' "$work/grow.json" >"$work/grow3.json"
"$redraw" train "$samples/horse.png" --max-side 24 --config "$work/grow3.json" --checkpoint-every 1 --out "$work/grow3" \
  >/dev/null 2>&1
"$redraw" render "$work/grow3/model.redraw" -o "$work/grow3.png" >/dev/null 2>&1
check '[ $? = 0 ] && [ -s "$work/grow3.png" ]  # what the recovering run kept opens'

# --- SIGINT / SIGTERM: 130 / 143 for train, render and timelapse alike ---
# interrupt_export COMMAND SIZE DIR FILE: `redraw COMMAND` of the full model at SIZE into DIR/FILE,
# sent $sig once its temporary file shows: exit code $want, no FILE and no temporary file left.
interrupt_export() {
  local command="$1" size="$2" dir="$3" file="$4"
  "$redraw" "$command" "$work/full/model.redraw" --size "$size" -o "$dir/$file" >/dev/null 2>&1 &
  mkdir -p "$dir"
  pid=$!
  pids+=("$pid")
  if wait_for 60 '[ "$(temps_in "$dir")" -gt 0 ]'; then
    sleep 0.3
    kill -"$sig" "$pid"
    wait "$pid"
    code=$?
    check '[ "$code" = "$want" ] && [ ! -e "$dir/$file" ] && [ "$(temps_in "$dir")" = 0 ]'
  else
    fail "$command never started"
  fi
}
for sig in INT TERM; do
  want=130; [ "$sig" = TERM ] && want=143
  out="$work/sig$sig"
  "$redraw" train "$samples/horse.png" --config "$cfg" --max-side 24 --out "$out" >/dev/null 2>"$work/sig$sig.err" &
  pid=$!
  pids+=("$pid")
  if wait_for 60 'grep -q "step [0-9]" "$work/sig$sig.err"'; then
    kill -"$sig" "$pid"
    wait "$pid"
    code=$?
    check '[ "$code" = "$want" ]'
    check '[ -s "$out/model.redraw" ] && [ -s "$out/final.png" ] && [ "$(temps_in "$out")" = 0 ]'
  else
    fail "train never started"
  fi
  interrupt_export render 16000x16000 "$work/render" big.png
  interrupt_export timelapse 3000x3000 "$work/lapse" t.gif
done

finish fault_tests
