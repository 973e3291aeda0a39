#!/usr/bin/env bash
# `redraw bench smoke`: the whole command on two small crops, checking its own table against tools
# independent of Redraw: the 8-bit PSNR column against ImageMagick's `compare -metric PSNR` on each
# saved final.png (within 0.01 dB), the MS-SSIM column against a float64 numpy reference written
# here (each pixel's 11x11 window summed directly, the 2x2 pyramid by reshaping; within 1e-4), the
# parameter counts within 2% of the budget, and report.html (with the published rows as reference
# lines) in headless Chromium with no console message. Then a second run trains nothing, and bad
# protocols, methods and folders are refused naming them; a damaged bench.json is one cell's
# problem; images too small for MS-SSIM have their PSNR; smoke's default image is the bundled
# default.png. Under 60 s on 2 cores for the first run, about 15 s for the rest.
# Usage: bench.sh path/to/redraw
set -u
redraw="$1"
. "$(dirname "$0")/../lib.sh"
require_tools compare convert chromium python3
numpy_python=python3 # the first python3 with numpy (a pyenv shim may shadow Debian's)
for p in python3 /usr/bin/python3; do "$p" -c 'import numpy' 2>/dev/null && { numpy_python="$p"; break; }; done
"$numpy_python" -c 'import numpy' 2>/dev/null || { echo "SKIP: python3-numpy is missing (scripts/install_deps.sh installs it)"; exit 77; }
data="$(dirname "$0")/../data"

mkdir -p "$work/img"
# Two RGB crops at most 256 px (the smoke protocol's max side), so each trains at its own size.
convert "$data/chelsea.png" -crop 208x176+120+40 +repage -strip -type TrueColor "PNG24:$work/img/a.png"
convert "$data/chelsea.png" -crop 176x192+20+60 +repage -strip -type TrueColor "PNG24:$work/img/b.png"

t0=$(date +%s.%N)
check_run "bench smoke runs" "$redraw" bench smoke --images "$work/img" --out "$work/b"
t1=$(date +%s.%N)
secs=$(python3 -c "print(round($t1 - $t0, 1))")
echo "bench smoke took $secs s"
check "python3 -c 'import sys; sys.exit(0 if $secs < 60 else 1)'  # under 60 s"
for f in table.md results.csv report.html summary.csv sweep.json; do check "[ -s '$work/b/$f' ]"; done
cat "$work/b/table.md"
check "grep -q '^| instant | Redraw (this run) | 20K |' '$work/b/table.md'"
check "grep -q '^| siren | Redraw (this run) | 20K |' '$work/b/table.md'"
check "grep -q '^| GaussianImage | published: Zhang et al., ECCV 2024, Table 1' '$work/b/table.md'"
check "grep -q '^- commit: redraw ' '$work/b/table.md' && grep -q '^- threads: ' '$work/b/table.md'"
# Each done cell's decoding was timed on the CPU's path (host memory), and its bench.json says so.
check "[ \$(grep -l '\"decode_path\": \"host\"' '$work/b'/cells/*/bench.json | wc -l) = 4 ]"
check "grep -q 'decode FPS timed after training, alone, with ' '$work/b/table.md'"

# Every cell against ImageMagick and the numpy reference.
python3 - "$work/b" <<'PY' >"$work/cells.txt"
import csv, json, os, sys
d = sys.argv[1]
plan = json.load(open(os.path.join(d, "sweep.json")))
rows = {(r["method"], r["image"]): r for r in csv.DictReader(open(os.path.join(d, "results.csv")))}
for c in plan["cells"]:
    r = rows[(c["preset"], os.path.basename(c["image"]))]
    print(os.path.join(d, "cells", c["name"], "final.png"), c["image"], r["status"], r["psnr8_db"], r["ms_ssim"], r["parameters"])
PY
check "[ \$(wc -l <'$work/cells.txt') = 4 ]"

