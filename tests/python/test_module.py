"""redraw.load_image, Trainer and load_model: training, metrics, rendering, saving, errors."""
import json
import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import redraw
from conftest import png_bytes, small_trainer, tiny


def test_load_image_matches_the_pixels_written(tmp_path, picture_file):
    path, pixels = picture_file
    img = redraw.load_image(path)
    assert img.dtype == np.float32 and img.shape == pixels.shape
    np.testing.assert_allclose(img, pixels / 255.0, rtol=0, atol=1e-7)  # float rounding of v / 255


def test_load_image_keeps_16_bits_and_grey_alpha(tmp_path):
    pixels = np.array([[[0, 65535], [1, 32768]], [[65534, 0], [12345, 54321]]], dtype=np.uint16)
    path = tmp_path / "ga16.png"
    path.write_bytes(png_bytes(pixels))
    img = redraw.load_image(str(path))
    assert img.shape == (2, 2, 2)
    np.testing.assert_allclose(img, pixels / 65535.0, atol=1e-7)


def test_load_image_errors_name_the_file(tmp_path):
    missing = tmp_path / "nowhere.png"
    with pytest.raises(redraw.ImageError, match="nowhere.png"):
        redraw.load_image(missing)
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\nnot a png at all")
    with pytest.raises(redraw.ImageError, match="broken.png"):
        redraw.load_image(broken)
    assert issubclass(redraw.ImageError, redraw.Error) and issubclass(redraw.Error, RuntimeError)


def test_trainer_on_an_array_learns_and_reports_metrics(picture):
    t = small_trainer(picture, steps=60)
    assert t.size == (24, 20) and t.backend == "cpu"
    first = t.render()
    last = t.train()
    assert t.step_count == 60 and last["step"] <= 60
    m = t.metrics
    assert set(m) == {"step", "loss", "psnr_db", "lr", "seconds", "psnr_exact"}
    assert len(m["step"]) >= 5 and np.all(np.diff(m["step"]) > 0)
    # The PSNR of the final picture, computed here from the render and the training picture.
    out = t.render()
    assert out.shape == (20, 24, 3) and out.dtype == np.float32
    target = t.target
    psnr = lambda a: 10 * np.log10(1 / np.mean((a.astype(np.float64) - target) ** 2))
    assert psnr(out) > psnr(first) + 3, (psnr(first), psnr(out))
    exact = [p for p, e, s in zip(m["psnr_db"], m["psnr_exact"], m["step"]) if e and s == t.step_count]
    if exact:
        assert abs(exact[-1] - psnr(out)) < 0.01


def test_trainer_on_a_file_uses_the_apps_decoding(picture_file):
    path, pixels = picture_file
    t = small_trainer(path, size=0, steps=1)
    np.testing.assert_allclose(t.target, pixels / 255.0, atol=1e-6)


def test_predict_at_pixel_centres_is_the_render(picture):
    t = small_trainer(picture, steps=20)
    t.train()
    w, h = 24, 20
    ys, xs = np.mgrid[0:h, 0:w]
    coords = np.stack([(xs.ravel() + 0.5) / w, (ys.ravel() + 0.5) / h], axis=1)
    values = t.predict(coords)
    assert values.shape == (w * h, 3)
    np.testing.assert_allclose(np.clip(values, 0, 1).reshape(h, w, 3), t.render(), atol=2e-6)
    with pytest.raises(ValueError, match="outside"):
        t.predict(np.array([[0.5, 1.5]]))
    with pytest.raises(ValueError, match=r"\(N, 2\)"):
        t.predict(np.zeros((4, 3)))


def test_callback_sees_rows_and_stops_the_run(picture):
    t = small_trainer(picture, steps=500)
    seen = []

    def callback(step, loss, psnr):
        seen.append((step, loss, psnr))
        assert t.render(6, 5).shape == (5, 6, 3)  # a live view from inside the run
        return len(seen) < 3

    t.train(callback=callback)
    assert len(seen) == 3
    assert t.step_count == seen[-1][0]  # stopped at the row that said so, not later
    rows = t.metrics
    assert seen[-1][0] in rows["step"]
    assert all(np.isfinite(loss) and loss > 0 for _, loss, _ in seen)


def test_step_and_a_time_limit(picture):
    t = small_trainer(picture, steps=10_000)
    t.step(5)
    assert t.step_count == 5
    t0 = time.monotonic()
    t.train(seconds=0.3)
    assert time.monotonic() - t0 < 3.0
    assert 5 < t.step_count < 10_000


