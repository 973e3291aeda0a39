#!/usr/bin/env bash
# `redraw sweep` in a folder others can write into: a symbolic link planted at a cell's folder or
# at cells/ redirects nothing (the cell, or the sweep, is refused naming it, and the folder the link
# points to is left as it was); a FIFO or /dev/zero at sweep.json, a result.json or a metrics.csv
# is refused without waiting for a writer or reading it. Usage: sweep_hostile.sh path/to/redraw
set -u
redraw="$1"
. "$(dirname "$0")/../lib.sh"
make_png "$work/a.png" 24 16
make_png "$work/b.png" 16 16
tiny_config "$work/tiny.json" 1000000 5 adam
sweep() { "$redraw" sweep --presets "$work/tiny.json" --steps 5 "$@"; }
# the names, sizes and contents of every file under a folder
fingerprint() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

# ---- a link at a cell's folder: that cell fails naming it, the victim's model is not resumed ----
"$redraw" train "$work/a.png" --config "$work/tiny.json" --steps 5 --out "$work/victim" >/dev/null 2>&1 ||
  fail "training the victim's model"
printf 'the victim\047s own notes\n' >"$work/victim/config.json"
before="$(fingerprint "$work/victim")"
mkdir -p "$work/s/cells"
ln -s "$work/victim" "$work/s/cells/000-a-tiny-s1"
expect 1 "1 of 2 cells done, 1 failed" -- sweep --images "$work/a.png" "$work/b.png" --out "$work/s"
check 'grep -q "^000-a-tiny-s1,.*,failed,.*cells/000-a-tiny-s1: is a symbolic link, not a folder" "$work/s/results.csv"'
check 'grep -q "^001-b-tiny-s1,.*,done,5," "$work/s/results.csv"  # the other cell ran'
expect 1 "FAILED 000-a-tiny-s1: $work/s/cells/000-a-tiny-s1: is a symbolic link, not a folder" -- \
  sweep --images "$work/a.png" "$work/b.png" --out "$work/s" --retry-failed
expect 1 "cells/000-a-tiny-s1: is a symbolic link, not a folder" -- "$redraw" sweep --cell 0 --out "$work/s"
check '[ "$(fingerprint "$work/victim")" = "$before" ]  # nothing written in the folder the link points to'
check '[ -L "$work/s/cells/000-a-tiny-s1" ]  # the link is left for the user to see'

# ---- cells/ itself a link, or a file: the sweep is refused before any cell runs ----
mkdir -p "$work/victim2" "$work/s2"
ln -s "$work/victim2" "$work/s2/cells"
expect 1 "$work/s2/cells: is a symbolic link, not a folder" -- sweep --images "$work/a.png" --out "$work/s2"
check '[ -z "$(ls -A "$work/victim2")" ]  # nothing made in the folder it points to'
mkdir -p "$work/s3" && echo notes >"$work/s3/cells"
expect 1 "$work/s3/cells: is not a folder" -- sweep --images "$work/a.png" --out "$work/s3"
check '[ "$(cat "$work/s3/cells")" = notes ]'
# ---- a FIFO or /dev/zero at a sweep's files: refused without waiting or reading ----
mkfifo "$work/s/cells/001-b-tiny-s1/fifo"
rm "$work/s/cells/001-b-tiny-s1/result.json" "$work/s/cells/001-b-tiny-s1/metrics.csv"
ln -s fifo "$work/s/cells/001-b-tiny-s1/result.json"
ln -s /dev/zero "$work/s/cells/001-b-tiny-s1/metrics.csv"
expect 0 "results.csv, summary.csv, report.html (2 cells)" -- timeout 60 "$redraw" sweep --collect --out "$work/s"
check 'grep -q "^001-b-tiny-s1,.*,failed,.*result.json: is a FIFO (named pipe), not a cell.s result" "$work/s/results.csv"'
mkdir -p "$work/s4" && mkfifo "$work/s4/sweep.json"
expect 1 "$work/s4/sweep.json: is a FIFO (named pipe), not a sweep file" -- timeout 60 "$redraw" sweep --out "$work/s4"
expect 1 "$work/s4/sweep.json: is a FIFO (named pipe), not a sweep file" -- \
  timeout 60 "$redraw" sweep --collect --out "$work/s4"
ln -s /dev/zero "$work/zero.json"
expect 1 "$work/zero.json: is a character device, not a sweep spec" -- \
  timeout 60 "$redraw" sweep --spec "$work/zero.json" --presets "$work/tiny.json" --out "$work/s5"
# ---- a cell's folder holding another config's model: the cell fails naming the difference, the model is kept ----
sed 's/"lr_max": 0.01/"lr_max": 0.02/' "$work/tiny.json" >"$work/other.json"
"$redraw" train "$work/a.png" --config "$work/other.json" --steps 5 --out "$work/other" >/dev/null 2>&1 ||
  fail "training the other model"
mkdir -p "$work/s6/cells/000-a-tiny-s1"
cp "$work/other/model.redraw" "$work/s6/cells/000-a-tiny-s1/"
cp "$work/other.json" "$work/s6/cells/000-a-tiny-s1/config.json"
before="$(cd "$work/s6/cells/000-a-tiny-s1" && sha256sum model.redraw config.json)"
expect 1 "FAILED 000-a-tiny-s1: $work/s6/cells/000-a-tiny-s1/model.redraw: is the model of another run, not this cell's (schedule.lr_max: 0.02 in the model, 0.01 in the cell's config); it is left as it is" -- \
  sweep --images "$work/a.png" --out "$work/s6"
check '[ "$(cd "$work/s6/cells/000-a-tiny-s1" && sha256sum model.redraw config.json)" = "$before" ]  # nothing lost'
check 'grep -q "^000-a-tiny-s1,.*,failed,.*is the model of another run" "$work/s6/results.csv"'
# (A cell's own model, a sweep killed and continued, still resumes: sweep.sh kills one with -9.)
expect 0 "sweep: 1 of 1 cells done, 0 failed" -- sweep --images "$work/a.png" --out "$work/s7"

# ---- cell names from a shared sweep.json print their control characters escaped ----
python3 - "$work/s7/sweep.json" "$work/s8" <<'PY'
import json, os, sys
plan = json.load(open(sys.argv[1]))
plan["cells"][0]["name"] = "000-\x1b]0;pwned\x07\x1b[31mred"
os.makedirs(sys.argv[2])
json.dump(plan, open(os.path.join(sys.argv[2], "sweep.json"), "w"))
PY
expect 0 'done   000-\x1b]0;pwned\x07\x1b[31mred' -- "$redraw" sweep "$work/s8"
check '! grep -q "$(printf "\033")" "$work/err" "$work/out"  # no raw escape byte printed'
finish sweep_hostile
