#!/usr/bin/env python3
"""Rewrites a .redraw model with one change in meaning and a correct CRC, for the fault tests and
the fuzz seeds. Usage: model_mutate.py IN OUT OP [ARGS...]
  param I VALUE        weight I of PARM set to VALUE (a float: 3e38, nan, inf)
  param-every I S N V  N weights of PARM, from I and S apart, set to V (every Gaussian's size)
  optm I VALUE         value I of the first OPTM array
  snap K I VALUE       weight I of timelapse frame K (format 3: fp16 or exact, as the frame keeps it)
  meta KEY JSON        META[KEY] = JSON (a dotted KEY reaches into objects: config.name)
  meta-long KEY N      META[KEY] = a string of N letters
  hist-step I STEP     the step of history row I
  snap-step K STEP     the step of snapshot K
  drop TAG | dup TAG   remove a chunk, or repeat it
  reverse              the chunks in reverse order
From format 3 on, chunk bodies are packed ({u8 codec, u8 element width, u16 0, u64 length},
then the body stored or zstd-compressed with its elements' bytes grouped by significance): they
are unpacked here (libzstd through ctypes) and written back stored, which the reader accepts.
"""
import ctypes, ctypes.util, json, struct, sys, zlib

def unpack(body):
    codec, width, _, n = struct.unpack_from('<BBHQ', body, 0)
    payload = bytes(body[12:])
    if codec == 0: return bytearray(payload)
    lib = ctypes.CDLL(ctypes.util.find_library('zstd') or 'libzstd.so.1')
    out = ctypes.create_string_buffer(max(n, 1))
    lib.ZSTD_decompress.restype = ctypes.c_size_t
    got = lib.ZSTD_decompress(out, ctypes.c_size_t(n), payload, ctypes.c_size_t(len(payload)))
    if got != n: sys.exit('cannot unpack a chunk (zstd returned %d)' % got)
    planes, k = out.raw[:n], n // width
    return bytearray(bytes(planes[b * k + i] for i in range(k) for b in range(width)))

def read(path):
    b = open(path, 'rb').read()
    version, count = struct.unpack_from('<II', b, 8)
    off, chunks = 16, []
    for _ in range(count):
        tag = b[off:off + 4]; n, = struct.unpack_from('<Q', b, off + 4)
        body = bytearray(b[off + 12:off + 12 + n])
        chunks.append([tag, unpack(body) if version >= 3 else body]); off += 12 + n
    return version, chunks

def write(path, version, chunks):
    b = bytearray(b'RDRWMODL') + struct.pack('<II', version, len(chunks))
    for tag, body in chunks:
        if version >= 3: body = struct.pack('<BBHQ', 0, 1, 0, len(body)) + body
        b += tag + struct.pack('<Q', len(body)) + body
    b += struct.pack('<I', zlib.crc32(bytes(b)))
    open(path, 'wb').write(bytes(b))

def chunk(chunks, tag):
    return next(c for c in chunks if c[0] == tag.encode())[1]

ROW = 8 + 4 * 8
FRAME = ROW + 4 + 8  # format 3 FRAM record: the row, u8 flags, u8 channels, u16, i32 width, i32 height
HALF, EXACT = 1, 2

def set_frame_weight(chunks, k, i, value):
    """Format 3: weight i of frame k, in FWGT (fp16) or FXCT (fp32) as the frame's flags say."""
    count = len(chunk(chunks, 'PARM')) // 4
    rec = chunk(chunks, 'FRAM')
    flags = [rec[8 + FRAME * j + ROW] for j in range(k + 1)]
    if flags[k] & HALF:
        before = sum(1 for f in flags[:k] if f & HALF)
        half = 0x7C00 if value > 65504 else 0xFC00 if value < -65504 else None
        raw = struct.pack('<H', half) if half is not None else struct.pack('<e', value)
        body, off = chunk(chunks, 'FWGT'), 2 * (before * count + i)
        body[off:off + 2] = raw
    elif flags[k] & EXACT:
        before = sum(1 for f in flags[:k] if f & EXACT)
        struct.pack_into('<f', chunk(chunks, 'FXCT'), 4 * (before * count + i), value)
    else: sys.exit('frame %d keeps no weights' % k)

def snap_offset(body, k):
    off = 8
    for _ in range(k):
        n, = struct.unpack_from('<Q', body, off + ROW); off += ROW + 8 + 4 * n
    return off

def main(a):
    version, chunks = read(a[0]); op = a[2]
    if op == 'param': struct.pack_into('<f', chunk(chunks, 'PARM'), (0 if version >= 3 else 8) + 4 * int(a[3]), float(a[4]))
    elif op == 'param-every':  # param-every START STRIDE COUNT VALUE: COUNT floats of PARM, STRIDE apart
        for k in range(int(a[5])):
            struct.pack_into('<f', chunk(chunks, 'PARM'), (0 if version >= 3 else 8) + 4 * (int(a[3]) + k * int(a[4])), float(a[6]))
    elif op == 'optm': struct.pack_into('<f', chunk(chunks, 'OPTM'), 8 + 4 * int(a[3]), float(a[4]))
    elif op == 'snap' and version >= 3: set_frame_weight(chunks, int(a[3]), int(a[4]), float(a[5]))
    elif op == 'snap-step' and version >= 3: struct.pack_into('<q', chunk(chunks, 'FRAM'), 8 + FRAME * int(a[3]), int(a[4]))
    elif op == 'snap':
        body = chunk(chunks, 'SNAP'); struct.pack_into('<f', body, snap_offset(body, int(a[3])) + ROW + 8 + 4 * int(a[4]), float(a[5]))
    elif op == 'snap-step':
        body = chunk(chunks, 'SNAP'); struct.pack_into('<q', body, snap_offset(body, int(a[3])), int(a[4]))
    elif op == 'hist-step': struct.pack_into('<q', chunk(chunks, 'HIST'), 8 + ROW * int(a[3]), int(a[4]))
    elif op in ('meta', 'meta-long'):
        body = chunk(chunks, 'META'); meta = json.loads(bytes(body)); keys = a[3].split('.'); obj = meta
        for k in keys[:-1]: obj = obj[k]
        obj[keys[-1]] = json.loads(a[4]) if op == 'meta' else 'a' * int(a[4])
        body[:] = json.dumps(meta).encode()
    elif op == 'drop': chunks = [c for c in chunks if c[0] != a[3].encode()]
    elif op == 'dup': chunks += [[c[0], bytearray(c[1])] for c in chunks if c[0] == a[3].encode()]
    elif op == 'reverse': chunks.reverse()
    else: sys.exit('unknown op ' + op)
    write(a[1], version, chunks)

main(sys.argv[1:])
