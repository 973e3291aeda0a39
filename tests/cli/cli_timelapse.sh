#!/usr/bin/env bash
# The timelapse and export command line: `redraw train` records snapshots, `redraw timelapse`
# writes GIF / PNG frames (MP4 through a stand-in ffmpeg), `redraw render --compare` writes the
# side-by-side picture, and bad destinations fail with exit 1 before any work, leaving nothing.
# Usage: cli_timelapse.sh path/to/redraw
set -u
redraw="$1"
. "$(dirname "$0")/../lib.sh"
# gif_info FILE -> "WxH FRAMES" (frames = image descriptors, counted by walking the blocks)
gif_info() {
  python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
assert b[:6] == b'GIF89a', b[:6]
w, h, flags = struct.unpack('<HHB', b[6:11])
i = 13 + (3 * (2 << (flags & 7)) if flags & 0x80 else 0)
frames = 0
def skip_blocks(i):
    while b[i]:
        i += b[i] + 1
    return i + 1
while b[i] != 0x3B:
    if b[i] == 0x21:
        i = skip_blocks(i + 2)
    elif b[i] == 0x2C:
        frames += 1
        f = b[i + 9]
        i += 10 + (3 * (2 << (f & 7)) if f & 0x80 else 0)
        i = skip_blocks(i + 1)
    else:
        raise SystemExit('bad block %x' % b[i])
print('%dx%d %d' % (w, h, frames))
PY
}

cfg="$work/tiny.json"
tiny_config "$cfg" 60 5 adam '{"color_mode": "rgb", "max_side": 32}'

expect 0 "done" -- "$redraw" train "$samples/chelsea.png" --config "$cfg" --out "$work/run" --quiet --snapshot-cap-mb 64
model="$work/run/model.redraw"
frames=$("$redraw" info "$model" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["snapshots"])')
check "[ '$frames' -ge 10 ]"
expect 2 "--snapshot-cap-mb" -- "$redraw" train "$samples/chelsea.png" --config "$cfg" --out "$work/r2" --snapshot-cap-mb -3

# GIF
expect 0 "timelapse" -- "$redraw" timelapse "$model" --size 48x32 --fps 8 --overlay -o "$work/lapse.gif"
check "[ \"\$(gif_info '$work/lapse.gif')\" = '48x32 $frames' ]"
# PNG frames
expect 0 "png frames" -- "$redraw" timelapse "$model" --size 20x14 -o "$work/frames/"
check "[ \$(ls '$work/frames' | grep -c '^frame_[0-9]*\.png$') = $frames ]"
check "[ \"\$(png_size '$work/frames/frame_00000.png')\" = 20x14 ]"
# MP4 through a stand-in ffmpeg (the real one may not be installed): it stores the raw frames.
mkdir -p "$work/bin"
printf '#!/bin/sh\nfor a; do out="${a#file:}"; done\ncat > "$out"\n' >"$work/bin/ffmpeg" # the last argument: file:/dev/fd/3
chmod +x "$work/bin/ffmpeg"
expect 0 "mp4" -- env PATH="$work/bin:$PATH" "$redraw" timelapse "$model" --size 10x6 -o "$work/v.mp4"
# (the last frame is held 2 s: 24 copies at the default 12 fps)
check "[ \$(stat -c %s '$work/v.mp4') = \$(( (frames - 1 + 24) * 10 * 6 * 3 )) ]"
expect 1 "ffmpeg" -- env PATH="$work/nothing" "$redraw" timelapse "$model" --size 10x6 -o "$work/w.mp4"
check "[ ! -e '$work/w.mp4' ]"

# Bad destinations: exit 1 naming the path, before any rendering, nothing left behind.
before=$(ls "$work" | wc -l)
expect 1 "$work/missing/lapse.gif" -- "$redraw" timelapse "$model" -o "$work/missing/lapse.gif"
check "! grep -q 'timelapse ' '$work/err'" # no progress: refused before rendering
expect 1 "$work/missing/frames" -- "$redraw" timelapse "$model" -o "$work/missing/frames/"
mkdir "$work/taken.gif"
expect 1 "$work/taken.gif" -- "$redraw" timelapse "$model" -o "$work/taken.gif"
rmdir "$work/taken.gif"
expect 2 "unknown timelapse format" -- "$redraw" timelapse "$model" -o "$work/lapse.avi"
expect 2 "--size" -- "$redraw" timelapse "$model" --size 0x5 -o "$work/x.gif"
expect 2 "--fps" -- "$redraw" timelapse "$model" --fps 0 -o "$work/x.gif"
expect 1 "$work/none.redraw" -- "$redraw" timelapse "$work/none.redraw" -o "$work/x.gif"
check "[ \$(ls '$work' | wc -l) = $before ]"

# render: a snapshot, 16-bit, and the side-by-side comparison
expect 0 "rendered step 0" -- "$redraw" render "$model" --snapshot 0 --size 40x30 --bit-depth 16 -o "$work/s0.png"
expect 2 "--snapshot" -- "$redraw" render "$model" --snapshot 100000 -o "$work/s.png"
expect 0 "compared" -- "$redraw" render "$model" --size 64x48 --compare "$samples/chelsea.png" -o "$work/cmp.png"
check "[ \"\$(png_size '$work/cmp.png')\" = 128x48 ]"
expect 1 "$work/nope.png" -- "$redraw" render "$model" --compare "$work/nope.png" -o "$work/cmp2.png"
expect 1 "$work/missing/cmp.png" -- "$redraw" render "$model" --compare "$samples/chelsea.png" -o "$work/missing/cmp.png"
check "[ ! -e '$work/cmp2.png' ]"

if [ "$failures" != 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all passed"
