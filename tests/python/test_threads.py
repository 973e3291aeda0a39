"""Trainer and Model across threads, Ctrl+C inside long calls, and interpreter exit while a
thread trains (docs/python.md, Threads). The racing and exiting programs run in a subprocess, so
a crash (SIGABRT, heap corruption) fails the test instead of ending pytest."""
import os
import subprocess
import sys
import textwrap
import threading

import pytest

from conftest import small_trainer

HERE = os.path.dirname(os.path.abspath(__file__))


def run_python(code, timeout=120):
    """Runs `code` in a fresh interpreter that imports this folder's conftest; (returncode, stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                       timeout=timeout, env=env)
    return r.returncode, r.stdout, r.stderr


def test_a_second_train_during_a_callback_is_refused_and_a_render_lent(picture):
    """While train's callback runs, another thread's train is refused (it used to take the trainer
    and step it, and the first train then failed or both stepped it at once); another thread's
    render is a guest of the lent trainer; the run ends with exactly the first train's steps."""
    t = small_trainer(picture, steps=10)  # metrics every 10 steps: one callback per 10 steps
    outcome = {}

    def other_thread():
        try:
            t.train(steps=5)
            outcome["train"] = "trained"
        except ValueError as e:
            outcome["train"] = str(e)
        outcome["render"] = t.render(4, 4).shape
        outcome["total"] = t.total_steps

    def callback(step, loss, psnr):
        if step == 10:
            th = threading.Thread(target=other_thread)
            th.start()
            th.join()  # the callback keeps the trainer lent until the other thread is done
        return True

    t.train(steps=30, callback=callback)
    assert outcome["train"] == "Trainer: another thread is using this trainer"
    assert outcome["render"] == (4, 4, 3)
    assert outcome["total"] == 30, "a refused train(steps=N) leaves the run's total steps alone"
    assert t.step_count == 30 and t.total_steps == 30
    steps = list(t.metrics["step"])
    assert steps[-1] == 30 and steps == sorted(set(steps)), steps


def test_threads_racing_for_one_trainer_never_step_it_together():
    """Several threads call train (callbacks that sleep and yield, so the trainer is lent often)
    while others render: each call trains all its steps or is refused whole, nothing else is
    raised, and the step count is the sum of the calls that trained."""
    rc, out, err = run_python("""
        import threading, time
        import numpy as np
        from conftest import smooth_picture, small_trainer

        t = small_trainer(smooth_picture(), steps=10)
        K = 20
        counts = {"trained": 0, "refused": 0, "rendered": 0, "render_refused": 0}
        other = []
        lock = threading.Lock()
        done = threading.Event()

        def count(key):
            with lock:
                counts[key] += 1

        def callback(step, loss, psnr):
            time.sleep(0.0005)
            return True

        def trainer_thread(seed):
            rng = np.random.default_rng(seed)
            for _ in range(25):
                try:
                    t.train(steps=K, callback=callback if rng.uniform() < 0.8 else None)
                    count("trained")
                except ValueError as e:
                    if str(e) != "Trainer: another thread is using this trainer":
                        other.append(repr(e))
                    count("refused")
                except BaseException as e:
                    other.append(repr(e))
                time.sleep(rng.uniform(0, 0.002))

        def render_thread():
            while not done.is_set():
                try:
                    assert t.render(5, 4).shape == (4, 5, 3)
                    count("rendered")
                except ValueError as e:
                    if "another thread" not in str(e):
                        other.append(repr(e))
                    count("render_refused")
                except BaseException as e:
                    other.append(repr(e))
                time.sleep(0.001)  # a refusal is quick: without a pause these threads would keep the GIL

        trainers = [threading.Thread(target=trainer_thread, args=(i,)) for i in range(4)]
        renderers = [threading.Thread(target=render_thread) for _ in range(2)]
        for th in trainers + renderers:
            th.start()
        for th in trainers:
            th.join()
        done.set()
        for th in renderers:
            th.join()
        print(counts, t.step_count)
        assert not other, other
        assert counts["trained"] + counts["refused"] == 100
        assert t.step_count == K * counts["trained"], (t.step_count, counts)
        assert counts["trained"] > 0 and counts["refused"] > 0, counts  # they did race
        assert counts["rendered"] > 0, counts
        print("consistent")
    """)
    assert rc == 0, f"exit {rc}\n{out}\n{err[-3000:]}"
    assert "consistent" in out


