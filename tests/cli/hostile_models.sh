#!/usr/bin/env bash
# Crafted model files (CRC fixed up, so the meaning is what is wrong): info names the problem
# and exits 1, render, timelapse and --resume refuse with the field named, nothing crashes;
# printed metadata is escaped. Usage: hostile_models.sh path/to/redraw
set -u
redraw="$1"
. "$(dirname "$0")/../lib.sh"
mutate() { model_mutate "$base" "$work/$1.redraw" "${@:2}"; }
cfg="$work/tiny.json"
tiny_config "$cfg" 6 2
make_png "$work/img.png" 24 16
"$redraw" train "$work/img.png" --config "$cfg" --out "$work/run" >/dev/null 2>&1 || fail "training the base model"
base="$work/run/model.redraw"

# name of the case, the field the error must name, then the mutation
cases=(
  "huge|PARM|param 0 3e38"
  "nan|PARM|param 3 nan"
  "optinf|OPTM|optm 1 inf"
  "snaphuge|SNAP[1].params|snap 1 0 -1e30"
  "snapstep|SNAP[0]|snap-step 0 999999"
  "histunsorted|HIST[1]|hist-step 1 0"
  "histnegative|HIST[0]|hist-step 0 -5"
  "longsource|META.source_image|meta-long source_image 200000"
  "longname|META.config.name|meta-long config.name 5000"
  "hugestep|META.step|meta step 1000000000000001"
  "badseconds|META.seconds|meta seconds -3"
)
for c in "${cases[@]}"; do
  IFS='|' read -r name field op <<<"$c"
  # shellcheck disable=SC2086
  mutate "$name" $op || { fail "mutating $name"; continue; }
  m="$work/$name.redraw"
  "$redraw" info "$m" >"$work/info.out" 2>"$work/info.err"
  check "[ $? = 1 ] && grep -qF 'problem:     $field' '$work/info.out' && grep -qF '$field' '$work/info.err'  # info $name"
  "$redraw" render "$m" -o "$work/$name.png" >/dev/null 2>"$work/err"
  check "[ $? = 1 ] && grep -qF '$field' '$work/err' && [ ! -e '$work/$name.png' ]  # render $name"
  "$redraw" timelapse "$m" -o "$work/$name.gif" >/dev/null 2>"$work/err"
  check "[ $? = 1 ] && grep -qF '$field' '$work/err' && [ ! -e '$work/$name.gif' ]  # timelapse $name"
  "$redraw" train "$work/img.png" --resume "$m" --steps 8 --out "$work/resume-$name" >/dev/null 2>"$work/err"
  check "[ $? = 1 ] && grep -qF '$field' '$work/err'  # resume $name"
done
# Gaussians that each cover the whole picture (Cholesky values of 1,000 cells): refused by every
# reader with the field named, before any binning sizes a buffer from them (5,000 of them make
# 6.5 M (bin, Gaussian) pairs, past the 4.2 M a model of that many may hold)
"$redraw" train "$work/img.png" --preset gaussians --set model.gaussians=5000 --steps 2 --out "$work/gauss" \
  >/dev/null 2>&1 || fail "training the Gaussians model"
base="$work/gauss/model.redraw"
mutate gausswide param-every 2 8 5000 1000 # l11 of each, then l22
base="$work/gausswide.redraw"
mutate gaussbig param-every 4 8 5000 1000
m="$work/gaussbig.redraw"
"$redraw" info "$m" >"$work/info.out" 2>"$work/info.err"
check "[ \$? = 1 ] && grep -qF 'Gaussians far larger than the picture' '$work/info.out'  # info gaussbig"
"$redraw" render "$m" --size 64x64 -o "$work/gaussbig.png" >/dev/null 2>"$work/err"
check "[ \$? = 1 ] && grep -qF 'PARM: the 5000 Gaussians cover' '$work/err' && [ ! -e '$work/gaussbig.png' ]  # render gaussbig"
"$redraw" train "$work/img.png" --resume "$m" --steps 4 --out "$work/resume-gaussbig" >/dev/null 2>"$work/err"
check "[ \$? = 1 ] && grep -qF 'PARM' '$work/err'  # resume gaussbig"
base="$work/run/model.redraw"

# the error line stays short even for a 200,000-character field
"$redraw" render "$work/longsource.redraw" -o "$work/x.png" 2>"$work/err" >/dev/null
check '[ "$(wc -c <"$work/err")" -lt 2000 ]'

