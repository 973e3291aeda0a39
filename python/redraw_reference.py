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
# Points evaluated at once: a tile's activations (and a Gaussians model's points x 64 block) stay
# a few tens of megabytes whatever the picture's size.
TILE_POINTS = 8192


def read_safetensors(path):
    """(tensors, metadata): a dict of name -> numpy array, and the __metadata__ dict of strings.
    ValueError naming the file and the part for anything that is not a well-formed safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: {len(data)} bytes, shorter than a safetensors header's length")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise ValueError(f"{path}: the header claims {n} bytes, the file holds {len(data) - 8} after its length")
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{path}: the header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise ValueError(f"{path}: the header is not a JSON object")
    body = memoryview(data)[8 + n:]
    meta = header.pop("__metadata__", {})
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise ValueError(f"{path}: __metadata__ is not an object of strings")
    tensors = {}
    for name, t in header.items():
        tensors[name] = _tensor(path, name, t, body)
    return tensors, meta


def _tensor(path, name, t, body):
    """One header entry's array, its dtype, shape and offsets checked against the data."""
    where = f"{path}: tensor {name!r}"
    if not isinstance(t, dict):
        raise ValueError(f"{where}: not an object")
    dtype, shape, offsets = t.get("dtype"), t.get("shape"), t.get("data_offsets")
    if not isinstance(dtype, str) or dtype not in _DTYPES:
        raise ValueError(f"{where}: dtype {dtype!r} is not one of {sorted(_DTYPES)}")
    if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
        raise ValueError(f"{where}: shape {shape!r} is not a list of sizes")
    if (not isinstance(offsets, list) or len(offsets) != 2 or not all(type(o) is int for o in offsets)
            or not 0 <= offsets[0] <= offsets[1] <= len(body)):
        raise ValueError(f"{where}: data_offsets {offsets!r} are not a span of the {len(body)} data bytes")
    item = np.dtype(_DTYPES[dtype]).itemsize
    count = 1
    for d in shape:
        count *= d
    if offsets[1] - offsets[0] != count * item:
        raise ValueError(f"{where}: shape {shape} of {dtype} needs {count * item} bytes, data_offsets span "
                         f"{offsets[1] - offsets[0]}")
    return np.frombuffer(body[offsets[0]:offsets[1]], dtype=_DTYPES[dtype]).reshape(shape)


def _meta_number(path, meta, key, kind=int, default=None):
    """A metadata field as an int or a float; ValueError naming the field when absent or not one."""
    if key not in meta and default is not None:
        return default
    try:
        value = kind(meta[key])
    except KeyError:
        raise ValueError(f"{path}: the metadata has no {key!r}") from None
    except (ValueError, OverflowError):
        raise ValueError(f"{path}: metadata {key!r} is {meta[key]!r}, not a {kind.__name__}") from None
    if kind is float and not np.isfinite(value):
        raise ValueError(f"{path}: metadata {key!r} is {meta[key]!r}, not a finite number")
    return value


def _meta_list(path, meta, key, count, kinds):
    """A metadata field holding a JSON list of `count` values of `kinds`."""
    try:
        value = json.loads(meta[key])
    except KeyError:
        raise ValueError(f"{path}: the metadata has no {key!r}") from None
    except (json.JSONDecodeError, RecursionError):
        raise ValueError(f"{path}: metadata {key!r} is not JSON") from None
    if not isinstance(value, list) or len(value) != count or not all(isinstance(v, kinds) for v in value):
        raise ValueError(f"{path}: metadata {key!r} is {meta[key]!r}, not a list of {count} {kinds}")
    return value


def _take(path, tensors, name, shape):
    """Tensor `name` as float64, refused (naming it) when it is missing or its shape is not `shape`
    (None in `shape`: any size there)."""
    if name not in tensors:
        raise ValueError(f"{path}: tensor {name!r} is missing")
    got = tensors[name].shape
    if len(got) != len(shape) or any(s is not None and g != s for g, s in zip(got, shape)):
        want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"{path}: tensor {name!r} has shape {list(got)}, the metadata says {want}")
    return tensors[name].astype(np.float64)


