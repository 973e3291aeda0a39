#!/usr/bin/env python3
"""Writes hostile .redraw models whose chunks unpack to far more than the file's size (zstd
frames of run-length blocks: 4 bytes give 128 KiB), for the model reader's memory floor and the
fuzz seeds. The CRC is right, so the reader meets the chunk itself.
Usage: model_bombs.py BASE.redraw OUT_DIR [SCALE]
  BASE is a format-3 model (64x48 or any size); SCALE (default 1) multiplies the bombs' sizes
  (the fuzz seeds use a small scale to stay under libFuzzer's -max_len).
Writes OUT_DIR/bomb-<kind>.redraw for each kind below and prints one line per file:
  unknown   an unknown chunk claiming 8 GiB (the reader skips it: the model opens)
  meta      META claiming 4 GiB unpacked (refused from its header)
  meta-runs META claiming 1 KiB whose data runs on for GiBs (refused when it runs past)
  parm      PARM of the right length whose data runs on (refused when it runs past)
  hist      HIST claiming 2^40 bytes (refused from its header)
  bigframe  a frame picture of 16384x16384 in a small model (refused: larger than its frames)
  frames    more frames than the limit allows, each the largest picture, as one run of zeros
            (refused: the pictures come to more than the limit)
  frames-fit as many as the limit allows (the model opens: the worst a file may cost)
  chunks    META and 200,000 empty unknown chunks, 2.4 MB (refused from the header: over the chunk limit)
"""
import ctypes, ctypes.util, json, struct, sys, zlib

def rle_frame(total, byte=0):
    """A zstd frame of `total` copies of `byte`: run-length blocks of 128 KiB, no content size."""
    out = bytearray(struct.pack('<I', 0xFD2FB528)) + bytes([0x00, 7 << 3]) # window 2^17
    block = 1 << 17
    while total > 0:
        n = min(block, total)
        total -= n
        head = (1 if total == 0 else 0) | (1 << 1) | (n << 3)
        out += struct.pack('<I', head)[:3] + bytes([byte])
    if not out[6:]: # an empty frame still needs its last block
        out += struct.pack('<I', 1 | (1 << 1))[:3] + bytes([byte])
    return bytes(out)

def packed(raw_len, payload, width=1):
    return struct.pack('<BBHQ', 1, width, 0, raw_len) + payload

def read(path):
    b = open(path, 'rb').read()
    version, count = struct.unpack_from('<II', b, 8)
    if version < 3: sys.exit('model_bombs.py: %s is format %d; a packed (format 3) model is needed' % (path, version))
    off, chunks = 16, []
    for _ in range(count):
        tag = b[off:off + 4]; n, = struct.unpack_from('<Q', b, off + 4)
        chunks.append([tag, b[off + 12:off + 12 + n]]); off += 12 + n
    return version, chunks

def write(path, version, chunks):
    b = bytearray(b'RDRWMODL') + struct.pack('<II', version, len(chunks))
    for tag, body in chunks:
        b += tag + struct.pack('<Q', len(body)) + body
    b += struct.pack('<I', zlib.crc32(bytes(b)))
    open(path, 'wb').write(bytes(b))

def replaced(chunks, tag, body):
    return [[t, body if t == tag else b] for t, b in chunks]

def parm_length(chunks):
    body = next(b for t, b in chunks if t == b'PARM')
    return struct.unpack_from('<Q', body, 4)[0]

def frame_record(step, w, h, channels=3):
    # metrics row (i64 step, four f64), flags (picture), channels, u16 0, i32 w, h
    return struct.pack('<qddddBBHii', step, 0.01, 20.0, 1e-3, 1.0, 4, channels, 0, w, h)

