"""scripts/gpu_check's plan and steps: every part's timeouts within one device call (`list`), a step
past its part's limit refused, a step past its own timeout ended with its whole process tree, and
the program found the same way by every caller (the entry file, the shell wrapper, python3 -m,
and `import gpu_check` from scripts/ as scripts/gpu_kodak.sh does)."""
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

from support import ROOT, program
from gpu_check import Device, common
from gpu_check.part import Part
from gpu_check.plan import PARTS, walk
from gpu_check.processes import wait


class List(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rc, cls.out = program("list")

    def test_list_names_all_13_parts_quick_first(self):
        self.assertEqual(self.rc, 0, self.out)
        heads = re.findall(r"^([a-z-]+): (\d+) s of timeouts \(limit (\d+)\)$", self.out, re.M)
        self.assertEqual([h[0] for h in heads], list(PARTS))
        self.assertEqual(len(heads), 13)
        self.assertEqual(heads[0][0], "quick")

    def test_no_part_adds_up_to_more_than_480_s_quick_included(self):
        for name, secs, limit in re.findall(r"^([a-z-]+): (\d+) s of timeouts \(limit (\d+)\)$", self.out, re.M):
            self.assertLessEqual(int(secs), 480, name)
            self.assertEqual(int(limit), 480, name)
        for name in PARTS:  # the same, walked here: a step past the limit would be left out of the steps
            secs, steps = walk(name)
            self.assertLessEqual(secs, PARTS[name][1], name)
            self.assertEqual(secs, sum(s for _, s in steps), name)

    def test_the_sanitize_part_runs_memcheck_racecheck_and_synccheck(self):
        rc, out = program("list", "sanitize")
        self.assertEqual(rc, 0)
        self.assertEqual(re.findall(r"^  (\w+) +\d+ s$", out, re.M), ["memcheck", "racecheck", "synccheck"])

    def test_quick_runs_tests_two_sanitizers_instant_interop_pytorch_tcnn_and_fullres(self):
        labels = [label for label, _ in walk("quick")[1]]
        prefixes = ("redraw_cuda_tests", "memcheck", "racecheck", "cuda_bench instant", "redraw_interop_check",
                    "PyTorch", "tiny-cuda-nn", "full resolution")
        self.assertEqual(len(labels), 8)
        for label, prefix in zip(labels, prefixes):
            self.assertTrue(label.startswith(prefix), (label, prefix))

    def test_quick_gives_pytorch_at_least_90_s_and_fullres_at_least_100(self):
        steps = dict(walk("quick")[1])
        torch = next(s for label, s in steps.items() if label.startswith("PyTorch"))
        full = next(s for label, s in steps.items() if label.startswith("full resolution"))
        self.assertGreaterEqual(torch, 90)
        self.assertGreaterEqual(full, 100)

    def test_an_unknown_part_is_refused(self):
        rc, out = program("list", "nonsense")
        self.assertEqual(rc, 2)
        self.assertIn("unknown part 'nonsense'", out)


class Callers(unittest.TestCase):
    def test_the_shell_wrapper_runs_the_same_program(self):
        out = subprocess.run(["bash", "scripts/gpu_check.sh", "list", "quick"], cwd=ROOT, capture_output=True,
                             text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout, program("list", "quick")[1])
        self.assertTrue(out.stdout.startswith("quick: "))

    def test_python_m_from_scripts_runs_the_same_program(self):
        out = subprocess.run([sys.executable, "-m", "gpu_check", "list", "quick"], cwd=os.path.join(ROOT, "scripts"),
                             capture_output=True, text=True)
        self.assertEqual((out.returncode, out.stdout), (0, program("list", "quick")[1]), out.stderr)

    def test_the_entry_file_works_from_any_folder_and_isolated(self):
        with tempfile.TemporaryDirectory() as tmp:
            rc, out = program("list", "interop", cwd=tmp)
            self.assertEqual(rc, 0, out)
            self.assertTrue(out.startswith("interop: 300 s of timeouts"), out)
            proc = subprocess.run([sys.executable, "-I", os.path.join(ROOT, "scripts", "gpu_check.py"), "list",
                                   "interop"], cwd=tmp, capture_output=True, text=True)
            self.assertEqual((proc.returncode, proc.stdout), (0, out), proc.stderr)

    def test_import_gpu_check_from_scripts_is_the_package_with_device(self):
        # scripts/gpu_kodak.sh's own line, word for word.
        line = 'import sys; sys.path.insert(0, "scripts"); import gpu_check; d = gpu_check.Device(); ' \
               'd.find_cublas(); print(d.cublas)'
        out = subprocess.run([sys.executable, "-c", line], cwd=ROOT, capture_output=True, text=True,
                             env={**os.environ, "REDRAW_CUBLAS_DIR": "/some/cublas"})
        self.assertEqual((out.returncode, out.stdout), (0, "/some/cublas\n"), out.stderr)
        with open(os.path.join(ROOT, "scripts", "gpu_kodak.sh")) as f:
            self.assertIn(line, f.read())
        self.assertTrue(os.path.isfile(os.path.join(ROOT, "scripts", "gpu_check", "__init__.py")))


class Steps(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dev = Device()
        self.dev.results = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def part(self, limit):
        p = Part("unit", self.dev, limit)
        self.addCleanup(shutil.rmtree, p.tmp, True)
        p.start_log()
        return p

    def test_a_step_past_its_timeout_is_ended_124_and_its_json_named_it_while_it_ran(self):
        p = self.part(480)
        seen = {}

        def look():
            with open(os.path.join(self.tmp.name, "unit.json")) as f:
                seen.update(json.load(f))
            return False
        start = time.monotonic()
        rc = p.step("sleeper", 1, ["sh", "-c", "sleep 30 & sleep 30"], stop_when=look)
        self.assertEqual(rc, 124)
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual((seen["status"], seen["steps_finished"]), ("incomplete", []))
        self.assertIn("stopped during 'sleeper'", seen["reason"])
        self.assertEqual(p.done, ["sleeper"])

    def test_a_step_that_would_pass_the_parts_limit_is_refused_125_and_not_run(self):
        p = self.part(10)
        marker = os.path.join(self.tmp.name, "ran")
        self.assertEqual(p.step("first", 6, ["true"]), 0)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(p.step("second", 6, ["touch", marker]), 125)
        self.assertEqual(err.getvalue(), "gpu_check unit: 'second' takes the part's timeouts to 12 s (limit 10)\n")
        self.assertFalse(os.path.exists(marker))
        self.assertEqual(p.done, ["first"])
        with mock.patch.dict(os.environ, {"REDRAW_GPU_LONG": "1"}):
            self.assertTrue(common.long_allowed())
            self.assertEqual(p.step("third", 6, ["touch", marker]), 0)
        self.assertTrue(os.path.exists(marker))

    def test_a_dry_step_only_counts(self):
        p = Part("unit", self.dev, 480, dry=True)
        self.addCleanup(shutil.rmtree, p.tmp, True)
        self.assertEqual(p.step("a", 30, ["false"]), 0)
        self.assertEqual((p.spent, p.walk, p.done), (30, [("a", 30)], []))
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "unit.json")))

    def test_a_step_that_cannot_start_is_127(self):
        p = self.part(480)
        self.assertEqual(p.step("nothing", 5, [os.path.join(self.tmp.name, "no-such-program")]), 127)
        self.assertIn("cannot run", common.read(p.log))

    def test_wait_kills_a_process_that_ignores_sigterm_137(self):
        proc = subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 30"])
        time.sleep(0.2)  # the trap set
        self.assertEqual(wait(proc, 0.3, grace=0.5), 137)

    def test_wait_returns_0_once_stop_when_says_so_and_the_code_otherwise(self):
        proc = subprocess.Popen(["sleep", "30"])
        start = time.monotonic()
        self.assertEqual(wait(proc, 60, stop_when=lambda: True), 0)
        self.assertLess(time.monotonic() - start, 10)
        self.assertIsNotNone(proc.poll())
        self.assertEqual(wait(subprocess.Popen(["sh", "-c", "exit 3"]), 10), 3)
        self.assertEqual(wait(subprocess.Popen(["sh", "-c", "kill -9 $$"]), 10), 137)


if __name__ == "__main__":
    unittest.main()
