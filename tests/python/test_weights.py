"""Portable weights: `redraw export-weights` and Model.export_weights write safetensors that the
plain numpy decoder (python/redraw_reference.py) renders as `redraw render` does, for every preset."""
import json
import struct
import subprocess

import numpy as np
import pytest

import redraw
import redraw_reference as ref
from conftest import smooth_picture, tiny

# Each preset, shrunk where it would be slow (the shape, encoding and activations kept), and a hash
# grid whose finer levels are hashed (a small table), which the image-sized presets never reach at
# this size.
SIZE = (24, 20)
HASHED = {"model": {"encoding": {"otype": "HashGrid", "n_levels": 6, "n_features_per_level": 2,
                                 "log2_hashmap_size": 10, "base_resolution": 4, "finest_resolution": 96,
                                 "interpolation": "Smoothstep"},
                    "hidden": [16], "activation": "ReLU", "output_activation": "Sigmoid", "init": "He"},
          "training": {"steps": 30, "batch": "full"}}
# No preset uses the positional encoding; the decoder reads it too.
POSITIONAL = {"model": {"encoding": {"otype": "Positional", "levels": 4}, "hidden": [16, 16], "activation": "Softplus",
                        "output_activation": "Sigmoid", "init": "He"},
              "training": {"steps": 30, "batch": "full"}}
CASES = ["classic", "classic-sgd", "siren", "fourier", "instant", "finer", "gauss", "wire", "gaussians", "gaussians-wipes",
         "sad", "hashed", "positional"]


