#!/usr/bin/env bash
# JSON nested 65,000 to 100,000 levels deep wherever redraw reads JSON: --config, a sweep's --spec,
# --set and sweep.json, and a model's metadata. Each is refused with an error naming the file and
# the field, and no crash (nlohmann's recursive copy and dump would overflow the stack).
# Usage: deep_json.sh path/to/redraw
set -u
redraw="$1"
. "$(dirname "$0")/../lib.sh"
make_png "$work/a.png" 24 16
tiny_config "$work/tiny.json" 5 5
deep() { python3 -c 'import sys; n = int(sys.argv[1]); sys.stdout.write("[" * n + "1" + "]" * n)' "$1"; }
too_deep="nested deeper than 64 levels of arrays and objects"

printf '{"model": {"encoding": {"sized_to_image": %s}}}\n' "$(deep 100000)" >"$work/deep.json"
expect 1 "$work/deep.json: model.encoding.sized_to_image[][][]...: $too_deep" -- \
  "$redraw" train "$work/a.png" --config "$work/deep.json" --out "$work/t"
printf '{"images": ["%s"], "set": {"model.hidden": %s}}\n' "$work/a.png" "$(deep 100000)" >"$work/spec.json"
expect 2 "$work/spec.json: set.model.hidden[][][][]...: $too_deep" -- \
  "$redraw" sweep --spec "$work/spec.json" --presets "$work/tiny.json" --out "$work/s1"
# One argument holds at most 128 KiB: 65,000 levels.
expect 2 "--set model.hidden: [][][][][][]...: $too_deep" -- \
  "$redraw" sweep --images "$work/a.png" --presets "$work/tiny.json" --set "model.hidden=$(deep 65000)" --out "$work/s2"
mkdir -p "$work/s3"
printf '{"format": "redraw-sweep", "version": %s}\n' "$(deep 100000)" >"$work/s3/sweep.json"
expect 1 "$work/s3/sweep.json: version[][][][][]...: $too_deep" -- "$redraw" sweep --collect --out "$work/s3"
expect 1 "$work/s3/sweep.json: version[][][][][]...: $too_deep" -- "$redraw" sweep --out "$work/s3"
check '[ ! -e "$work/t" ] && [ ! -e "$work/s1" ] && [ ! -e "$work/s2" ]  # nothing written'

# A model whose META holds a deep value (stored, with a correct CRC).
"$redraw" train "$work/a.png" --config "$work/tiny.json" --out "$work/run" >/dev/null 2>&1 || fail "training the base model"
model_mutate "$work/run/model.redraw" "$work/marked.redraw" meta config.model.encoding.sized_to_image '"MARK"' ||
  fail "marking META"
python3 - "$work/marked.redraw" "$work/deep.redraw" <<'PY'
import struct, sys, zlib
b = open(sys.argv[1], 'rb').read() # model_mutate.py writes every chunk stored: {0, 1, 0, u64 n} + bytes
version, count = struct.unpack_from('<II', b, 8)
out, off = bytearray(b[:16]), 16
for _ in range(count):
    tag, (n,) = b[off:off + 4], struct.unpack_from('<Q', b, off + 4)
    body = b[off + 12:off + 12 + n]
    off += 12 + n
    if tag == b'META':
        raw = body[12:].replace(b'"MARK"', b'[' * 100000 + b']' * 100000)
        body = struct.pack('<BBHQ', 0, 1, 0, len(raw)) + raw
    out += tag + struct.pack('<Q', len(body)) + body
out += struct.pack('<I', zlib.crc32(bytes(out)))
open(sys.argv[2], 'wb').write(bytes(out))
PY
expect 1 "$work/deep.redraw: chunk META: config.model.encoding.sized_to_image[][]...: $too_deep" -- \
  "$redraw" info "$work/deep.redraw"
expect 1 "chunk META: config.model.encoding.sized_to_image[][]...: $too_deep" -- \
  "$redraw" render "$work/deep.redraw" -o "$work/r.png"
check '[ ! -e "$work/r.png" ]'
finish deep_json
