"""A plain numpy decoder of Redraw's weights files (`redraw export-weights`, Model.export_weights).

It reads the safetensors file with numpy alone and evaluates the network in float64, written from
the file's own description (its __metadata__), not from Redraw's code: an independent check of
the engine's renders, and a starting point for using the weights anywhere else.

    import redraw_reference as ref
    net = ref.load("model.safetensors")
    picture = ref.render(net, 512, 512)       # (H, W, C) float64 in [0, 1]
    values = ref.predict(net, coords01)       # (N, C), coordinates (x, y) in [0, 1]^2
"""
import json
import struct

import numpy as np

_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I32": "<i4", "I64": "<i8", "U8": "u1"}


def read_safetensors(path):
    """(tensors, metadata): a dict of name -> numpy array, and the __metadata__ dict of strings."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    body = memoryview(data)[8 + n:]
    meta = header.pop("__metadata__", {})
    tensors = {}
    for name, t in header.items():
        begin, end = t["data_offsets"]
        a = np.frombuffer(body[begin:end], dtype=_DTYPES[t["dtype"]])
        tensors[name] = a.reshape(t["shape"])
    return tensors, meta


def load(path):
    """The network in a weights file, as a dict ready for predict() and render()."""
    tensors, meta = read_safetensors(path)
    if meta.get("format") != "redraw-weights":
        raise ValueError(f"{path}: not a Redraw weights file (metadata format is {meta.get('format')!r})")
    n = int(meta["layer_count"])
    net = {
        "meta": meta,
        "encoding": meta["encoding"],
        "activations": json.loads(meta["activations"]),
        "omega_0": float(meta["omega_0"]),
        "gauss_scale": float(meta.get("gauss_scale", "10")),  # absent in files written before it existed
        "layers": [(tensors[f"layers.{k}.weight"].astype(np.float64), tensors[f"layers.{k}.bias"].astype(np.float64))
                   for k in range(n)],
        "size": (int(meta["image_width"]), int(meta["image_height"])),
    }
    if net["encoding"] == "Fourier":
        net["fourier_b"] = tensors["encoding.fourier_b"].astype(np.float64)
    if net["encoding"] == "Positional":
        net["levels"] = int(meta["positional_levels"])
    if net["encoding"] == "Gaussians":
        net["gaussians"] = {
            "params": tensors["encoding.gaussians"].astype(np.float64),
            "diag_floor": float(meta["gaussian_diag_floor"]),
            "cutoff": float(meta["gaussian_cutoff"]),
        }
    if net["encoding"] == "HashGrid":
        levels = int(meta["hash_grid_levels"])
        net["grid"] = {
            "tables": [tensors[f"encoding.hash_grid.level_{l:02d}"].astype(np.float64) for l in range(levels)],
            "resolutions": json.loads(meta["hash_grid_resolutions"]),
            "dense": json.loads(meta["hash_grid_dense"]),
            "table_size": int(meta["hash_grid_table_size"]),
            "prime_y": int(meta["hash_grid_prime_y"]),
            "smoothstep": meta["hash_grid_interpolation"] == "Smoothstep",
        }
    return net


def _hash_grid(grid, x, y):
    """Per level: the four corners of the point's cell, weighted bilinearly (or by smoothstep)."""
    out = []
    for table, res, dense in zip(grid["tables"], grid["resolutions"], grid["dense"]):
        cells = []
        for v in (x, y):
            p = np.clip((v + 1.0) * 0.5 * res, 0.0, res)
            c = np.minimum(np.floor(p), res - 1)
            cells.append((c.astype(np.uint64), p - c))
        (cx, fx), (cy, fy) = cells
        if grid["smoothstep"]:
            fx, fy = fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy)
        value = 0.0
        for dx, dy, w in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
            vx, vy = cx + np.uint64(dx), cy + np.uint64(dy)
            if dense:
                index = vx + vy * np.uint64(res + 1)
            else:  # the spatial hash, in 32-bit arithmetic: vx xor (vy * prime) mod 2^32, then mod T
                index = (vx ^ ((vy * np.uint64(grid["prime_y"])) & np.uint64(0xFFFFFFFF))) % np.uint64(grid["table_size"])
            value = value + w[:, None] * table[index.astype(np.int64)]
        out.append(value)
    return np.concatenate(out, axis=1)


