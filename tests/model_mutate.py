#!/usr/bin/env python3
"""Rewrites a .redraw model with one change in meaning and a correct CRC, for the fault tests and
the fuzz seeds. Usage: model_mutate.py IN OUT OP [ARGS...]
  param I VALUE        weight I of PARM set to VALUE (a float: 3e38, nan, inf)
  optm I VALUE         value I of the first OPTM array
  snap K I VALUE       weight I of snapshot K
  meta KEY JSON        META[KEY] = JSON (a dotted KEY reaches into objects: config.name)
  meta-long KEY N      META[KEY] = a string of N letters
  hist-step I STEP     the step of history row I
  snap-step K STEP     the step of snapshot K
  drop TAG | dup TAG   remove a chunk, or repeat it
  reverse              the chunks in reverse order
"""
import json, struct, sys, zlib

def read(path):
    b = open(path, 'rb').read()
    version, count = struct.unpack_from('<II', b, 8)
    off, chunks = 16, []
    for _ in range(count):
        tag = b[off:off + 4]; n, = struct.unpack_from('<Q', b, off + 4)
        chunks.append([tag, bytearray(b[off + 12:off + 12 + n])]); off += 12 + n
    return version, chunks

def write(path, version, chunks):
    b = bytearray(b'RDRWMODL') + struct.pack('<II', version, len(chunks))
    for tag, body in chunks: b += tag + struct.pack('<Q', len(body)) + body
    b += struct.pack('<I', zlib.crc32(bytes(b)))
    open(path, 'wb').write(bytes(b))

def chunk(chunks, tag):
    return next(c for c in chunks if c[0] == tag.encode())[1]

ROW = 8 + 4 * 8

def snap_offset(body, k):
    off = 8
    for _ in range(k):
        n, = struct.unpack_from('<Q', body, off + ROW); off += ROW + 8 + 4 * n
    return off

def main(a):
    version, chunks = read(a[0]); op = a[2]
    if op == 'param': struct.pack_into('<f', chunk(chunks, 'PARM'), 8 + 4 * int(a[3]), float(a[4]))
    elif op == 'optm': struct.pack_into('<f', chunk(chunks, 'OPTM'), 8 + 4 * int(a[3]), float(a[4]))
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
