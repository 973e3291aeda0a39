"""Running a step's process under a timeout: its whole tree is ended when the time is up (SIGTERM,
then SIGKILL after a grace period), or once a condition says the step has what it came for."""
import os
import signal
import subprocess
import time

from .common import read


def descendants(pid):
    """Every process under PID (children, their children, ...), from /proc."""
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            stat = read(f"/proc/{d}/stat")
            if stat:
                children.setdefault(int(stat[stat.rfind(")") + 2:].split()[1]), []).append(int(d))
    found, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            found.append(c)
            todo.append(c)
    return found


def signal_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def end_tree(proc, grace=5.0):
    """SIGTERM to PROC and everything under it, SIGKILL after GRACE seconds; True when TERM did it."""
    pids = [proc.pid] + descendants(proc.pid)
    signal_all(pids, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
        ended = True
    except subprocess.TimeoutExpired:
        ended = False
    signal_all(pids, signal.SIGKILL)
    proc.wait()
    return ended


def wait(proc, secs, stop_when=None, grace=5.0):
    """PROC's exit code (128 + the signal when one ended it), waiting at most SECS: then its tree is
    ended and the code is 124 (SIGTERM did it) or 137 (SIGKILL had to). 0 when stop_when(), asked
    every 0.2 s, said the step had what it came for and its tree was ended."""
    deadline = time.monotonic() + secs
    while True:
        try:
            rc = proc.wait(timeout=0.2)
            return rc if rc >= 0 else 128 - rc
        except subprocess.TimeoutExpired:
            pass
        if stop_when is not None and stop_when():
            end_tree(proc, grace)
            return 0
        if time.monotonic() >= deadline:
            return 124 if end_tree(proc, grace) else 137
