"""scripts/gpu_kodak.sh's verdict on the table its call made (`redraw bench kodak-paper`'s
results.csv, a row per image and method, engine/bench/bench_table.h): failed when a cell failed,
when no cell finished, or when the table is not this call's (written before the call began, or
holding a method or an image the call did not ask for). Cells cut off by the time limit
(unfinished) or never started (pending) are what a call of a few minutes leaves: they are counted,
not failed.
  python3 -c 'import sys; sys.path.insert(0, "scripts"); from gpu_check.kodak import main; ...'
      RESULTS_CSV METHODS IMAGES_DIR SINCE     (METHODS comma-separated; SINCE: the call's start, epoch s)"""
import csv
import os


def kodak_verdict(path, methods, images, since):
    """(exit code, lines to print) for the results.csv at PATH of a call asked for METHODS (a list)
    on IMAGES (file names) that began at SINCE (seconds since the epoch): 1 on a failed cell, no
    finished cell, or a table that is not this call's; else 0."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        written = os.path.getmtime(path)
    except OSError as e:
        return 1, [f"gpu_kodak: FAILED: no table from this call ({e.strerror}: {path})"]
    if written < since:
        return 1, [f"gpu_kodak: FAILED: {path} was written before this call began: an earlier call's table"]
    strangers = [r for r in rows if r.get("method") not in methods or r.get("image") not in images]
    if strangers:
        return 1, [f"gpu_kodak: FAILED: {len(strangers)} cells of {path} are not this call's (e.g. "
                   f"{strangers[0].get('method')} on {strangers[0].get('image')})"]
    by = {s: [r for r in rows if r.get("status") == s] for s in ("done", "failed", "unfinished", "pending")}
    summary = (f"gpu_kodak: {len(by['done'])} of {len(rows)} cells done, {len(by['failed'])} failed, "
               f"{len(by['unfinished'])} cut off at the time limit, {len(by['pending'])} not started")
    lines = [summary] + [f"  failed: {r['method']} on {r['image']}: {r.get('error') or 'no error given'}"
                         for r in by["failed"]]
    if by["failed"]:
        return 1, lines + [f"gpu_kodak: FAILED: {len(by['failed'])} of {len(rows)} cells failed"]
    if not by["done"]:
        return 1, lines + ["gpu_kodak: FAILED: no cell finished (the table holds no figure)"]
    return 0, lines


def main(argv):
    path, methods, folder, since = argv
    images = set(os.listdir(folder)) if os.path.isdir(folder) else set()
    code, lines = kodak_verdict(path, methods.split(","), images, float(since))
    print("\n".join(lines), flush=True)
    return code
