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
CASES = ["classic", "classic-sgd", "siren", "fourier", "instant", "finer", "gauss", "wire", "gaussians", "hashed",
         "positional"]


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
