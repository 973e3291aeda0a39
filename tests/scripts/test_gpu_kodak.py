"""scripts/gpu_kodak.sh and its verdict (scripts/gpu_check/kodak.py): exit 1 when a cell failed,
saying how many, or when no cell finished; never an earlier call's table reported as this call's;
a bench that ignores SIGINT killed after its grace. The script runs on a fake pack: a `redraw`
that plays `bench kodak-paper` (its training run and --collect), steered by FAKE_KODAK_*."""
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from fake_device import write_tool
from support import ROOT
from gpu_check.kodak import kodak_verdict

SCRIPT = os.path.join(ROOT, "scripts", "gpu_kodak.sh")
HEADER = ("method,image,budget,status,steps,train_seconds,psnr_db,psnr8_db,ms_ssim,parameters,model_bytes,"
          "decode_fps,peak_host_bytes,peak_device_bytes,backend,threads,error\n")
# redraw bench kodak-paper ... --out DIR (--jobs N | --collect): the training run marks DIR and sleeps
# FAKE_KODAK_TRAIN s (ignoring SIGINT with FAKE_KODAK_IGNORE_INT=1); --collect writes a row per image
# with status FAKE_KODAK_STATUS (default done), or nothing at all with FAKE_KODAK_COLLECT=none.
REDRAW = """#!/bin/sh
out="" collect=0
while [ $# -gt 0 ]; do case "$1" in --out) out="$2" ;; --collect) collect=1 ;; esac; shift; done
if [ "$collect" = 0 ]; then
  mkdir -p "$out" && echo plan >"$out/sweep.json"
  [ "${FAKE_KODAK_IGNORE_INT:-0}" = 1 ] && trap '' INT
  sleep "${FAKE_KODAK_TRAIN:-0}"
  exit 0
fi
[ -f "$out/sweep.json" ] || { echo "error: $out holds no bench (no sweep.json)"; exit 2; }
[ "${FAKE_KODAK_COLLECT:-}" = none ] && { echo "error: collect failed"; exit 1; }
status="${FAKE_KODAK_STATUS:-done}"
printf '%s' "$HEADER" >"$out/results.csv"
for img in kodim01.png kodim02.png; do
  echo "instant,$img,300000,$status,,,,,,,,,,,cuda,1,${status#done}" >>"$out/results.csv"
done
echo "| instant | Redraw (this run) | $status |" >"$out/table.md"
echo "<html></html>" >"$out/report.html"
[ "$status" = failed ] && exit 1
exit 0
"""


class Verdict(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.csv = os.path.join(tmp.name, "results.csv")

    def verdict(self, statuses, since=0, method="instant", images=("kodim01.png", "kodim02.png", "kodim03.png")):
        with open(self.csv, "w") as f:
            f.write(HEADER + "".join(f"{method},kodim0{i + 1}.png,300000,{s},,,,,,,,,,,cuda,1,"
                                     f"{'out of memory' if s == 'failed' else ''}\n" for i, s in enumerate(statuses)))
        return kodak_verdict(self.csv, ["instant"], set(images), since)

    def test_every_cell_failed_fails_saying_how_many(self):
        code, lines = self.verdict(["failed", "failed", "failed"])
        self.assertEqual(code, 1)
        self.assertIn("gpu_kodak: FAILED: 3 of 3 cells failed", lines)
        self.assertIn("  failed: instant on kodim01.png: out of memory", lines)

    def test_one_failed_cell_among_done_ones_fails(self):
        code, lines = self.verdict(["done", "failed", "done"])
        self.assertEqual(code, 1)
        self.assertIn("gpu_kodak: FAILED: 1 of 3 cells failed", lines)

    def test_done_cells_and_ones_cut_off_pass_and_are_counted(self):
        code, lines = self.verdict(["done", "unfinished", "pending"])
        self.assertEqual(code, 0, lines)
        self.assertEqual(lines[0], "gpu_kodak: 1 of 3 cells done, 0 failed, 1 cut off at the time limit, 1 not started")

    def test_no_cell_done_fails(self):
        self.assertEqual(self.verdict(["unfinished", "pending"])[0], 1)

    def test_a_table_older_than_the_call_or_of_other_cells_is_not_this_calls(self):
        code, lines = self.verdict(["done"], since=time.time() + 60)
        self.assertEqual(code, 1)
        self.assertIn("an earlier call's table", lines[0])
        self.assertIn("not this call's", self.verdict(["done"], method="siren")[1][0])
        self.assertIn("not this call's", self.verdict(["done"], images=("kodim09.png",))[1][0])
        os.remove(self.csv)
        self.assertIn("no table from this call", kodak_verdict(self.csv, ["instant"], set(), 0)[1][0])


class Script(unittest.TestCase):
    """gpu_kodak.sh on a fake pack, with $OUT kept between calls as on a warm machine."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gpu_kodak-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.pack, path = os.path.join(self.tmp, "pack"), os.path.join(self.tmp, "path")
        for d in ("bin", "lib", "kodak"):
            os.makedirs(os.path.join(self.pack, d))
        os.makedirs(path)
        for img in ("kodim01.png", "kodim02.png"):
            open(os.path.join(self.pack, "kodak", img), "w").close()
        write_tool(os.path.join(self.pack, "bin", "redraw"), REDRAW)
        write_tool(os.path.join(path, "nvidia-smi"), "#!/bin/sh\necho 'GPU 0: Fake GPU'\n")
        # relative to the root, where the script runs, as the default .gpu-pack is
        self.env = {**os.environ, "REDRAW_GPU_PACK": os.path.relpath(self.pack, ROOT),
                    "OUT": os.path.join(self.tmp, "out"), "TMPDIR": self.tmp, "REDRAW_CUBLAS_DIR": self.tmp,
                    "HEADER": HEADER, "PATH": path + os.pathsep + os.environ["PATH"]}

    def call(self, *args, timeout=30, **fake):
        proc = subprocess.run(["bash", SCRIPT, *args], env={**self.env, **fake}, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=timeout)
        return proc.returncode, proc.stdout

    def table(self):
        path = os.path.join(self.tmp, "out", "kodak-paper", "table.md")
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return f.read()

    def test_every_cell_failed_exits_1_saying_how_many(self):
        rc, out = self.call("instant", "5", FAKE_KODAK_STATUS="failed")
        self.assertEqual(rc, 1, out)
        self.assertIn("gpu_kodak: FAILED: 2 of 2 cells failed", out)

    def test_every_cell_done_exits_0_with_the_table(self):
        rc, out = self.call("instant", "5")
        self.assertEqual(rc, 0, out)
        self.assertIn("| instant | Redraw (this run) | done |", self.table())

    def test_a_call_that_made_no_table_never_reports_an_earlier_calls(self):
        self.assertEqual(self.call("instant", "5")[0], 0)
        self.assertIsNotNone(self.table())
        rc, out = self.call("instant", "5", FAKE_KODAK_COLLECT="none")
        self.assertEqual(rc, 1, out)
        self.assertIn("no table from this call", out)
        self.assertIsNone(self.table(), "the earlier call's table is still in $OUT/kodak-paper")
        self.assertNotIn("| done |", out)

    def test_a_bench_that_ignores_sigint_is_killed_after_the_grace(self):
        start = time.monotonic()
        rc, out = self.call("instant", "1", REDRAW_KODAK_KILL_AFTER="2", FAKE_KODAK_TRAIN="40",
                            FAKE_KODAK_IGNORE_INT="1")
        self.assertLess(time.monotonic() - start, 20, out)
        self.assertEqual(rc, 0, out)  # the cells it had are still measured


if __name__ == "__main__":
    unittest.main()
