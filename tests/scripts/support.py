"""What the tests of scripts/gpu_check share: the package imported from this checkout, the program
run as a user runs it, and a part run in this process on a fake device (fake_device.py)."""
import contextlib
import io
import json
import os
import subprocess
import sys
import time
from unittest import mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import gpu_check  # noqa: E402  (the package scripts/gpu_check/)
from gpu_check import cli  # noqa: E402

PROGRAM = os.path.join(ROOT, "scripts", "gpu_check.py")


def program(*args, env=None, cwd=ROOT, script=PROGRAM, timeout=120):
    """`python3 scripts/gpu_check.py ARGS...` as a user runs it: (exit code, stdout and stderr)."""
    proc = subprocess.run([sys.executable, script, *args], cwd=cwd, env={**os.environ, **(env or {})},
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return proc.returncode, proc.stdout


class Run:
    """One `run PARTS` on the fake device: its exit code, what it printed, its results folder, the
    seconds it took."""

    def __init__(self, rc, output, out, seconds):
        self.rc, self.output, self.out, self.seconds = rc, output, out, seconds

    def json(self, part):
        with open(os.path.join(self.out, part + ".json")) as f:
            return json.load(f)

    def log(self, part):
        with open(os.path.join(self.out, part + ".log")) as f:
            return f.read()

    def files(self):
        return [os.path.join(d, f) for d, _, names in os.walk(self.out) for f in names]


def run_parts(device, out, parts, **fake):
    """cli.cmd_run(PARTS) in this process on DEVICE, results into OUT, with the FAKE_* variables given
    (and no others)."""
    env = device.environ(out, **fake)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_")}
    buf = io.StringIO()
    start, cwd = time.monotonic(), os.getcwd()
    os.chdir(ROOT)  # as main() does
    try:
        with mock.patch.dict(os.environ, clean, clear=True), mock.patch.dict(os.environ, env), \
                contextlib.redirect_stdout(buf):
            rc = cli.cmd_run(list(parts))
    finally:
        os.chdir(cwd)
    return Run(rc, buf.getvalue(), out, time.monotonic() - start)


def check_of(j, name):
    """The check NAME of a part's JSON J."""
    return next(c for c in j["checks"] if c["check"] == name)


__all__ = ["ROOT", "PROGRAM", "gpu_check", "cli", "program", "run_parts", "check_of", "Run"]
