#!/usr/bin/env bash
# The GUI's open path against crafted input, under Xvfb: models refused with the field named
# (a weight of 3e38, a 200,000-character source path, Gaussians that each cover the picture), a
# 1x5000 model opened and its timelapse scrubbed, a model whose strings are as long as allowed,
# and a 200,000-character dropped path.
# The app stays up through all of it. Usage: gui_hostile.sh path/to/redraw OUT_DIR
set -u
redraw="$1"
out="$2"
. "$(dirname "$0")/../lib.sh"
rm -rf "$out" && mkdir -p "$out"
work="$out/work"
mkdir -p "$work"
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
tiny_config "$work/tiny.json" 6 2
make_png "$work/tall.png" 1 5000
"$redraw" train "$work/tall.png" --config "$work/tiny.json" --size 1x5000 --out "$work/tall" >/dev/null 2>&1 ||
  { echo "FAIL: training the 1x5000 model"; exit 1; }
m="$work/tall/model.redraw"
model_mutate "$m" "$work/huge.redraw" param 0 3e38
model_mutate "$m" "$work/longsource.redraw" meta-long source_image 200000
model_mutate "$m" "$work/longok1.redraw" meta-long source_image 4096
model_mutate "$work/longok1.redraw" "$work/longok.redraw" meta config.name \
  "\"$(python3 -c 'print("\\u00e9\\u20ac" * 800 + "\\u001b[31m")')\""
# 5,000 Gaussians that each cover the whole picture: refused at once by the open path (the session
# thread), the window drawing meanwhile; unbounded, their bins made every reader take minutes
make_png "$work/small.png" 24 16
"$redraw" train "$work/small.png" --preset gaussians --set model.gaussians=5000 --steps 2 --out "$work/gauss" \
  >/dev/null 2>&1 || { echo "FAIL: training the Gaussians model"; exit 1; }
model_mutate "$work/gauss/model.redraw" "$work/gausswide.redraw" param-every 2 8 5000 1000
model_mutate "$work/gausswide.redraw" "$work/gaussbig.redraw" param-every 4 8 5000 1000
long_path="$work/$(head -c 200000 /dev/zero | tr '\0' 'p').png"
cat >"$work/script.txt" <<EOF2
wait has_run
scrub 2
frames 3
expect scrubbed
screenshot $out/tall-scrubbed.png
drop $work/huge.redraw
wait message_has PARM
drop $work/longsource.redraw
wait message_has META.source_image
drop $long_path
wait message_has the name is too long
drop $work/gaussbig.redraw
wait_within 20 message_has Gaussians far larger than the picture
frames 5
screenshot $out/messages.png
drop $work/longok.redraw
wait source_has longok
wait has_run
frames 5
screenshot $out/long-strings.png
EOF2
timeout 300 xvfb-run -a -s "-screen 0 1600x1000x24" "$redraw" gui --model "$m" --backend cpu \
  --test-script "$work/script.txt" >"$out/gui.log" 2>&1
rc=$?
cat "$out/gui.log" | cut -c1-300 | tail -5
[ "$rc" = 0 ] && echo "ok: the GUI opened, refused and survived every crafted input" || echo "FAIL: the GUI exited $rc"
[ "$rc" = 0 ]
