"""A part being run (or walked, in a dry run): its scratch folder, log and its sections, the steps
it runs under their timeouts, and the part's limit on those timeouts (a step that would pass it is
refused). Its results (data, checks, JSON) are results.Results'."""
import os
import subprocess
import sys
import tempfile

from .common import ROOT, long_allowed, read
from .processes import wait
from .results import Results


class Part(Results):
    """One part's bookkeeping: its scratch folder, log, timeouts so far, steps finished, the data
    its JSON carries and the floors it checked. In a dry run (list) steps only count."""

    def __init__(self, name, dev, limit, dry=False):
        super().__init__(name, dev, dry)
        self.limit = limit  # seconds: the most its steps' timeouts may add up to
        self.tmp = tempfile.mkdtemp(prefix=f"gpu_check-{name}-")
        self.log = os.path.join(dev.results, name + ".log")
        self.spent = 0
        self.step_label = "(start)"
        self.walk = []  # (label, seconds) of each step, in a dry run
        self.commands = []  # (label, command) of each step, in a dry run
        self.headers = []
        self.child = None
        self.collect = None  # gathers what the finished steps measured into data, before each step

    def path(self, *names):
        return os.path.join(self.tmp, *names)

    def bin(self, name):
        return os.path.join(self.dev.pack_abs, "bin", name)

    def sample(self, name):
        return os.path.join(self.dev.pack_abs, "samples", name + ".png")

    def rx(self, extra_lib=""):
        """The environment of Redraw's own processes: the pack's libraries, cuBLAS, the packed images."""
        lib = os.path.join(self.dev.pack_abs, "lib") + (":" + self.dev.cublas if self.dev.cublas else "") + extra_lib
        return {"LD_LIBRARY_PATH": lib, "REDRAW_ASSETS": os.path.join(ROOT, "assets"),
                "REDRAW_SAMPLE_DIR": os.path.join(self.dev.pack_abs, "samples"),
                "REDRAW_TEST_ASSET_DIR": os.path.join(ROOT, "assets")}

    def start_log(self):
        if not self.dry:
            open(self.log, "w").close()

    def say(self, text):
        if not self.dry:
            with open(self.log, "a") as f:
                f.write(text + "\n")

    def header(self, title):
        """Starts a section of the log; section(title) reads it back."""
        line = f"== {title} =="
        self.headers.append(line)
        self.say(line)

    def section(self, title):
        lines = read(self.log).splitlines()
        line = f"== {title} =="
        if line not in lines:
            return ""
        start = len(lines) - lines[::-1].index(line)
        end = next((i for i in range(start, len(lines)) if lines[i] in self.headers), len(lines))
        return "\n".join(lines[start:end]) + "\n"

    def append_file(self, path, tail=None):
        lines = read(path).splitlines()
        self.say("\n".join(lines[-tail:] if tail else lines))

    def step(self, label, secs, cmd, env=None, out=None, mode="a", cwd=None, stop_when=None):
        """Runs CMD under a timeout of SECS (its output to OUT, else the part's log) after writing the
        JSON as incomplete in LABEL; its exit code (124: timed out, 0 when stop_when() ended it).
        Refuses (125) a step that would take the part's timeouts past its limit."""
        self.spent += secs
        if self.spent > self.limit and not long_allowed():
            print(f"gpu_check {self.name}: '{label}' takes the part's timeouts to {self.spent} s (limit {self.limit})",
                  file=sys.stderr)
            return 125
        if self.dry:
            self.walk.append((label, secs))
            self.commands.append((label, list(cmd)))
            return 0
        self.progress(label)
        with open(out or self.log, mode) as f:
            try:
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                                        env={**os.environ, **(env or {})}, cwd=cwd)
            except OSError as e:
                f.write(f"gpu_check: cannot run {cmd[0]}: {e}\n")
                rc = 127
            else:
                self.child = proc
                rc = wait(proc, secs, stop_when)
                self.child = None
        self.done.append(label)
        return rc

    def progress(self, label):
        """Before a step: what the finished steps measured, and the JSON as incomplete in LABEL."""
        self.step_label = label
        if self.collect:
            try:
                self.collect()
            except Exception as e:  # a half-written result must not stop the part
                self.data["collect_error"] = str(e)
        self.write_json("incomplete", f"stopped during '{label}' (killed at the device call's limit, or still running)")