def ctrl_c_program(call, points, folder):
    """A program that makes a SIREN model (the preset's full width), estimates from a small render
    (after a first one that warms up) how long `call` of `points` points would take whole, starts
    it, gets SIGINT 0.5 s later and prints what happened."""
    return f"""
        import os, signal, threading, time
        import numpy as np
        import redraw
        from conftest import smooth_picture

        os.chdir({str(folder)!r})
        t = redraw.Trainer(smooth_picture(), preset="siren", backend="cpu", size=24, steps=1)
        t.train()
        t.save("siren.redraw")
        m = redraw.load_model("siren.redraw", backend="cpu")
        W = H = 4096
        coords = np.random.default_rng(0).uniform(0, 1, (W * H // 2, 2)).astype(np.float32)
        m.render(512, 128)
        t0 = time.monotonic()
        m.render(512, 128)
        whole = (time.monotonic() - t0) * {points} / (512 * 128)
        threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t0 = time.monotonic()
        try:
            {call}
            print("completed")
        except KeyboardInterrupt:
            print("interrupted after", time.monotonic() - t0, "of about", whole)
    """


@pytest.mark.parametrize("call, points", [("m.render(W, H)", "W * H"), ("m.predict(coords)", "len(coords)"),
                                          ("t.render(W, H)", "W * H")])
def test_ctrl_c_stops_a_long_render_or_predict(call, points, tmp_path):
    """KeyboardInterrupt arrives within a band: long before the call could have finished (the
    bound is a quarter of the whole call, estimated in the same process: no absolute time)."""
    rc, out, err = run_python(ctrl_c_program(call, points, tmp_path), timeout=90)
    assert rc == 0, f"exit {rc}\n{out}\n{err[-3000:]}"
    assert "interrupted after" in out, out
    elapsed, whole = (float(v) for v in out.split("interrupted after")[1].split("of about"))
    assert elapsed < 0.5 + whole / 4, (elapsed, whole)


def test_exit_while_daemon_threads_train_render_and_call_back():
    """A program that ends while daemon threads are inside Trainer.train (stepping, and inside a
    callback), or rendering, exits cleanly (it used to die with SIGABRT: "terminate called
    without an active exception")."""
    rc, out, err = run_python("""
        import threading, time
        from conftest import smooth_picture, small_trainer

        stepping = small_trainer(smooth_picture(), steps=10**9)
        calling = small_trainer(smooth_picture(), steps=10**9)
        rendering = small_trainer(smooth_picture(), steps=1)

        def slow_callback(step, loss, psnr):
            time.sleep(0.05)
            return True

        def render_forever():
            while True:
                rendering.render(512, 512)

        threading.Thread(target=stepping.train, daemon=True).start()
        threading.Thread(target=lambda: calling.train(callback=slow_callback), daemon=True).start()
        threading.Thread(target=render_forever, daemon=True).start()
        time.sleep(0.5)
        print("exiting at step", stepping.step_count, flush=True)
    """, timeout=60)
    assert "exiting at step" in out, err[-3000:]
    assert rc == 0, f"exit {rc}\n{out}\n{err[-3000:]}"
    assert "terminate called" not in err, err[-3000:]


def test_ctrl_c_during_a_save_leaves_the_earlier_model(tmp_path):
    """SIGINT while save writes a 107 MiB model (sent once its temp file appears, so no timing is
    assumed) raises KeyboardInterrupt; the model saved before stays as it was and the temp file
    goes (the save used to finish first, replacing the model, and raise after)."""
    rc, out, err = run_python(f"""
        import os, signal, threading, time
        import redraw
        from conftest import smooth_picture, tiny

        folder = {str(tmp_path)!r}
        config = tiny("instant")
        config["model"]["encoding"].update(log2_hashmap_size=20, n_levels=16, sized_to_image=[])
        t = redraw.Trainer(smooth_picture(), preset=config, backend="cpu", size=24, steps=2)
        t.step()
        target = os.path.join(folder, "run.redraw")
        t.save(target)
        before = open(target, "rb").read()
        t.step()

        def interrupt_once_writing():
            while len(os.listdir(folder)) < 2:  # the save's temp file beside the model
                time.sleep(0.001)
            os.kill(os.getpid(), signal.SIGINT)

        threading.Thread(target=interrupt_once_writing, daemon=True).start()
        try:
            t.save(target)
            print("completed")
        except KeyboardInterrupt:
            print("interrupted")
        deadline = time.monotonic() + 60
        while len(os.listdir(folder)) > 1 and time.monotonic() < deadline:
            time.sleep(0.01)  # the write goes on to its end on its own thread, then its temp file goes
        print("unchanged" if open(target, "rb").read() == before else "replaced", sorted(os.listdir(folder)))
        t.save(target)  # the trainer is free again
    """, timeout=120)
    assert rc == 0, f"exit {rc}\n{out}\n{err[-3000:]}"
    assert out.split()[:2] == ["interrupted", "unchanged"], out
    assert "['run.redraw']" in out, out
