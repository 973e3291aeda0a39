#!/usr/bin/env bash
# `redraw sweep` on one machine: the grid is checked before anything runs (a bad key, value or
# preset named, exit 2, nothing written); a failed cell is reported with its error while the
# others finish; kill -9 in the middle and a second run: no finished cell is trained again, the
# stopped one resumes from its checkpoint, and the results are complete; two sweeps on one folder
# never run a cell twice. Usage: sweep.sh path/to/redraw
set -u
redraw="$1"
. "$(dirname "$0")/../lib.sh"
make_png "$work/a.png" 24 16
make_png "$work/b.png" 16 16
make_png "$work/whole.png" 64 64
head -c 70 "$work/whole.png" >"$work/cut.png" # a header and no rows: train refuses it
tiny_config "$work/tiny.json" 1000000 5 adam
sweep() { "$redraw" sweep --presets "$work/tiny.json" "$@"; }
headers() { grep -c '^== redraw sweep:' "$1/train.log"; } # how many times the cell was started

# ---- the grid is checked before anything runs ----
expect 2 "model.omega: unknown key" -- sweep --images "$work/a.png" --set model.omega=1 --steps 5 --out "$work/x"
expect 2 "(schedule.lr_max is a field)" -- sweep --images "$work/a.png" --set optimizer.lr_max=1e-3 --steps 5 --out "$work/x"
expect 2 "schedule.lr_max=abc: schedule.lr_max: must be a number" -- \
  sweep --images "$work/a.png" --set schedule.lr_max=0.01,abc --steps 5 --out "$work/x"
expect 2 "Preset 'nope' not found" -- "$redraw" sweep --images "$work/a.png" --presets nope --out "$work/x"
expect 1 "gone.png: no such image" -- sweep --images "$work/gone.png" --out "$work/x"
check '[ ! -e "$work/x" ]  # nothing written'
expect 0 "8 cells = 2 image(s) x 1 preset(s) x 2 schedule.lr_max x 2 seed(s)" -- \
  sweep --images "$work/a.png" "$work/b.png" --set schedule.lr_max=0.01,0.003 --seeds 2 --time-limit 2 --dry-run --out "$work/x"
check 'grep -q "estimate" "$work/out" && [ ! -e "$work/x" ]  # a dry run prints the estimate, writes nothing'
# a stray ']' is text: the comma after it still splits the values (two cells, not one value "a],b")
expect 0 "2 cells = 1 image(s) x 1 preset(s) x 2 name x 1 seed(s)" -- \
  sweep --images "$work/a.png" --set 'name=a],b' --steps 5 --dry-run --out "$work/x"
expect 0 "jobs      2 side by side, 1 CPU thread(s) each, on 2 core(s)" -- \
  sweep --images "$work/a.png" "$work/b.png" --time-limit 2 --threads 2 --dry-run --out "$work/x"
check '! grep -q "note" "$work/out"  # one job per core by default under a time limit'
expect 0 "note      3 cells share 2 core(s)" -- \
  sweep --images "$work/a.png" "$work/b.png" "$work/whole.png" --time-limit 2 --threads 2 --jobs 3 --dry-run --out "$work/x"

# ---- a failed cell is reported, the others finish ----
expect 1 "FAILED 001-cut-tiny-s1: $work/cut.png: corrupt or truncated image" -- \
  sweep --images "$work/a.png" "$work/cut.png" "$work/b.png" --steps 30 --out "$work/f"
check 'grep -q "^002-b-tiny-s1,.*,done,30," "$work/f/results.csv" && grep -q "^000-a-tiny-s1,.*,done,30," "$work/f/results.csv"'
check 'grep -q "^001-cut-tiny-s1,.*,failed,.*truncated image" "$work/f/results.csv"'
check '[ -s "$work/f/summary.csv" ] && grep -q "truncated image" "$work/f/report.html"'

# ---- kill -9 in the middle, then run again ----
args=(--presets "$work/tiny.json" --images "$work/a.png" "$work/b.png" --set schedule.lr_max=0.01,0.003
      --time-limit 2 --jobs 2 --checkpoint-every 20 --out "$work/k")
"$redraw" sweep "${args[@]}" >"$work/k1.out" 2>&1 & # the sweep itself, not a shell around it
first=$!
pids+=("$first")
# the first two cells ended and one of the next two running with a checkpoint
ended_and_running() {
  local ended=0 running=0 c
  for c in "$work"/k/cells/*/; do
    if [ -e "$c/result.json" ]; then ended=$((ended + 1)); elif [ -e "$c/model.redraw" ]; then running=1; fi
  done
  [ $ended = 2 ] && [ $running = 1 ]
}
check 'wait_for 60 ended_and_running'
kill -9 "$first"
wait "$first" 2>/dev/null
before=""
for c in "$work"/k/cells/*/; do
  [ -e "$c/result.json" ] && before="$before $(basename "$c"):$(stat -c '%i-%Y' "$c/result.json")"
done
check_run "a second run finishes the sweep" "$redraw" sweep "${args[@]}"
for entry in $before; do
  name="${entry%%:*}"
  check "[ '$(stat -c '%i-%Y' "$work/k/cells/$name/result.json")' = '${entry#*:}' ] && [ $(headers "$work/k/cells/$name") = 1 ]  # $name not trained again"
done
check '[ $(grep -c ",done," "$work/k/results.csv") = 4 ]'
check 'grep -l -- "--resume" "$work"/k/cells/*/train.log >/dev/null  # the stopped cell resumed from its checkpoint'
check 'python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); sys.exit(not all(float(x[\"seconds\"]) < 3 for x in r))" "$work/k/results.csv"  # 2 s each, resumed ones too'
check '[ -s "$work/k/report.html" ] && [ -s "$work/k/summary.csv" ]'

# ---- two sweeps on one folder: each cell runs once ----
args=(--presets "$work/tiny.json" --images "$work/a.png" --set schedule.lr_max=0.01,0.003 --time-limit 2 --jobs 2
      --out "$work/two")
"$redraw" sweep "${args[@]}" >"$work/two1.out" 2>&1 &
first=$!
pids+=("$first")
check 'wait_for 60 "[ \$(ls \"$work\"/two/cells/*/.redraw-lock 2>/dev/null | wc -l) = 2 ]"'
"$redraw" sweep "${args[@]}" >"$work/two2.out" 2>&1
second=$?
check 'grep -q "busy .*another process runs it" "$work/two2.out"'
# Not "0 of 2 cells done" and success: it names the cells that run elsewhere, exit 3.
check "[ $second = 3 ]"
check 'grep -q "2 running in another process (000-a-tiny-lr_max=0.01-s1, 001-a-tiny-lr_max=0.003-s1): run the sweep again once they end" "$work/two2.out"'
wait "$first"
check "[ $? = 0 ] && [ \$(grep -c ',done,' '$work/two/results.csv') = 2 ]"
for c in "$work"/two/cells/*/; do check "[ $(headers "$c") = 1 ]  # $(basename "$c") started once"; done
finish sweep
