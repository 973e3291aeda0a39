"""Fixtures of the Python module's tests (ctest -R python; docs/python.md).

The module and the CLI come from the build tree: ctest sets PYTHONPATH to the built module and
python/ (for redraw_reference), and REDRAW_CLI to the redraw executable.
"""
import os
import struct
import zlib

import numpy as np
import pytest

import redraw


def png_bytes(pixels):
    """A PNG of an (H, W, C) uint8 or uint16 array, encoded here (filter 0, one zlib stream): an
    independent writer to check load_image against."""
    h, w, c = pixels.shape
    depth = 16 if pixels.dtype == np.uint16 else 8
    colour = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    rows = pixels.astype(">u2" if depth == 16 else "u1").reshape(h, -1)
    raw = b"".join(b"\0" + row.tobytes() for row in rows)

    def chunk(tag, body):
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))

    ihdr = struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def smooth_picture(w=24, h=20, channels=3, seed=0):
    """A smooth colour picture in [0, 1] (fits quickly) with a little noise."""
    y, x = np.mgrid[0:h, 0:w] / np.array([h, w]).reshape(2, 1, 1)
    base = [0.5 + 0.4 * np.sin(3 * x + 2 * y), 0.5 + 0.4 * np.cos(2 * x - y), x * y]
    img = np.stack(base[:channels], axis=2)
    img += np.random.default_rng(seed).uniform(-0.02, 0.02, img.shape)
    return np.clip(img, 0, 1).astype(np.float32)


@pytest.fixture
def picture():
    return smooth_picture()


@pytest.fixture
def picture_file(tmp_path):
    """A 24 x 20 RGB PNG on disk, and its pixels as uint8."""
    pixels = (smooth_picture() * 255).round().astype(np.uint8)
    path = tmp_path / "picture.png"
    path.write_bytes(png_bytes(pixels))
    return path, pixels


@pytest.fixture
def cli():
    exe = os.environ.get("REDRAW_CLI")
    if not exe or not os.path.exists(exe):
        pytest.skip("REDRAW_CLI is not set to the redraw executable (ctest sets it)")
    return exe


def tiny(preset):
    """A preset's config with narrow layers (its encoding, activations, init, loss, optimizer and
    schedule kept) and RGB pictures, so a test trains it in milliseconds."""
    c = redraw.preset_config(preset)
    m = c["model"]
    m["hidden"] = [16] * min(len(m["hidden"]), 2)
    if "activations" in m:
        m["activations"] = m["activations"][:len(m["hidden"])]
    if m["encoding"]["otype"] == "Fourier":
        m["encoding"]["features"] = 16
    if m["encoding"]["otype"] == "Gaussians":
        m["gaussians"] = 200
    if m["encoding"]["otype"] == "Sad":
        m["sites"] = 150
    c["data"]["color_mode"] = "rgb"
    return c


def small_trainer(image, preset="classic", steps=30, **kw):
    """A run small enough for a test: 24 x 20 pixels at most, a narrow network, the CPU, a few steps."""
    kw.setdefault("size", 24)
    return redraw.Trainer(image, preset=tiny(preset), backend="cpu", steps=steps, **kw)