def main():
    if len(sys.argv) not in (3, 4): sys.exit(__doc__)
    base, out = sys.argv[1], sys.argv[2]
    scale = float(sys.argv[3]) if len(sys.argv) == 4 else 1.0
    big = lambda n: max(1 << 17, int(n * scale))
    version, chunks = read(base)
    gib = 1 << 30
    bombs = {
        'unknown': chunks + [[b'ZZZZ', packed(8 * gib, rle_frame(big(8 * gib)))]],
        'meta': replaced(chunks, b'META', packed(4 * gib, rle_frame(big(4 * gib), ord(' ')))),
        'meta-runs': replaced(chunks, b'META', packed(1024, rle_frame(big(4 * gib), ord(' ')))),
        'parm': replaced(chunks, b'PARM', packed(parm_length(chunks), rle_frame(big(8 * gib)), 4)),
        'hist': replaced(chunks, b'HIST', packed(1 << 40, rle_frame(big(gib)), 8)),
    }
    # Frames: FRAM's records as they are written, FPIC a run of zeros of the pictures' size.
    records = struct.pack('<Q', 1) + frame_record(1, 16384, 16384)
    bombs['bigframe'] = replaced(replaced(chunks, b'FRAM', stored(records)), b'FPIC',
                                 packed(16384 * 16384 * 3, rle_frame(big(16384 * 16384 * 3))))
    # As many of the model's largest frame pictures as pass the 256 MiB limit, and a few more.
    meta = json.loads(unpack(next(b for t, b in chunks if t == b'META')))
    w, h = meta['image_width'], meta['image_height']
    if max(w, h) > 256: w, h = max(1, round(w * 256 / max(w, h))), max(1, round(h * 256 / max(w, h)))
    fit = min((256 << 20) // (w * h * 3), 65536)
    for kind, n in (('frames', fit + 8), ('frames-fit', fit)):
        records = struct.pack('<Q', n) + b''.join(frame_record(i + 1, w, h) for i in range(n))
        c = replaced(replaced(chunks, b'FWGT', stored(b'')), b'FXCT', stored(b'')) # pictures only
        c = replaced(c, b'META', stored(json.dumps(dict(meta, step=n + 1)).encode())) # frames' steps 1..n
        bombs[kind] = replaced(replaced(c, b'FRAM', packed(len(records), zstd(records))), b'FPIC',
                               packed(n * w * h * 3, rle_frame(n * w * h * 3 if kind == 'frames-fit' else big(n * w * h * 3))))
    bombs['chunks'] = [[t, b] for t, b in chunks if t == b'META'] + [[b'ZZZZ', b'']] * 200000
    for kind, c in bombs.items():
        path = '%s/bomb-%s.redraw' % (out, kind)
        write(path, version, c)
        print(path)

def unpack(body):
    """A packed META body's JSON bytes (stored, or zstd of element width 1)."""
    codec, width, _, n = struct.unpack_from('<BBHQ', body, 0)
    if codec == 0: return bytes(body[12:])
    lib = ctypes.CDLL(ctypes.util.find_library('zstd') or 'libzstd.so.1')
    lib.ZSTD_decompress.restype = ctypes.c_size_t
    out = ctypes.create_string_buffer(max(n, 1))
    got = lib.ZSTD_decompress(out, ctypes.c_size_t(n), bytes(body[12:]), ctypes.c_size_t(len(body) - 12))
    if got != n: sys.exit('model_bombs.py: cannot unpack META')
    return out.raw[:n]

def stored(raw):
    return struct.pack('<BBHQ', 0, 1, 0, len(raw)) + raw

def zstd(raw):
    """`raw` compressed by libzstd (through ctypes, as the project links it)."""
    lib = ctypes.CDLL(ctypes.util.find_library('zstd') or 'libzstd.so.1')
    lib.ZSTD_compressBound.restype = ctypes.c_size_t
    lib.ZSTD_compress.restype = ctypes.c_size_t
    cap = lib.ZSTD_compressBound(ctypes.c_size_t(len(raw)))
    buf = ctypes.create_string_buffer(cap)
    n = lib.ZSTD_compress(buf, ctypes.c_size_t(cap), raw, ctypes.c_size_t(len(raw)), 19)
    return buf.raw[:n]

if __name__ == '__main__':
    main()
