"""A part's results: the data its JSON carries, the checks it made (each floor judged through
floors.py), the steps finished, and its verdict. PART.json is rewritten whole (through a temporary
file) at every change of state, so a part killed at any moment leaves a readable JSON."""
import json
import os

from .floors import FLOORS, verdict


class Results:
    """What a part measured and concluded, written to DEV.results/NAME.json. In a dry run (list)
    nothing is written or printed."""

    def __init__(self, name, dev, dry=False):
        self.name, self.dev, self.dry = name, dev, dry
        self.done = []  # the labels of the steps finished
        self.data = {}
        self.checks = []

    def write_json(self, status, reason):
        if self.dry:
            return
        out = os.path.join(self.dev.results, self.name + ".json")
        data = dict(self.data)
        data.update({"part": self.name, "status": status, "reason": reason, "steps_finished": list(self.done)})
        if self.checks:
            data["checks"] = self.checks
        with open(out + ".tmp", "w") as f:
            json.dump(data, f, indent=2)
        os.replace(out + ".tmp", out)  # a reader (or a kill) never sees half a file

    def finish(self, status, reason):
        """The part's final JSON and one line on stdout; the program's exit code follows it."""
        if self.dry:
            return
        self.write_json(status, reason)
        print(f"gpu_check {self.name}: {status}" + (f" ({reason})" if reason else ""), flush=True)
        if status == "failed":
            self.dev.overall = 1
        elif status == "incomplete" and self.dev.overall == 0:
            self.dev.overall = 3

    def check(self, name, status, detail, **figures):
        self.checks.append({"check": name, "status": status, "detail": detail, **figures})

    def judge(self, name, floor_key, figure, label="{}"):
        """Checks FIGURE against FLOORS[floor_key]: ok, failed, or reported (a floor of another card)."""
        fl = FLOORS[floor_key]
        status, detail = verdict(fl, figure, self.dev.card, label)
        self.check(name, status, detail, figure=figure, floor=floor_key, floor_value=fl.value, what=fl.what)
        return status

    def conclude(self, elsewhere=""):
        """Finishes from the checks: failed when one failed; else incomplete when one was skipped (its
        tool, peer or device missing) or only reported (its floor belongs to another card), the
        reason naming each as not measured; ok only when every check measured and passed. ELSEWHERE,
        when given, ends the reason (floors this part leaves to other parts)."""
        failed = [c for c in self.checks if c["status"] == "failed"]
        unmeasured = [c for c in self.checks if c["status"] in ("skipped", "reported")]
        tail = f"; {elsewhere}" if elsewhere else ""
        if failed:
            self.finish("failed", "; ".join(f"{c['check']}: {c['detail']}" for c in failed) + tail)
        elif unmeasured:
            self.finish("incomplete", "not measured: " + "; ".join(
                f"{c['check']} ({c['status']}: {c['detail']})" for c in unmeasured) + tail)
        else:
            self.finish("ok", "; ".join(f"{c['check']}: {c['detail']}" for c in self.checks) + tail)
