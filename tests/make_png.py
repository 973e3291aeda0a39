#!/usr/bin/env python3
"""Writes an 8-bit grey PNG of W x H with a diagonal pattern: make_png.py OUT W H (no imaging library needed)."""
import struct, sys, zlib
def png(path, w, h):
    raw = b''.join(b'\x00' + bytes(((x * 7 + y * 13) % 256) for x in range(w)) for y in range(h))
    def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0)) +
                           chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
png(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
