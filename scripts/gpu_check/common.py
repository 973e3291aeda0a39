"""What every module of the GPU check shares: the repository's root, the per-call limits, and small
readers of files and logs."""
import json
import os
import re
import shutil

# scripts/gpu_check/common.py: the repository is two folders up.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PART_LIMIT = 480  # seconds: the timeouts inside one part (and one call) add up to at most this
QUICK_LIMIT = 480  # seconds: quick's, as every part's, leaving time to unpack and to write back within a 600 s call


def long_allowed():
    """REDRAW_GPU_LONG=1: no per-call limit (a machine without the device command's 600 s)."""
    return os.environ.get("REDRAW_GPU_LONG", "0") == "1"


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def load_json(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def grep(text, pattern, limit=None):
    lines = [line for line in text.splitlines() if re.search(pattern, line)]
    return lines[:limit] if limit else lines


def show(lines):
    for line in lines:
        print(line)


def compute_sanitizer():
    """compute-sanitizer's path (on PATH, else the toolkit's; it may not exist)."""
    return shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