def load(path):
    """The network in a weights file, as a dict ready for predict() and render(). Every tensor's
    shape is checked against the metadata: ValueError naming the tensor or field that disagrees."""
    tensors, meta = read_safetensors(path)
    if meta.get("format") != "redraw-weights":
        raise ValueError(f"{path}: not a Redraw weights file (metadata format is {meta.get('format')!r})")
    n = _meta_number(path, meta, "layer_count")
    if not 0 <= n <= len(tensors):
        raise ValueError(f"{path}: metadata 'layer_count' is {n}, the file holds {len(tensors)} tensors")
    size = (_meta_number(path, meta, "image_width"), _meta_number(path, meta, "image_height"))
    if not all(1 <= s <= 65536 for s in size):
        raise ValueError(f"{path}: metadata image size {size[0]}x{size[1]} is outside 1..65536 per side")
    net = {
        "meta": meta,
        "encoding": meta.get("encoding"),
        "activations": _meta_list(path, meta, "activations", n, str),
        "omega_0": _meta_number(path, meta, "omega_0", float),
        "gauss_scale": _meta_number(path, meta, "gauss_scale", float, 10.0),  # absent in files written before it
        "size": size,
    }
    width = _load_encoding(path, meta, tensors, net)
    net["layers"] = []
    for k in range(n):
        w = _take(path, tensors, f"layers.{k}.weight", (None, width))
        net["layers"].append((w, _take(path, tensors, f"layers.{k}.bias", (w.shape[0],))))
        width = w.shape[0]
    channels = _meta_number(path, meta, "output_channels")
    if width != channels:
        raise ValueError(f"{path}: the network gives {width} outputs, metadata 'output_channels' says {channels}")
    net["outputs"] = width
    for act in net["activations"]:
        _activate(act, np.zeros(1), 1.0, 1.0)  # an unknown activation is refused here, not at render
    return net


def _load_encoding(path, meta, tensors, net):
    """The encoding's tensors and fields into `net`; returns how many values it gives a point."""
    family = _FAMILIES.get(net["encoding"])
    if family is None:
        raise ValueError(f"{path}: unknown encoding {net['encoding']!r}")
    return family[0](path, meta, tensors, net)


def _load_identity(path, meta, tensors, net):
    return 2


def _load_positional(path, meta, tensors, net):
    net["levels"] = _meta_number(path, meta, "positional_levels")
    if not 0 <= net["levels"] <= 64:
        raise ValueError(f"{path}: metadata 'positional_levels' is {net['levels']}, outside 0..64")
    return 2 + 4 * net["levels"]


def _load_fourier(path, meta, tensors, net):
    net["fourier_b"] = _take(path, tensors, "encoding.fourier_b", (None, 2))
    return 2 * len(net["fourier_b"])


def _load_gaussians(path, meta, tensors, net):
    count = _meta_number(path, meta, "gaussians")
    carrier = "gaussian_carrier" in meta  # a frequency (wx, wy) after each Gaussian's 8 floats
    net["gaussians"] = {
        "params": _take(path, tensors, "encoding.gaussians", (count, 10 if carrier else 8)),
        "diag_floor": _meta_number(path, meta, "gaussian_diag_floor", float),
        "cutoff": _meta_number(path, meta, "gaussian_cutoff", float),
        "carrier": carrier,
        "carrier_step": _meta_number(path, meta, "gaussian_carrier_step", float) if carrier else 0.0,
    }
    if count < 1:
        raise ValueError(f"{path}: metadata 'gaussians' is {count}, not a count of Gaussians")
    return 3


def _load_sad(path, meta, tensors, net):
    count = _meta_number(path, meta, "sites")
    if count < 1:
        raise ValueError(f"{path}: metadata 'sites' is {count}, not a count of sites")
    net["sad"] = {
        "params": _take(path, tensors, "encoding.sites", (count, 10)),
        "k": _meta_number(path, meta, "site_k"),
        "grid": _meta_number(path, meta, "site_grid"),
        "diag_floor": _meta_number(path, meta, "site_diag_floor", float),
        "tau_floor": _meta_number(path, meta, "site_tau_floor", float),
        "t_bound": _meta_number(path, meta, "site_t_bound", float),
    }
    if not 1 <= net["sad"]["k"] <= 64 or not 1 <= net["sad"]["grid"] <= 2**16:
        raise ValueError(f"{path}: metadata 'site_k' or 'site_grid' is outside 1..64 and 1..2^16")
    return 3