# chunks duplicated or reordered still describe one model: read, or refused with a clear error
mutate dupsnap dup FRAM && mutate reversed reverse
"$redraw" info "$work/dupsnap.redraw" >/dev/null 2>&1; check '[ $? -le 1 ]'
"$redraw" render "$work/reversed.redraw" -o "$work/reversed.png" >/dev/null 2>&1; check '[ $? = 0 ] && [ -s "$work/reversed.png" ]'

# info escapes control characters in a model's name: no escape sequence reaches the terminal
mutate escname meta config.name '"\u001b]0;owned\u0007\u001b[31mred\u009b2J"'
"$redraw" info "$work/escname.redraw" >"$work/info.out" 2>&1
check '[ $? = 0 ] && ! grep -q "$(printf "\033")" "$work/info.out" && ! grep -q "$(printf "\007")" "$work/info.out" && grep -qF "\\x1b]0;owned\\x07" "$work/info.out"'
check '! grep -q "$(printf "\302\233")" "$work/info.out" && grep -qF "\\u009b2J" "$work/info.out"'
mutate escsource meta source_image '"/tmp/\u001b[2Jx.png"'
"$redraw" info "$work/escsource.redraw" >"$work/info.out" 2>&1
check '! grep -q "$(printf "\033")" "$work/info.out" && grep -qF "/tmp/\\x1b[2Jx.png" "$work/info.out"'
# and --json stays JSON (control characters escaped by JSON)
"$redraw" info --json "$work/escname.redraw" | python3 -c 'import json,sys; json.load(sys.stdin)'
check '[ $? = 0 ]'

# error and note lines escape what a path holds: no escape sequence from a file name reaches the terminal
esc_name="$work/$(printf 'x\033]0;owned\007\033[31m').png"
"$redraw" train "$esc_name" --out "$work/esc-out" >"$work/esc.out" 2>"$work/esc.err"
check '[ $? != 0 ] && ! grep -q "$(printf "\033")" "$work/esc.err" && grep -qF "x\\x1b]0;owned\\x07" "$work/esc.err"'
cp "$work/img.png" "$esc_name"
"$redraw" render "$base" --size 8x8 -o "$esc_name" >"$work/esc.out" 2>"$work/esc.err"
check '[ $? = 0 ] && ! grep -q "$(printf "\033")" "$work/esc.out" "$work/esc.err"'

# a FIFO where the model's image was: the model's own picture stands in, as for a missing image
mkfifo "$work/fifo.png"
mutate fifo meta source_image "\"$work/fifo.png\""
timeout 60 "$redraw" train "$work/fifo.png" --resume "$work/fifo.redraw" --steps 8 --out "$work/fifo-run" >/dev/null 2>"$work/fifo.err"
check '[ $? = 0 ] && grep -q "is not a plain file; showing the model.s own picture" "$work/fifo.err"'

# an image whose name starts with '-': the error says it is not an option and how to name the
# file (whether or not the file is there), and `--` does
cp "$work/img.png" "$work/-dash.png"
dash_error="error: '-dash.png' is not an option of redraw train; a file whose name starts with '-' is given after -- (redraw train [options] -- -dash.png) or as ./-dash.png"
(cd "$work" && "$redraw" train -dash.png --steps 2 --out dash-out >/dev/null 2>"$work/dash.err")
check '[ $? = 2 ] && grep -qxF -- "$dash_error" "$work/dash.err" && ! grep -q "is required" "$work/dash.err"'
(cd "$work" && "$redraw" train -gone.png >/dev/null 2>"$work/gone.err")
check '[ $? = 2 ] && grep -qF -- "-gone.png'"'"' is not an option of redraw train" "$work/gone.err" && grep -qF "no file of that name" "$work/gone.err"'
(cd "$work" && "$redraw" info -dash.png >/dev/null 2>"$work/dash-info.err")
check '[ $? = 2 ] && grep -qF -- "(redraw info [options] -- -dash.png) or as ./-dash.png" "$work/dash-info.err"'
(cd "$work" && "$redraw" train --config "$cfg" --out dash-out -- -dash.png >/dev/null 2>"$work/dash2.err")
check '[ $? = 0 ] && [ -s "$work/dash-out/model.redraw" ]'
(cd "$work" && "$redraw" info -- -dash.png >"$work/dash-info.out" 2>&1)
check '[ $? = 0 ] && grep -q "size: *24x16" "$work/dash-info.out"'
# options after `--` are file names there: the note says to put them first
(cd "$work" && "$redraw" train -- -dash.png --steps 2 >/dev/null 2>"$work/dash3.err")
check '[ $? = 2 ] && grep -qF -- "'"'"'--steps'"'"' comes after --, where every word is taken as a file name" "$work/dash3.err"'

finish hostile_models