cat >"$work/msssim.py" <<'PY'
# MS-SSIM (Wang et al. 2003, as pytorch_msssim with data_range=1), float64: per scale every
# pixel's 11x11 window summed directly with the 2-D Gaussian; sides here are multiples of 16.
import struct, sys, zlib
import numpy as np

def read_png(path):  # 8-bit RGB or grey, non-interlaced: enough for these files
    b = open(path, "rb").read()
    pos, idat, w = 8, b"", 0
    while pos < len(b):
        n, kind = struct.unpack(">I4s", b[pos:pos + 8])
        body = b[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (0, 2), (path, depth, colour)
            ch = 3 if colour == 2 else 1
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * ch
    out = np.zeros((h, stride), np.float64)
    prev = np.zeros(stride, np.int64)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)], np.uint8).astype(np.int64)
        cur = np.zeros(stride, np.int64)
        for x in range(stride):
            a = cur[x - ch] if x >= ch else 0
            c = prev[x - ch] if x >= ch else 0
            up = prev[x]
            if f == 0: p = 0
            elif f == 1: p = a
            elif f == 2: p = up
            elif f == 3: p = (a + up) // 2
            else:
                pa, pb, pc = abs(up - c), abs(a - c), abs(a + up - 2 * c)
                p = a if pa <= pb and pa <= pc else (up if pb <= pc else c)
            cur[x] = (line[x] + p) & 255
        out[y] = cur
        prev = cur
    img = out.reshape(h, w, ch) / 255.0
    return np.repeat(img, 3, axis=2) if ch == 1 else img

def ms_ssim(a, b):
    k = np.exp(-((np.arange(11) - 5.0)[:, None] ** 2 + (np.arange(11) - 5.0)[None, :] ** 2) / 4.5)
    k /= k.sum()
    wts = [0.0448, 0.2856, 0.3001, 0.2363, 0.1333]
    vals = []
    for c in range(a.shape[2]):
        x, y, v = a[:, :, c], b[:, :, c], 1.0
        for s in range(5):
            win = lambda z: np.einsum("ijkl,kl->ij", np.lib.stride_tricks.sliding_window_view(z, (11, 11)), k)
            mx, my = win(x), win(y)
            vx, vy, cxy = win(x * x) - mx * mx, win(y * y) - my * my, win(x * y) - mx * my
            cs = (2 * cxy + 9e-4) / (vx + vy + 9e-4)
            if s < 4:
                v *= max(cs.mean(), 0) ** wts[s]
                h2, w2 = x.shape[0] // 2, x.shape[1] // 2
                x = x[:2 * h2, :2 * w2].reshape(h2, 2, w2, 2).mean(axis=(1, 3))
                y = y[:2 * h2, :2 * w2].reshape(h2, 2, w2, 2).mean(axis=(1, 3))
            else:
                v *= max((cs * (2 * mx * my + 1e-4) / (mx * mx + my * my + 1e-4)).mean(), 0) ** wts[s]
        vals.append(v)
    return sum(vals) / len(vals)

print("%.8f" % ms_ssim(read_png(sys.argv[1]), read_png(sys.argv[2])))
PY

while read -r final image status psnr8 msssim params; do
  name="$(basename "$(dirname "$final")")"
  check "[ '$status' = done ]  # $name"
  im="$(compare -metric PSNR "$final" "$image" null: 2>&1)"
  ref="$("$numpy_python" "$work/msssim.py" "$final" "$image")"
  echo "$name: PSNR 8-bit $psnr8 (ImageMagick $im), MS-SSIM $msssim (reference $ref), $params parameters"
  check "python3 -c 'import sys; sys.exit(0 if abs($psnr8 - $im) <= 0.01 else 1)'  # $name: PSNR as ImageMagick's"
  check "python3 -c 'import sys; sys.exit(0 if abs($msssim - $ref) <= 1e-4 else 1)'  # $name: MS-SSIM as the reference"
  check "python3 -c 'import sys; sys.exit(0 if abs($params - 20000) <= 400 else 1)'  # $name: within 2% of 20K"