def _gaussians(g, x, y):
    """The Gaussians' colours summed at each point, all pairs (engine/gaussian_math.h): L = cell
    [[d(l11), 0], [l21, d(l22)]] with d(l) = sqrt(l^2 + floor^2) and cell = 2 / sqrt(count) (as the
    engine rounds it, to float32); w = exp(-q/2) - exp(-cutoff/2) where q = |L^-1 (p - mean)|^2 < cutoff."""
    p, floor, cutoff = g["params"], g["diag_floor"], g["cutoff"]
    cell = float(np.float32(2.0 / np.sqrt(len(p))))
    out = np.zeros((len(x), 3))
    for k in range(0, len(p), 256):  # a block of Gaussians at a time: points x block stays small
        mx, my, l11, l21, l22 = (p[k:k + 256, i] for i in range(5))
        a, b, c = cell * np.sqrt(l11 * l11 + floor * floor), cell * l21, cell * np.sqrt(l22 * l22 + floor * floor)
        z1 = (x[:, None] - mx) / a
        z2 = (y[:, None] - my - b * z1) / c
        q = z1 * z1 + z2 * z2
        w = np.where(q < cutoff, np.exp(-0.5 * q) - np.exp(-0.5 * cutoff), 0.0)
        out += w @ p[k:k + 256, 5:8]
    return out


def _encode(net, x, y):
    kind = net["encoding"]
    if kind == "Identity":
        return np.stack([x, y], axis=1)
    if kind == "Positional":
        cols = [x, y]
        for k in range(net["levels"]):
            f = np.pi * 2.0 ** k
            cols += [np.sin(f * x), np.cos(f * x), np.sin(f * y), np.cos(f * y)]
        return np.stack(cols, axis=1)
    if kind == "Fourier":
        phase = np.pi * (np.outer(x, net["fourier_b"][:, 0]) + np.outer(y, net["fourier_b"][:, 1]))
        return np.concatenate([np.sin(phase), np.cos(phase)], axis=1)
    if kind == "HashGrid":
        return _hash_grid(net["grid"], x, y)
    if kind == "Gaussians":
        return _gaussians(net["gaussians"], x, y)
    raise ValueError(f"unknown encoding {kind!r}")


def _activate(name, z, omega, s):
    if name == "Identity":
        return z
    if name == "ReLU":
        return np.maximum(z, 0.0)
    if name == "LeakyReLU":
        return np.where(z > 0, z, 0.01 * z)
    if name == "Tanh":
        return np.tanh(z)
    if name == "Sigmoid":
        return 1.0 / (1.0 + np.exp(-z))
    if name == "Softplus":
        return np.where(z > 20.0, z, np.log1p(np.exp(np.minimum(z, 20.0))))
    if name == "Sine":
        return np.sin(omega * z)
    if name == "Finer":
        return np.sin(omega * (np.abs(z) + 1.0) * z)
    if name == "Gauss":
        return np.exp(-((s * z) ** 2))
    if name == "Gabor":
        return np.cos(omega * z) * np.exp(-((s * z) ** 2))
    raise ValueError(f"unknown activation {name!r}")


def forward(net, xy):
    """Outputs (N, C), unclamped, at network coordinates xy (N, 2) in [-1, 1]^2."""
    xy = np.asarray(xy, dtype=np.float64)
    h = _encode(net, xy[:, 0], xy[:, 1])
    for (w, b), act in zip(net["layers"], net["activations"]):
        h = _activate(act, h @ w.T + b, net["omega_0"], net["gauss_scale"])
    return h


def predict(net, coords01):
    """Outputs (N, C), unclamped, at (N, 2) coordinates (x, y) in [0, 1]^2."""
    return forward(net, 2.0 * np.asarray(coords01, dtype=np.float64) - 1.0)


def render(net, width=None, height=None):
    """The picture (H, W, C) in [0, 1], sampled at pixel centres: pixel i of n at 2 (i + 0.5) / n - 1."""
    width, height = (width, height) if width else net["size"]
    f = np.float32  # the coordinates as Redraw computes them, in float32
    xs = f(2) * (np.arange(width, dtype=f) + f(0.5)) / f(width) - f(1)
    ys = f(2) * (np.arange(height, dtype=f) + f(0.5)) / f(height) - f(1)
    gx, gy = np.meshgrid(xs, ys)
    out = forward(net, np.stack([gx.ravel(), gy.ravel()], axis=1))
    return np.clip(out, 0.0, 1.0).reshape(height, width, -1)