def test_training_releases_the_gil_and_ctrl_c_stops_it(picture):
    t = small_trainer(picture, steps=10**9)
    ticks = []
    running = threading.Event()
    running.set()

    def count():
        while running.is_set():
            ticks.append(1)
            time.sleep(0.01)

    counter = threading.Thread(target=count)
    counter.start()
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            t.train()
    finally:
        running.clear()
        counter.join()
        timer.cancel()
    assert time.monotonic() - t0 < 5
    assert len(ticks) > 10, "another Python thread ran while the trainer trained"
    stopped_at = t.step_count
    assert stopped_at > 0
    t.step(2)  # the run goes on from where it stopped
    assert t.step_count == stopped_at + 2


def test_save_and_load_round_trip(tmp_path, picture):
    t = small_trainer(picture, preset="siren", steps=25)
    t.train()
    path = tmp_path / "run.redraw"
    t.save(path)
    m = redraw.load_model(path)
    assert m.step == 25 and m.size == (24, 20)
    # The same weights, drawn through the stateless path (the trainer draws its bound weights).
    np.testing.assert_allclose(m.render(), t.render(), rtol=0, atol=1e-6)
    np.testing.assert_allclose(m.render(48, 40), t.render(48, 40), rtol=0, atol=1e-6)
    np.testing.assert_array_equal(m.history["step"], t.metrics["step"])
    assert m.config["model"] == t.config["model"]
    assert len(m.frames) >= 1 and m.frames[0]["step"] == 0
    pic = next(f["picture"] for f in m.frames if f["picture"] is not None)
    assert pic.dtype == np.uint8 and pic.ndim == 3
    assert not [p for p in os.listdir(tmp_path) if p != "run.redraw"], "no temp file is left beside the model"


def test_the_model_has_the_clis_bits(tmp_path, picture_file, cli):
    path, _ = picture_file
    out = tmp_path / "cli"
    config = tiny("classic")
    (tmp_path / "tiny.json").write_text(json.dumps(config))
    subprocess.run([cli, "train", str(path), "--config", str(tmp_path / "tiny.json"), "--size", "24x20", "--steps", "30", "--backend",
                    "cpu", "--quiet", "--out", str(out)], check=True, capture_output=True)
    t = redraw.Trainer(path, preset=config, size=(24, 20), steps=30, backend="cpu")
    t.train()
    t.save(tmp_path / "py.redraw")

    def fingerprint(model):
        info = subprocess.run([cli, "info", "--json", str(model)], check=True, capture_output=True, text=True)
        return json.loads(info.stdout)["weights_fingerprint"]

    assert fingerprint(tmp_path / "py.redraw") == fingerprint(out / "model.redraw")
    np.testing.assert_array_equal(redraw.load_model(out / "model.redraw").parameters,
                                  redraw.load_model(tmp_path / "py.redraw").parameters)


def test_configs_from_dicts_and_their_errors(picture, tmp_path):
    base = tiny("classic")
    base["model"]["hidden"] = [8, 8]
    t = redraw.Trainer(picture, preset=base, steps=1, size=16)
    assert t.config["model"]["hidden"] == [8, 8]
    bad = dict(base, model=dict(base["model"], hiden=[4]))
    with pytest.raises(redraw.ConfigError, match="model.activations"):
        redraw.Trainer(picture, preset=dict(base, model=dict(base["model"], hidden=[8, 8, 8])))
    with pytest.raises(redraw.ConfigError, match="hiden"):
        redraw.Trainer(picture, preset=bad)
    # What JSON cannot hold is named where it is, not as a parse error of json.dumps's text.
    nan = dict(base, schedule=dict(base["schedule"], lr_max=float("nan")))
    with pytest.raises(redraw.ConfigError, match=r"config dict: schedule.lr_max: nan is not a number"):
        redraw.Trainer(picture, preset=nan)
    with pytest.raises(redraw.ConfigError, match=r"model.hidden\[1\]: inf is not"):
        redraw.Trainer(picture, preset=dict(base, model=dict(base["model"], hidden=[8, float("inf")])))
    deep = 1
    for _ in range(5000):  # deeper than json.dumps recurses
        deep = {"a": deep}
    with pytest.raises(redraw.ConfigError, match="nested deeper than 64 levels"):
        redraw.Trainer(picture, preset={"model": deep})
    with pytest.raises(redraw.ConfigError, match="instant"):  # lists the known presets
        redraw.Trainer(picture, preset="no-such-preset")
    config_file = tmp_path / "c.json"
    config_file.write_text('{"model": {"hidden": [4, "wide"]}}')
    with pytest.raises(redraw.ConfigError, match=r"c\.json.*hidden"):
        redraw.Trainer(picture, preset=config_file)
    with pytest.raises(ValueError, match="channels"):
        redraw.Trainer(np.zeros((4, 4, 5), np.float32))
    with pytest.raises(ValueError, match="outside"):
        redraw.Trainer(np.full((4, 4), 2.0))
    with pytest.raises(ValueError, match=r"image: the array holds no pixels \(16x0\)"):
        redraw.Trainer(np.zeros((0, 16, 3), np.float32))
    # Refused by its shape before a copy: this view is 4 bytes, its copy would be 1.6 GB and its training floats more.
    huge = np.broadcast_to(np.zeros((1, 1), np.float32), (20000, 20000))  # 400 Mpixel
    with pytest.raises(ValueError, match="20000x20000 is larger"):
        redraw.Trainer(huge)
    with pytest.raises(redraw.ImageError, match="missing.png"):
        redraw.Trainer(tmp_path / "missing.png")