done <"$work/cells.txt"

# The check can fail: a render one grey level off everywhere is a different PSNR.
first="$(head -1 "$work/cells.txt" | cut -d' ' -f1)"
convert "$first" -evaluate add 10% "PNG24:$work/off.png"  # about 25 grey levels
off="$(compare -metric PSNR "$work/off.png" "$(head -1 "$work/cells.txt" | cut -d' ' -f2)" null: 2>&1)"
check "python3 -c 'import sys; sys.exit(0 if abs($(head -1 "$work/cells.txt" | cut -d" " -f4) - $off) > 0.01 else 1)'  # a changed render is told apart"

# report.html: renders with no console message, with the published rows as reference lines.
chrome() {
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$(mktemp -d -p "$work")" \
    --enable-logging=stderr --v=0 "$@"
}
chrome --dump-dom "file://$work/b/report.html" >"$work/dom.html" 2>"$work/dom.log"
check "[ -s '$work/dom.html' ]"
if grep -E ':CONSOLE[:(]|Uncaught' "$work/dom.log"; then fail "report.html wrote to the console"; else ok "no console message"; fi
check "grep -q '<h1>Redraw bench smoke: b</h1>' '$work/dom.html'"
published=$(python3 -c "import json, sys; print(len(json.load(open(sys.argv[1]))['rows']))" "$REDRAW_ASSETS/published/kodak.json")
check "[ \$(grep -o '<g class=\"reference\">' '$work/dom.html' | wc -l) = $((2 * published)) ]  # the $published published rows on each of 2 charts"
check "grep -q 'GaussianImage (published, 560K' '$work/dom.html'"

# A second run: every cell had ended, nothing trains; the table is written again.
t0=$(date +%s)
check_run "bench smoke again" "$redraw" bench smoke --images "$work/img" --out "$work/b"
check "[ \$(( \$(date +%s) - t0 )) -lt 15 ]"

expect 2 "error: unknown benchmark protocol 'kodak' (known: kodak-paper, kodak-minute, kodak-timed, smoke)" -- \
  "$redraw" bench kodak --images "$work/img" --out "$work/x"
expect 2 "error: --methods: 'wire' is not a method of protocol smoke (its methods: instant, siren)" -- \
  "$redraw" bench smoke --methods wire --images "$work/img" --out "$work/x"
expect 2 "error: --images: $work/nowhere ($work/nowhere) is not a folder" -- \
  "$redraw" bench smoke --images "$work/nowhere" --out "$work/x"
expect 2 "error: --time-limit: protocol kodak-paper trains its methods for a number of steps, not a time" -- \
  "$redraw" bench kodak-paper --time-limit 5 --images "$work/img" --out "$work/x"
expect 2 "holds no bench (no sweep.json): run it without --collect first" -- \
  "$redraw" bench smoke --collect --images "$work/img" --out "$work/x"
check "[ ! -e '$work/x' ]  # nothing written"
# --collect trains nothing and writes the table again.
rm "$work/b/table.md"
check_run "bench smoke --collect" "$redraw" bench smoke --collect --images "$work/img" --out "$work/b"
check "[ -s '$work/b/table.md' ]"

