"""The parts, in the order a visit runs them, each with the most its steps' timeouts may add up to;
and a part walked without running anything (`list`, and `run`'s check that the parts asked for fit
one device call)."""
import os
import shutil
import sys
import tempfile

from .common import PART_LIMIT, QUICK_LIMIT
from .device import Device
from .part import Part
from .part_quick import part_quick
from .parts_checks import (part_accuracy, part_bench, part_interop, part_sanitize, part_sanitize_parity, part_tests,
                           part_torch)
from .parts_speed import part_cpu_threads, part_fullres, part_instant, part_instant_torch, part_profile

# name: (the part, the most its timeouts may add up to), in the order a lease runs them
PARTS = {
    "quick": (part_quick, QUICK_LIMIT),
    "tests": (part_tests, PART_LIMIT),
    "sanitize": (part_sanitize, PART_LIMIT),
    "sanitize-parity": (part_sanitize_parity, PART_LIMIT),
    "bench": (part_bench, PART_LIMIT),
    "accuracy": (part_accuracy, PART_LIMIT),
    "interop": (part_interop, PART_LIMIT),
    "torch": (part_torch, PART_LIMIT),
    "instant": (part_instant, PART_LIMIT),
    "instant-torch": (part_instant_torch, PART_LIMIT),
    "profile": (part_profile, PART_LIMIT),
    "fullres": (part_fullres, PART_LIMIT),
    "cpu-threads": (part_cpu_threads, PART_LIMIT),
}


def new_part(name, dev, dry=False):
    return Part(name, dev, PARTS[name][1], dry)


def walk(name):
    """PART walked without running anything: its timeouts in all and its steps, (seconds, [(label,
    seconds)...]). A step past the part's limit is left out of the steps but counted in the seconds."""
    p = walked(name)
    return p.spent, p.walk


def walked(name):
    """The Part NAME after a dry run: its spent seconds, steps (walk) and their commands (commands)."""
    dev = Device()
    dev.results = tempfile.mkdtemp(prefix="gpu_check-dry-")
    p = new_part(name, dev, dry=True)
    try:
        saved, sys.stderr = sys.stderr, open(os.devnull, "w")
        try:
            PARTS[name][0](p)
        finally:
            sys.stderr.close()
            sys.stderr = saved
    finally:
        shutil.rmtree(p.tmp, ignore_errors=True)
        shutil.rmtree(dev.results, ignore_errors=True)
    return p


def unknown(parts, extra=""):
    """True, saying so, when a name in PARTS is no part (EXTRA: the other names allowed, for the message)."""
    bad = [x for x in parts if x not in PARTS]
    if bad:
        print(f"gpu_check: unknown part '{bad[0]}' (known: {' '.join(PARTS)}{extra})")
    return bool(bad)
