"""A part killed mid-step, as at the device call's limit (SIGKILL to its whole process group: no
handler runs) or by SIGTERM (the handler names the signal), still leaves its JSON: "incomplete",
the step it stopped in, and what the steps before it measured; the report shows it so."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from fake_device import FakeDevice
from support import PROGRAM, ROOT

WORK = None
DEVICE = None


def setUpModule():
    global WORK, DEVICE
    WORK = tempfile.mkdtemp(prefix="gpu_check_kills-")
    DEVICE = FakeDevice(os.path.join(WORK, "device"))


def tearDownModule():
    shutil.rmtree(WORK, ignore_errors=True)


def interrupt_tests_part(sig, step, name):
    """The tests part into WORK/NAME with STEP hanging; once it hangs, SIG goes to the part's whole
    process group. The results folder."""
    out = os.path.join(WORK, name)
    os.makedirs(out)
    env = {**os.environ, **DEVICE.environ(out, FAKE_HANG=step), "TMPDIR": WORK}
    proc = subprocess.Popen([sys.executable, PROGRAM, "run", "tests"], cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = os.path.join(out, "tests.log")
    deadline = time.monotonic() + 60  # python3 starts slowly on a loaded machine
    try:
        while time.monotonic() < deadline:
            if os.path.exists(log):
                with open(log) as f:
                    if "hanging" in f.read():
                        break
            time.sleep(0.1)
        else:
            raise AssertionError(f"the tests part never reached {step}")
    finally:
        os.killpg(proc.pid, sig)
        proc.wait(timeout=30)
    return out


class Killed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.killed = interrupt_tests_part(signal.SIGKILL, "redraw_tests", "killed")
        cls.termed = interrupt_tests_part(signal.SIGTERM, "redraw_cuda_tests", "termed")

    def load(self, out):
        with open(os.path.join(out, "tests.json")) as f:
            return json.load(f)

    def test_sigkill_leaves_the_json_incomplete_in_the_step_it_was_in(self):
        j = self.load(self.killed)
        self.assertEqual(j["status"], "incomplete")
        self.assertIn("stopped during 'redraw_tests (registry, module)'", j["reason"])

    def test_with_the_step_before_it_finished_and_measured(self):
        j = self.load(self.killed)
        self.assertEqual(j["steps_finished"], ["redraw_cuda_tests"])
        self.assertEqual(j["suites"][0]["passed"], 30)

    def test_sigterm_says_so_in_the_json(self):
        j = self.load(self.termed)
        self.assertEqual(j["status"], "incomplete")
        self.assertEqual(j["reason"], "killed by SIGTERM during 'redraw_cuda_tests'")

    def test_the_report_shows_the_killed_part_incomplete_beside_a_finished_one_and_exits_1(self):
        done = os.path.join(WORK, "done")
        env = {**os.environ, **DEVICE.environ(done)}
        self.assertEqual(subprocess.run([sys.executable, PROGRAM, "run", "sanitize"], cwd=ROOT, env=env,
                                        capture_output=True).returncode, 0)
        proc = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gpu_report.py"), done, self.killed],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertRegex(proc.stdout, r"\| tests \| incomplete \|.*finished: redraw_cuda_tests")
        self.assertRegex(proc.stdout, r"\| sanitize \| ok \|")


if __name__ == "__main__":
    unittest.main()