def _sad_energy(s, x, y):
    """Each site's energy (q - radius) / tau at each point (points x sites), engine/sad_math.h's rule."""
    p, floor = s["params"], s["diag_floor"]
    cell = float(np.float32(2.0 / np.sqrt(len(p))))
    mx, my, l11, l21, l22, radius, t = (p[:, i] for i in range(7))
    a, b, c = cell * np.sqrt(l11 * l11 + floor * floor), cell * l21, cell * np.sqrt(l22 * l22 + floor * floor)
    z1 = (x[:, None] - mx) / a
    z2 = (y[:, None] - my - b * z1) / c
    q = np.minimum(z1 * z1 + z2 * z2, 1e30)
    tau = s["tau_floor"] + np.exp(np.clip(t, -s["t_bound"], s["t_bound"]))
    return (q - radius) / tau


def _sad(s, x, y):
    """The sites' blend at each point (engine/sad_math.h): the point's node of the site_grid^2
    lattice (the nearest node centre, in float32 as the engine finds it) gives the K sites of least
    energy at the node's centre (ties to the lower index); the point blends their colours by
    softmax(-energy) at the point itself, a weight below exp(-80) of the largest being 0."""
    g, k, p = s["grid"], s["k"], s["params"]
    def node(v):
        t = (v.astype(np.float32) + np.float32(1)) * np.float32(0.5) * np.float32(g)
        return np.clip(np.floor(np.nan_to_num(t, nan=0.0)), 0, g - 1).astype(np.int64)
    nodes = node(y) * g + node(x)
    out = np.zeros((len(x), 3))
    for start in range(0, len(x), 4096):  # a block of points at a time: points x sites stays small
        sl = slice(start, start + 4096)
        uniq, inverse = np.unique(nodes[sl], return_inverse=True)
        cx = (2.0 * (uniq % g + 0.5) / g - 1.0).astype(np.float32).astype(np.float64)
        cy = (2.0 * (uniq // g + 0.5) / g - 1.0).astype(np.float32).astype(np.float64)
        order = np.argsort(_sad_energy(s, cx, cy), axis=1, kind="stable")[:, :min(k, len(p))]
        chosen = order[inverse]  # points x k site indices
        e = np.take_along_axis(_sad_energy(s, x[sl], y[sl]), chosen, axis=1)
        d = e.min(axis=1, keepdims=True) - e
        w = np.where(d > -80.0, np.exp(np.maximum(d, -80.0)), 0.0)
        w /= w.sum(axis=1, keepdims=True)
        out[sl] = np.einsum("pk,pkc->pc", w, p[chosen][:, :, 7:10])
    return out


def _load_grid(path, meta, tensors, net):
    net["grid"] = _load_hash_grid(path, meta, tensors)
    return len(net["grid"]["tables"]) * net["grid"]["features"]


def _load_hash_grid(path, meta, tensors):
    levels = _meta_number(path, meta, "hash_grid_levels")
    if not 1 <= levels <= len(tensors):
        raise ValueError(f"{path}: metadata 'hash_grid_levels' is {levels}, the file holds {len(tensors)} tensors")
    features = _meta_number(path, meta, "hash_grid_features")
    table_size = _meta_number(path, meta, "hash_grid_table_size")
    resolutions = _meta_list(path, meta, "hash_grid_resolutions", levels, int)
    dense = _meta_list(path, meta, "hash_grid_dense", levels, bool)
    if not 1 <= table_size <= 2**32 or not all(1 <= r <= 2**24 for r in resolutions):
        raise ValueError(f"{path}: hash grid table size {table_size} or resolutions {resolutions} are outside "
                         "1..2^32 and 1..2^24")
    tables = []
    for level, (res, is_dense) in enumerate(zip(resolutions, dense)):
        rows = (res + 1) ** 2 if is_dense else table_size  # a dense level holds every vertex
        tables.append(_take(path, tensors, f"encoding.hash_grid.level_{level:02d}", (rows, features)))
    return {
        "tables": tables,
        "features": features,
        "resolutions": resolutions,
        "dense": dense,
        "table_size": table_size,
        "prime_y": _meta_number(path, meta, "hash_grid_prime_y") % 2**32,
        "smoothstep": meta.get("hash_grid_interpolation") == "Smoothstep",
    }


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
    engine rounds it, to float32); w = exp(-q/2) - exp(-cutoff/2) where q = |L^-1 (p - mean)|^2 < cutoff,
    times cos(s (wx z1 + wy z2)) with z = L^-1 (p - mean) and s the carrier's step when the Gaussians
    have the carrier."""
    p, floor, cutoff = g["params"], g["diag_floor"], g["cutoff"]
    cell = float(np.float32(2.0 / np.sqrt(len(p))))
    out = np.zeros((len(x), 3))
    for k in range(0, len(p), 64):  # a block of Gaussians at a time: a tile's points x 64 stays small
        mx, my, l11, l21, l22 = (p[k:k + 64, i] for i in range(5))
        a, b, c = cell * np.sqrt(l11 * l11 + floor * floor), cell * l21, cell * np.sqrt(l22 * l22 + floor * floor)
        z1 = (x[:, None] - mx) / a
        z2 = (y[:, None] - my - b * z1) / c
        q = z1 * z1 + z2 * z2
        w = np.where(q < cutoff, np.exp(-0.5 * q) - np.exp(-0.5 * cutoff), 0.0)
        if g["carrier"]:
            w = w * np.cos(g["carrier_step"] * (p[k:k + 64, 8] * z1 + p[k:k + 64, 9] * z2))
        out += w @ p[k:k + 64, 5:8]
    return out


def _encode(net, x, y):
    family = _FAMILIES.get(net["encoding"])
    if family is None:
        raise ValueError(f"unknown encoding {net['encoding']!r}")
    return family[1](net, x, y)


def _encode_positional(net, x, y):
    cols = [x, y]
    for k in range(net["levels"]):
        f = np.pi * 2.0 ** k
        cols += [np.sin(f * x), np.cos(f * x), np.sin(f * y), np.cos(f * y)]
    return np.stack(cols, axis=1)


def _encode_fourier(net, x, y):
    phase = np.pi * (np.outer(x, net["fourier_b"][:, 0]) + np.outer(y, net["fourier_b"][:, 1]))
    return np.concatenate([np.sin(phase), np.cos(phase)], axis=1)


# Each model family's decoder, by the name the weights file's metadata 'encoding' gives (the
# family's record name, engine/model_family.h): how it loads its metadata and tensors, and how it
# encodes points. A new family is one line here and its two functions.
_FAMILIES = {
    "Identity": (_load_identity, lambda net, x, y: np.stack([x, y], axis=1)),
    "Positional": (_load_positional, _encode_positional),
    "Fourier": (_load_fourier, _encode_fourier),
    "HashGrid": (_load_grid, lambda net, x, y: _hash_grid(net["grid"], x, y)),
    "Gaussians": (_load_gaussians, lambda net, x, y: _gaussians(net["gaussians"], x, y)),
    "Sad": (_load_sad, lambda net, x, y: _sad(net["sad"], x, y)),
}


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


def forward(net, xy, tile=TILE_POINTS):
    """Outputs (N, C), unclamped, at network coordinates xy (N, 2) in [-1, 1]^2, evaluated `tile`
    points at a time (the memory a call takes does not grow with N beyond the outputs)."""
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    out = np.empty((len(xy), net["outputs"]))
    for i in range(0, len(xy), max(int(tile), 1)):
        h = _encode(net, xy[i:i + tile, 0], xy[i:i + tile, 1])
        for (w, b), act in zip(net["layers"], net["activations"]):
            h = _activate(act, h @ w.T + b, net["omega_0"], net["gauss_scale"])
        out[i:i + tile] = h
    return out


def predict(net, coords01):
    """Outputs (N, C), unclamped, at (N, 2) coordinates (x, y) in [0, 1]^2."""
    return forward(net, 2.0 * np.asarray(coords01, dtype=np.float64) - 1.0)


def render(net, width=None, height=None, tile=TILE_POINTS):
    """The picture (H, W, C) in [0, 1], sampled at pixel centres: pixel i of n at 2 (i + 0.5) / n - 1;
    evaluated in bands of rows of about `tile` points, so only the picture grows with its size."""
    width, height = (width, height) if width else net["size"]
    f = np.float32  # the coordinates as Redraw computes them, in float32
    xs = f(2) * (np.arange(width, dtype=f) + f(0.5)) / f(width) - f(1)
    ys = f(2) * (np.arange(height, dtype=f) + f(0.5)) / f(height) - f(1)
    rows = max(1, int(tile) // width)
    out = None
    for y0 in range(0, height, rows):
        gx, gy = np.meshgrid(xs, ys[y0:y0 + rows])
        band = forward(net, np.stack([gx.ravel(), gy.ravel()], axis=1), tile)
        if out is None:
            out = np.empty((height, width, band.shape[1]))
        out[y0:y0 + rows] = np.clip(band, 0.0, 1.0).reshape(-1, width, band.shape[1])
    return out