def preset_of(name):
    return {"hashed": HASHED, "positional": POSITIONAL}.get(name) or tiny(name)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A model per case, trained a few steps on a small picture and saved."""
    folder = tmp_path_factory.mktemp("weights")
    out = {}
    for name in CASES:
        t = redraw.Trainer(smooth_picture(*SIZE), preset=preset_of(name), backend="cpu", size=SIZE, steps=6)
        t.train()
        out[name] = folder / f"{name}.redraw"
        t.save(out[name])
    return out


@pytest.mark.parametrize("name", CASES)
def test_reference_decoder_renders_what_the_engine_renders(name, models, cli, tmp_path):
    weights = tmp_path / "w.safetensors"
    subprocess.run([cli, "export-weights", str(models[name]), "-o", str(weights)], check=True, capture_output=True)
    net = ref.load(weights)
    engine = redraw.load_model(models[name], backend="cpu")
    for w, h in (SIZE, (37, 29)):
        expected = engine.render(w, h)  # the engine's float render: what `redraw render` quantises
        got = ref.render(net, w, h)
        assert got.shape == expected.shape
        err = np.abs(got - expected).max()
        assert err <= 1e-5, f"{name} at {w}x{h}: max difference {err:.3g}"
    # ... and `redraw render` itself, at 16 bits (quantisation adds at most half a step).
    png = tmp_path / "r.png"
    subprocess.run([cli, "render", str(models[name]), "--size", "37x29", "--bit-depth", "16", "-o", str(png),
                    "--backend", "cpu"], check=True, capture_output=True)
    rendered = redraw.load_image(png)
    err = np.abs(ref.render(net, 37, 29) - rendered).max()
    assert err <= 1e-5 + 0.5 / 65535, f"{name}: `redraw render` differs by {err:.3g}"


@pytest.mark.parametrize("name", ["fourier", "instant"])
def test_the_file_is_safetensors(name, models, tmp_path):
    path = tmp_path / "m.safetensors"
    model = redraw.load_model(models[name])
    model.export_weights(path)
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    assert n % 8 == 0 and 8 + n <= len(data)
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__")
    assert all(isinstance(v, str) for v in meta.values())
    spans = sorted(tuple(t["data_offsets"]) for t in header.values())
    assert spans[0][0] == 0 and spans[-1][1] == len(data) - 8 - n
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:])), "tensors back to back"
    for t in header.values():
        assert t["dtype"] == "F32"
        assert (t["data_offsets"][1] - t["data_offsets"][0]) == 4 * int(np.prod(t["shape"]))
    # Every weight is in it, in the model's own order (the Fourier matrix is extra).
    tensors, _ = ref.read_safetensors(path)
    flat = np.concatenate([tensors[k].ravel() for k in sorted(tensors, key=lambda k: header[k]["data_offsets"][0])
                           if k != "encoding.fourier_b"])
    np.testing.assert_array_equal(flat, model.parameters)
    assert json.loads(meta["config"])["model"] == model.config["model"]


def test_cli_and_model_write_the_same_bytes_and_refuse_bad_output(models, cli, tmp_path):
    a, b = tmp_path / "a.safetensors", tmp_path / "b.safetensors"
    subprocess.run([cli, "export-weights", str(models["siren"]), "-o", str(a)], check=True, capture_output=True)
    redraw.load_model(models["siren"]).export_weights(b)
    assert a.read_bytes() == b.read_bytes()
    bad = subprocess.run([cli, "export-weights", str(models["siren"]), "-o", str(tmp_path / "w.bin")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and ".safetensors" in bad.stderr
    missing = subprocess.run([cli, "export-weights", str(tmp_path / "none.redraw"), "-o", str(a)],
                             capture_output=True, text=True)
    assert missing.returncode == 1 and "none.redraw" in missing.stderr


def test_trainer_exports_what_its_saved_model_exports(tmp_path):
    t = redraw.Trainer(smooth_picture(*SIZE), preset=tiny("fourier"), backend="cpu", size=SIZE, steps=3)
    t.train()
    t.export_weights(tmp_path / "t.safetensors")
    t.save(tmp_path / "t.redraw")
    redraw.load_model(tmp_path / "t.redraw").export_weights(tmp_path / "m.safetensors")
    assert (tmp_path / "t.safetensors").read_bytes() == (tmp_path / "m.safetensors").read_bytes()


def exported(models, name, folder):
    path = folder / f"{name}.safetensors"
    if not path.exists():
        redraw.load_model(models[name]).export_weights(path)
    return path


def split_file(data):
    """(header dict, data bytes) of a safetensors file."""
    (n,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8:8 + n]), data[8 + n:]


def join_file(header, body):
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + body


@pytest.mark.parametrize("name", ["siren", "fourier", "hashed", "gaussians", "positional"])
def test_tiled_render_is_the_untiled_render(name, models, tmp_path):
    net = ref.load(exported(models, name, tmp_path))
    whole = ref.render(net, 37, 29, tile=10**9)  # one tile: every point at once
    for tile in (5, 100, 37 * 3 + 5):  # part of a row, whole rows, several rows and a part
        np.testing.assert_allclose(ref.render(net, 37, 29, tile=tile), whole, rtol=0, atol=1e-6)
    coords = np.random.default_rng(1).uniform(0, 1, (1000, 2))
    np.testing.assert_allclose(ref.forward(net, 2 * coords - 1, tile=64), ref.predict(net, coords), rtol=0, atol=1e-6)


def test_a_gaussians_render_takes_bounded_memory(models, tmp_path):
    """Before tiling, points x 256 float64 blocks: a 256 x 256 render of 200 Gaussians held several
    arrays of 100 MB (and a few megapixels gigabytes); now the tiles' arrays stay small."""
    import tracemalloc
    net = ref.load(exported(models, "gaussians", tmp_path))
    tracemalloc.start()
    try:
        picture = ref.render(net, 256, 256)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert picture.shape == (256, 256, 3)
    assert peak < 40 * 2**20, f"peak {peak / 2**20:.0f} MiB"