# A cell's bench.json that is JSON but not a sound measurement (not an object; a value out of its
# range) is that cell's problem alone: named, with what is wrong, and the cell measured again; the
# other cells are collected, and every figure is again the one checked against ImageMagick and
# the numpy reference above.
cells=("$work/b"/cells/*/)
collected_as_first() { # every results.csv row done, with the psnr8_db and ms_ssim first measured
  python3 - "$work/b" "$work/cells.txt" <<'PY' >"$work/again.txt"
import csv, os, sys
d = sys.argv[1]
rows = {(r["method"], r["image"]): r for r in csv.DictReader(open(os.path.join(d, "results.csv")))}
for line in open(sys.argv[2]):
    final, image, status, psnr8, msssim, params = line.split()
    key = (os.path.basename(os.path.dirname(final)).split("-")[-2], os.path.basename(image))
    r = rows[key]
    print(key, r["status"], r["psnr8_db"], psnr8, r["ms_ssim"], msssim,
          "same" if (r["psnr8_db"], r["ms_ssim"]) == (psnr8, msssim) else "DIFFERENT")
PY
  cat "$work/again.txt"
  [ "$(grep -c ' done .* same$' "$work/again.txt")" = 4 ]
}
# values out of their range: named, and that cell measured again (never 99 or 1e308 in the table)
echo '{"psnr8_db": 1e308, "ms_ssim": 99, "decode_fps": 5}' >"${cells[1]}bench.json"
expect 0 "$(basename "${cells[1]}")/bench.json: psnr8_db: 1e+308 is outside [0, 1000] dB; the cell is measured again" -- \
  "$redraw" bench smoke --collect --images "$work/img" --out "$work/b"
check_run "every cell collected, as first measured" collected_as_first
check "! grep -qE '[0-9]{40}' '$work/b/table.md'  # no 308-digit figure"
# JSON that is not an object: that cell's problem alone, the others collected
echo '[1, 2]' >"${cells[0]}bench.json"
expect 0 "$(basename "${cells[0]}")/bench.json: not a bench measurement" -- \
  "$redraw" bench smoke --collect --images "$work/img" --out "$work/b"
check_run "every cell collected, as first measured" collected_as_first

# Images under 161 px a side: the 8-bit PSNR is measured, MS-SSIM (5 scales of an 11-pixel window)
# is not, and the note says exactly that.
mkdir -p "$work/small"
convert "$data/chelsea.png" -crop 120x96+150+60 +repage -strip -type TrueColor "PNG24:$work/small/a.png"
convert "$data/chelsea.png" -crop 96x120+40+80 +repage -strip -type TrueColor "PNG24:$work/small/b.png"
expect 0 "MS-SSIM not measured: the image trains at 120x96, and MS-SSIM needs both sides over 160 px" -- \
  "$redraw" bench smoke --methods instant --time-limit 0.5 --images "$work/small" --out "$work/s"
check "! grep -q 'PSNR and MS-SSIM of final.png not measured' '$work/err'"
check "python3 -c \"import csv, sys; r = list(csv.DictReader(open('$work/s/results.csv'))); sys.exit(0 if len(r) == 2 and all(x['psnr8_db'] and not x['ms_ssim'] for x in r) else 1)\"  # PSNR in, MS-SSIM out"

# Default images: smoke takes the one bundled in the data folder (here the source tree's assets/);
# the Kodak protocols' ../shared/images/kodak, when missing, is refused saying where the images
# come from.
expect 0 "images    default.png (" -- "$redraw" bench smoke --out "$work/d" --dry-run
mkdir -p "$work/here"
expect 2 "from the current folder ($work/shared/images/kodak), is not a folder; the 24 Kodak images, kodim01.png to kodim24.png, are the Kodak Lossless True Color Image Suite: https://r0k.us/graphics/kodak/; download them and give their folder with --images DIR" -- \
  env -C "$work/here" "$(realpath "$redraw")" bench kodak-minute --out "$work/x" --dry-run
# More images than one bench holds (a sweep's 10,000 cells over 3 methods): a usage error saying
# bench's own limit and how to bench fewer (the files need not be images: nothing reads them).
mkdir -p "$work/many" && (cd "$work/many" && touch $(seq -f 'im%04g.png' 1 3400))
expect 2 "$work/many: holds 3400 images; a bench runs at most 10000 cells (one per image, method and seed), so protocol kodak-paper with 4 method(s) and 1 seed(s) takes at most 2500 images: give --images a folder of at most 2500 of them" -- \
  "$redraw" bench kodak-paper --images "$work/many" --out "$work/x" --dry-run
check "! grep -q 'several sweeps' '$work/err'"
check "[ ! -e '$work/x' ]  # nothing written"
finish bench