def test_load_model_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.redraw"
    bad.write_bytes(b"RDRWMODL" + b"\0" * 40)
    with pytest.raises(redraw.CheckpointError, match="bad.redraw"):
        redraw.load_model(bad)


def test_arrays_are_the_engines_memory_and_travel_by_dlpack(picture):
    t = small_trainer(picture, steps=1)
    target = t.target
    assert target.__array_interface__["data"][0] == t._target_address()
    assert not target.flags.writeable and not target.flags.owndata
    out = t.render()
    assert not out.flags.owndata and type(out.base).__name__ == "PyCapsule"
    # DLPack out: numpy (and torch.from_dlpack) see the same memory.
    assert np.shares_memory(np.from_dlpack(out), out)
    # DLPack in: an object that speaks only __dlpack__ (as a torch tensor does) trains.

    class OnlyDlpack:
        def __init__(self, a):
            self._a = a

        def __dlpack__(self, stream=None):
            return self._a.__dlpack__()

        def __dlpack_device__(self):
            return self._a.__dlpack_device__()

    t2 = small_trainer(OnlyDlpack(picture), steps=1)
    np.testing.assert_allclose(t2.target, t.target)
    coords = np.array([[0.25, 0.75], [0.5, 0.5]], np.float32)
    np.testing.assert_array_equal(t.predict(OnlyDlpack(coords)), t.predict(coords))


def test_the_example_runs(tmp_path):
    import sys
    example = os.path.join(os.path.dirname(__file__), "..", "..", "python", "examples", "fit_image.py")
    r = subprocess.run([sys.executable, example, "--presets", "instant,siren", "--steps", "20", "--size", "16",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "best:" in r.stdout
    big = np.load(next(tmp_path.glob("*_4x.npy")))
    assert big.shape[2] in (1, 3) and max(big.shape[:2]) == 64
    assert (tmp_path / "psnr.csv").read_text().count("\n") > 4


def test_a_second_thread_is_refused_not_raced(picture):
    t = small_trainer(picture, steps=10**9)
    done = threading.Event()
    worker = threading.Thread(target=lambda: t.train(callback=lambda *row: not done.is_set()))
    worker.start()
    refused = 0
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and refused == 0:
            try:
                t.render(4, 4)
            except ValueError as e:
                assert "another thread" in str(e)
                refused += 1
    finally:
        done.set()
        worker.join()
    assert refused > 0
    assert t.render(4, 4).shape == (4, 4, 3)  # free again once the run stopped


def test_growth_lists_the_gaussians_relocations(picture):
    config = redraw.preset_config("gaussians-grow")
    config["model"]["gaussians"] = 100
    config["training"]["grow"] = {"every": 10, "fraction": 0.1, "until": 0.8}
    t = redraw.Trainer(picture, preset=config, backend="cpu", steps=40, size=24)
    t.train()
    assert t.growth == [(10, 10), (20, 10), (30, 10)]  # 40 is not below 0.8 x 40
    assert small_trainer(picture, steps=2).growth == []