@pytest.mark.parametrize("name, edit, named", [
    ("siren", lambda h, m: h["layers.1.weight"].update(shape=[8, 32]), "tensor 'layers.1.weight' has shape [8, 32]"),
    ("siren", lambda h, m: h["layers.0.weight"].update(shape=[h["layers.0.weight"]["shape"][1],
                                                              h["layers.0.weight"]["shape"][0]]),
     "tensor 'layers.0.weight' has shape"),
    ("fourier", lambda h, m: h["encoding.fourier_b"].update(shape=[h["encoding.fourier_b"]["shape"][0] // 2, 4]),
     "tensor 'encoding.fourier_b' has shape"),
    ("hashed", lambda h, m: h["encoding.hash_grid.level_05"].update(shape=[512, 4]),
     "tensor 'encoding.hash_grid.level_05' has shape [512, 4]"),
    ("hashed", lambda h, m: m.update(hash_grid_table_size="2048"),
     "tensor 'encoding.hash_grid.level_04' has shape [1024, 2], the metadata says (2048, 2)"),
    ("gaussians", lambda h, m: m.update(gaussians="100"), "tensor 'encoding.gaussians' has shape [200, 8]"),
    ("siren", lambda h, m: m.update(output_channels="1"), "'output_channels' says 1"),
    ("siren", lambda h, m: m.update(layer_count="2"), "'activations'"),
    ("siren", lambda h, m: h.pop("layers.2.bias"), "tensor 'layers.2.bias' is missing"),
])
def test_inconsistent_weights_are_refused_naming_the_tensor(name, edit, named, models, tmp_path):
    header, body = split_file(exported(models, name, tmp_path).read_bytes())
    edit(header, header["__metadata__"])
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(join_file(header, body))
    with pytest.raises(ValueError) as e:
        ref.render(ref.load(bad), 5, 4)
    assert named in str(e.value)


def mutations(data, rng):
    """Damaged versions of a safetensors file: bytes flipped, the file cut, the header's JSON edited
    (shapes, dtypes, offsets, metadata values), its length changed."""
    header, body = split_file(data)
    kind = rng.integers(6)
    if kind == 0:  # bytes flipped anywhere
        b = bytearray(data)
        for i in rng.integers(0, len(b), rng.integers(1, 8)):
            b[i] ^= 1 << int(rng.integers(8))
        return bytes(b)
    if kind == 1:  # cut short
        return data[:int(rng.integers(0, len(data)))]
    if kind == 2:  # the header's length
        return struct.pack("<Q", [0, 1, 7, len(data), 2**40, 2**64 - 1][int(rng.integers(6))]) + data[8:]
    names = [k for k in header if k != "__metadata__"]
    t = header[names[int(rng.integers(len(names)))]]
    meta = header["__metadata__"]
    values = [0, 1, -1, 3, 2**31, 2**63, 1.5, "8", None, [], [2], [1, 2, 3]]
    if kind == 3:  # a tensor's field
        field = ["shape", "dtype", "data_offsets"][int(rng.integers(3))]
        if field == "shape":
            t["shape"] = [values[int(rng.integers(len(values)))] for _ in range(int(rng.integers(0, 4)))]
        elif field == "dtype":
            t["dtype"] = ["F16", "F64", "I32", "U8", "BF16", "", 4][int(rng.integers(7))]
        else:
            t["data_offsets"] = [int(rng.integers(0, len(body) + 9)) for _ in range(int(rng.integers(1, 4)))]
    elif kind == 4:  # a metadata value
        key = sorted(meta)[int(rng.integers(len(meta)))]
        meta[key] = ["", "0", "-1", "1e400", "nan", "9" * 40, "[1, 2]", "[]", "{}", "Sine", "ReLU", "x"][
            int(rng.integers(12))]
    else:  # a tensor or the metadata removed, or the header not an object
        choice = int(rng.integers(3))
        if choice == 0:
            header.pop(names[int(rng.integers(len(names)))])
        elif choice == 1:
            header["__metadata__"] = [1]
        else:
            header = [header]
    return join_file(header, body)


def test_the_weights_reader_refuses_damaged_files_cleanly(models, tmp_path):
    """Every damaged file is rendered or refused with a ValueError: no other exception, no hang,
    no runaway memory (the fixed seed makes a failure repeatable)."""
    import time
    rng = np.random.default_rng(20261128)
    originals = [exported(models, n, tmp_path).read_bytes() for n in ("siren", "fourier", "hashed", "gaussians",
                                                                      "positional", "classic")]
    path = tmp_path / "fuzz.safetensors"
    outcomes = {"rendered": 0, "refused": 0}
    start = time.monotonic()
    for i in range(1200):
        data = mutations(originals[i % len(originals)], rng)
        path.write_bytes(data)
        try:
            with np.errstate(all="ignore"):  # damaged weights may overflow; the picture is what it is
                picture = ref.render(ref.load(path), 7, 5)
            assert picture.shape[:2] == (5, 7)
            outcomes["rendered"] += 1
        except ValueError:
            outcomes["refused"] += 1
        except Exception as e:
            raise AssertionError(f"mutation {i}: {type(e).__name__}: {e}") from e
    assert outcomes["refused"] > 100 and outcomes["rendered"] > 50, outcomes
    assert time.monotonic() - start < 60
