#!/usr/bin/env bash
# Images that are valid but unusual, or cut short, as `info` and `train` show them: a top-down BMP
# has its own size (never a negative one, never an absurd memory figure); a PNG that ends early
# trains with a note naming the file and the missing rows, and is refused when most of it is
# missing; 64-bit and half float TIFFs decode; a TIFF cut before its directory is called
# truncated, naming the file. The files are written byte by byte below.
# Usage: damaged_images.sh path/to/redraw
set -u
redraw="$1"
. "$(dirname "$0")/../lib.sh"
cfg="$work/tiny.json"
tiny_config "$cfg" 4 2

python3 - "$work" <<'EOF' || fail "writing the test images"
import struct, sys, zlib
work = sys.argv[1]
W, H = 40, 30

def px(x, y):
    return ((x * 6) & 255, (y * 8) & 255, ((x * y) * 3) & 255)

def bmp(top_down, width=W):
    row = b''.join(bytes((b, g, r)) for r, g, b in (px(x, 0) for x in range(W)))
    rows = [b''.join(bytes((b, g, r)) for r, g, b in (px(x, y) for x in range(W))) for y in range(H)]
    data = b''.join(rows if top_down else reversed(rows))  # 120-byte rows: no padding
    head = struct.pack('<2sIHHI', b'BM', 54 + len(data), 0, 0, 54)
    info = struct.pack('<IiiHHIIiiII', 40, width, -H if top_down else H, 1, 24, 0, len(data), 2835, 2835, 0, 0)
    return head + info + data

open(work + '/down.bmp', 'wb').write(bmp(True))
open(work + '/up.bmp', 'wb').write(bmp(False))
open(work + '/negative.bmp', 'wb').write(bmp(True, width=-W))

# A PNG storing each row in its own uncompressed deflate block: its first bytes hold whole rows.
def chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
raw = b''.join(b'\0' + bytes(c for x in range(W) for c in px(x, y)) for y in range(H))
row = 3 * W + 1
z = b'\x78\x01' + b''.join(bytes([1 if y == H - 1 else 0]) + struct.pack('<HH', row, row ^ 0xffff) +
                           raw[y * row:(y + 1) * row] for y in range(H)) + struct.pack('>I', zlib.adler32(raw))
head = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', W, H, 8, 2, 0, 0, 0))
png = head + chunk(b'IDAT', z) + chunk(b'IEND', b'')
rows_start = lambda k: len(head) + 8 + 2 + k * (row + 5)
open(work + '/whole.png', 'wb').write(png)
open(work + '/cut.png', 'wb').write(png[:rows_start(24)])   # rows 25-30 missing
open(work + '/most.png', 'wb').write(png[:rows_start(12)])  # rows 13-30 missing

# Float TIFFs: one strip, the directory after the pixels (as most writers put it).
def tiff(bits, values, samples):
    code = {16: 'e', 64: 'd'}[bits]
    data = struct.pack('<%d%s' % (len(values), code), *values)
    at = 8 + len(data)
    bps_at = at + 2 + 10 * 12 + 4
    entries = [(256, 4, 1, W), (257, 4, 1, H), (258, 3, samples, bits if samples == 1 else bps_at), (259, 3, 1, 1),
               (262, 3, 1, 2 if samples == 3 else 1), (273, 4, 1, 8), (277, 3, 1, samples), (278, 4, 1, H),
               (279, 4, 1, len(data)), (339, 3, 1, 3)]
    ifd = struct.pack('<H', len(entries))
    for tag, typ, count, value in entries:
        ifd += struct.pack('<HHI', tag, typ, count) + (struct.pack('<HH', value, 0) if typ == 3 and count == 1
                                                        else struct.pack('<I', value))
    ifd += struct.pack('<I', 0) + (struct.pack('<3H', bits, bits, bits) if samples == 3 else b'')
    return b'II*\0' + struct.pack('<I', at) + data + ifd
values = [((i * 37) % 1025) / 1024 for i in range(W * H * 3)]
open(work + '/f64.tif', 'wb').write(tiff(64, values, 3))
open(work + '/half.tif', 'wb').write(tiff(16, values[:W * H], 1))
t = tiff(64, values, 3)
open(work + '/cut.tif', 'wb').write(t[:len(t) // 2])
EOF

# A top-down BMP: its own size, and it trains; a negative width is refused, naming the file.
"$redraw" info "$work/down.bmp" >"$work/down.out" 2>&1
check '[ $? = 0 ] && grep -qx "size: *40x30 (as shown)" "$work/down.out" && ! grep -q "MiB" "$work/down.out"'
"$redraw" train "$work/down.bmp" --config "$cfg" --out "$work/down-run" >/dev/null 2>"$work/down.err"
check '[ $? = 0 ] && [ -s "$work/down-run/final.png" ]'
"$redraw" info "$work/negative.bmp" >"$work/neg.out" 2>&1
check '[ $? = 1 ] && grep -qF "error: $work/negative.bmp: corrupt image" "$work/neg.out" && ! grep -q "x-\|[0-9]\{7,\} MiB" "$work/neg.out"'

# A PNG that ends early: a note in info and in train, naming the file and the rows; refused when
# more than half of it is missing.
cut_note="the file ends early; rows 25-30 of 30 (20%) are missing and shown grey"
"$redraw" info "$work/cut.png" >"$work/cut.out" 2>&1
check '[ $? = 0 ] && grep -qx "note: *$cut_note" "$work/cut.out"'
"$redraw" train "$work/cut.png" --config "$cfg" --out "$work/cut-run" >/dev/null 2>"$work/cut.err"
check '[ $? = 0 ] && grep -qx "note: $work/cut.png: $cut_note" "$work/cut.err" && [ -s "$work/cut-run/final.png" ]'
"$redraw" train "$work/most.png" --config "$cfg" --out "$work/most-run" >/dev/null 2>"$work/most.err"
check '[ $? = 1 ] && grep -qx "error: $work/most.png: corrupt or truncated image: the file ends before the image does; rows 13-30 of 30 (60%) are missing, more than half of the picture" "$work/most.err" && [ ! -e "$work/most-run" ]'
"$redraw" info "$work/whole.png" >"$work/whole.out" 2>&1
check '[ $? = 0 ] && ! grep -q "note:" "$work/whole.out"'

# Float TIFFs of 64 and 16 bits decode; a TIFF cut before its directory is called truncated.
"$redraw" info "$work/f64.tif" >"$work/f64.out" 2>&1
check '[ $? = 0 ] && grep -q "TIFF, 3 channels, 64 bits per sample (float)" "$work/f64.out"'
"$redraw" info "$work/half.tif" >"$work/half.out" 2>&1
check '[ $? = 0 ] && grep -q "TIFF, 1 channel, 16 bits per sample (float)" "$work/half.out"'
"$redraw" train "$work/f64.tif" --config "$cfg" --out "$work/f64-run" >/dev/null 2>&1
check '[ $? = 0 ] && [ -s "$work/f64-run/final.png" ]'
"$redraw" info "$work/cut.tif" >"$work/cuttif.out" 2>&1
check '[ $? = 1 ] && grep -qF "error: $work/cut.tif: corrupt or truncated image: the file ends before the image does" "$work/cuttif.out"'

finish damaged_images
