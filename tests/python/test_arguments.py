"""The module's arguments: paths (a NUL refused as Python's open refuses it), wrong types named as
TypeErrors, numpy scalars accepted where numbers go, and a refused call that changes nothing."""
import pathlib
import threading
import time

import numpy as np
import pytest

import redraw
from conftest import small_trainer, tiny


@pytest.fixture
def victims(tmp_path):
    """Files a path cut at its NUL would name, each holding known bytes."""
    names = ["victim.png", "victim.json", "victim", "victim.redraw"]
    for n in names:
        (tmp_path / n).write_bytes(b"untouched " + n.encode())
    return tmp_path


def assert_untouched(folder):
    for p in folder.iterdir():
        if p.name.startswith("victim"):
            assert p.read_bytes() == b"untouched " + p.name.encode(), p.name


def test_every_path_argument_refuses_an_embedded_nul(victims, picture):
    with pytest.raises(ValueError, match="embedded null byte"):
        open(str(victims / "victim\0.png"))  # what Python itself says
    t = small_trainer(picture, steps=2)
    t.train()
    good = victims / "good.redraw"
    t.save(good)
    model = redraw.load_model(good)
    cases = [
        ("load_image: path", lambda: redraw.load_image(str(victims / "victim.png\0.png"))),
        ("load_image: path", lambda: redraw.load_image(pathlib.Path(str(victims / "victim.png") + "\0x"))),
        ("image", lambda: redraw.Trainer(str(victims / "victim.png\0.png"), backend="cpu")),
        ("preset", lambda: redraw.Trainer(picture, preset=str(victims / "victim.json\0.json"), backend="cpu")),
        ("save: path", lambda: t.save(str(victims / "victim\0.redraw"))),
        ("save: path", lambda: t.save(str(victims / "victim.redraw\0"))),
        ("export_weights: path", lambda: t.export_weights(str(victims / "victim\0.safetensors"))),
        ("export_weights: path", lambda: model.export_weights(str(victims / "victim\0.safetensors"))),
        ("load_model: path", lambda: redraw.load_model(str(victims / "victim.redraw\0.redraw"))),
        ("preset", lambda: redraw.Trainer(picture, preset="instant\0", backend="cpu")),
        ("preset_config: name", lambda: redraw.preset_config("instant\0")),
    ]
    for name, call in cases:
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == f"{name}: embedded null byte", (name, str(e.value))
    assert_untouched(victims)
    assert sorted(p.name for p in victims.iterdir()) == ["good.redraw", "victim", "victim.json", "victim.png",
                                                         "victim.redraw"]


def test_wrong_argument_types_are_type_errors_naming_the_argument(picture, tmp_path):
    t = small_trainer(picture, steps=4)
    cases = [
        (r"Trainer: size's width: expected an int, not str", lambda: small_trainer(picture, size=("a", "b"))),
        (r"Trainer: size: expected None, an int or \(width, height\), not float",
         lambda: small_trainer(picture, size=2.5)),
        (r"Trainer: seed: expected an int, not str", lambda: small_trainer(picture, seed="x")),
        (r"Trainer: steps: expected an int, not float", lambda: redraw.Trainer(picture, steps=3.0)),
        (r"Trainer: backend: expected a str, not int", lambda: redraw.Trainer(picture, backend=1)),
        (r"train: steps: expected an int, not str", lambda: t.train(steps="x")),
        (r"train: seconds: expected a number, not str", lambda: t.train(seconds="1")),
        (r"train: callback: expected a callable or None, not int", lambda: t.train(callback=3)),
        (r"train: callback must return True, False or None, not str", lambda: t.train(callback=lambda *r: "no")),
        (r"step: n: expected an int, not str", lambda: t.step("a")),
        (r"render: width: expected an int, not str", lambda: t.render("a", 3)),
        (r"render: height: expected an int, not list", lambda: t.render(3, [3])),
        (r"predict: coords: expected an array of numbers, not str", lambda: t.predict("abc")),
        (r"predict: coords: expected an array of numbers, not dict", lambda: t.predict({})),
        (r"save: path: expected a path \(str or os.PathLike\), not int", lambda: t.save(3)),
        (r"load_model: path: expected a path \(str or os.PathLike\), not int", lambda: redraw.load_model(3)),
        (r"load_model: backend: expected a str, not int", lambda: redraw.load_model(tmp_path / "m.redraw", backend=0)),
    ]
    for message, call in cases:
        with pytest.raises(TypeError, match="^" + message + "$"):
            call()


def test_numpy_numbers_are_taken_as_python_numbers(picture):
    config = tiny("classic")
    config["schedule"]["lr_max"] = np.float32(1e-3)
    config["training"]["metrics_every"] = np.int64(5)
    config["model"]["hidden"] = np.array([8, 8])
    config["optimizer"]["nesterov"] = np.bool_(False)
    t = redraw.Trainer(picture, preset=config, backend="cpu", seed=np.uint64(7), size=np.int64(16),
                       steps=np.int32(10))
    assert t.config["schedule"]["lr_max"] == pytest.approx(1e-3, rel=1e-6)
    assert t.config["training"]["metrics_every"] == 5 and t.config["training"]["seed"] == 7
    assert t.config["model"]["hidden"] == [8, 8] and t.total_steps == 10
    t.step(np.int64(2))
    t.train(steps=np.int16(3), seconds=np.float32(30))
    assert t.step_count == 5
    assert t.render(np.int32(6), np.int64(5)).shape == (5, 6, 3)
    # A numpy float that JSON cannot hold is named where it is, as a Python float is.
    config["schedule"]["lr_max"] = np.float32("nan")
    with pytest.raises(redraw.ConfigError, match=r"config dict: schedule.lr_max: nan is not a number"):
        redraw.Trainer(picture, preset=config)


def test_a_refused_train_leaves_the_runs_total_steps(picture):
    t = small_trainer(picture, steps=10**6)
    worker = threading.Thread(target=lambda: t.train(seconds=1.0))
    worker.start()
    try:
        deadline = time.monotonic() + 10
        while t.step_count == 0 and time.monotonic() < deadline:
            time.sleep(0.001)
        with pytest.raises(ValueError, match="another thread"):
            t.train(steps=10**7)
        assert t.total_steps == 10**6
    finally:
        worker.join()
    assert t.total_steps == 10**6
