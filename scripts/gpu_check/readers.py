"""What the steps leave, read back: doctest summaries, compute-sanitizer's, cuda_bench's and the
PyTorch peer's JSON, tiny-cuda-nn's benchmark output, full_res_bench's table and cpu_threads_bench's
lines, each into the data a part's JSON carries."""
import csv
import glob
import os
import re

from .common import load_json
from .floors import FLOORS

TCNN_BATCH = 1 << 18  # the batch at which tiny-cuda-nn's figure is read
DEFAULT_BACKWARD = "shared-dense"  # the hash-grid backward the CUDA backend runs by default (cuda/hash_grid_choice.h)


def parse_tests(log):
    res = {"suites": []}
    for m in re.finditer(r"\[doctest\] test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed \|\s*(\d+) skipped",
                         log):
        res["suites"].append({"cases": int(m[1]), "passed": int(m[2]), "failed": int(m[3]), "skipped": int(m[4])})
    res["return_codes"] = [int(x) for x in re.findall(r"^rc (\d+)$", log, re.M)]
    # doctest prints a block per case between rules of '='; --duration=true prints one for every
    # case, so a case failed only where its block holds an error.
    res["failed_cases"] = [m[1] for block in re.split(r"^={20,}$", log, flags=re.M)
                           if re.search(r"\b(ERROR|FATAL ERROR|THREW)\b", block)
                           for m in [re.search(r"TEST CASE:\s+(.*)", block)] if m]
    res["skipped_device"] = "SKIPPED: no CUDA device" in log
    return res


def parse_sanitizer(text, rc):
    m = re.search(r"ERROR SUMMARY: (\d+) error", text)
    cases = re.search(r"\[doctest\] test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed", text)
    return {"exit": rc, "errors": int(m[1]) if m else None, "timed_out": rc in (124, 137),
            "cases": int(cases[1]) if cases else None, "cases_failed": int(cases[3]) if cases else None}


def sanitizer_problem(tool, t, secs):
    """What is wrong with one compute-sanitizer run, or ''."""
    if t["timed_out"]:
        return f"{tool}(timed out after {secs} s)"
    if t["exit"] != 0:
        return f"{tool}(exit {t['exit']})"
    if not t["cases"]:
        return f"{tool}(no test case ran)"
    return ""


def collect_instant(tmp):
    res = {"instant_cuda": [], "instant_torch": [], "instant_psnr": {}}
    for f in sorted(glob.glob(os.path.join(tmp, "cuda-*.json"))):
        # cuda-PRECISION[-KERNEL].json: KERNEL names the kernel that differs from the defaults; a
        # row of a backward A/B (cuda_bench --backwards, --grids) names its own backward and grid.
        variant = os.path.basename(f)[5:-5].partition("-")[2] or "default kernels"
        for r in (load_json(f) or {}).get("throughput", []):
            v = variant
            if v == "default kernels" and r.get("hash_grid_backward", DEFAULT_BACKWARD) != DEFAULT_BACKWARD:
                v = f"{r['hash_grid_backward']} backward"
            if (r.get("grid") or {}).get("sizing", "image") != "image":
                v += f", {r['grid']['sizing']} grid"
            r["hash_grid_kernels"] = v
            res["instant_cuda"].append(r)
    for f in sorted(glob.glob(os.path.join(tmp, "torch-*.json"))):
        res["instant_torch"] += [r for r in load_json(f, []) if "samples_per_s" in r]
    for f in sorted(glob.glob(os.path.join(tmp, "psnr-*.json"))):
        j = load_json(f)
        if j is not None:
            res["instant_psnr"][os.path.basename(f)[5:-5]] = j
    return res


def our_row(data):
    """instant's cuda_bench row with the default kernels at precision auto on a user's grid, or None."""
    return next((r for r in data.get("instant_cuda", []) if r.get("precision") == "auto"
                 and r.get("hash_grid_kernels") == "default kernels" and "samples_per_s" in r), None)


def ours(data):
    """instant's samples/s with the default kernels at precision auto on a user's grid, or None."""
    row = our_row(data)
    return row["samples_per_s"] if row else None


def parse_fullres(log):
    rows = []
    for m in re.finditer(r"^\| (\d+)(?: \(round (\d+)\))? \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| "
                         r"(-?[\d.]+) \| (\d+) \| ([^|]*) \| ([^|]*) \|$", log, re.M):
        rows.append({"side": int(m[1]), "round": int(m[2] or 1), "steps": int(m[3]), "train_s": float(m[4]),
                     "steps_per_s": float(m[5]), "wall_s": float(m[6]), "outside_s": float(m[7]),
                     "peak_rss_mib": int(m[8]), "psnr_db": m[9].strip(), "metrics_rows_pct": m[10].strip()})
    share = re.search(r"^steps/s at (\d+) as a share of (\d+): ([\d.]+)", log, re.M)
    # each size's hash grid, in words (bench/model_grid.py): "grid at SIDE: ..."
    grids = {m[1]: m[2].strip() for m in re.finditer(r"^grid at (\d+): (.*)$", log, re.M)}
    res = {"rows": rows, "grids": grids, "floor": FLOORS["fullres_share"].value}
    if share:
        res.update({"full_side": int(share[1]), "small_side": int(share[2]), "share": float(share[3])})
    return {"fullres": res}


def parse_tcnn(text):
    """tiny-cuda-nn's image benchmark output: the training throughput of each batch it finished.
    bench_ours runs max(1000 * 2^18 / batch, 250) iterations and prints every tenth of them, so the
    gap between its printed iterations names the batch (None: 2^20 or more)."""
    runs, block = [], []
    for line in text.splitlines():
        m = re.match(r"Iteration#(\d+): loss=", line)
        if m:
            block.append(int(m[1]))
            continue
        m = re.search(r"Finished training benchmark\. Mean throughput is ([0-9.eE+-]+)/s", line)
        if m:
            iterations = 10 * (block[1] - block[0]) if len(block) > 1 else 0
            batch = (1000 * TCNN_BATCH) // iterations if iterations > 250 else None
            runs.append({"batch": batch, "training_samples_per_s": float(m[1])})
            block = []
    at = next((r["training_samples_per_s"] for r in runs if r["batch"] == TCNN_BATCH), None)
    return {"runs": runs, "batch": TCNN_BATCH, "samples_per_s": at}


def parse_cpu_threads(log):
    """bench/cpu_threads_bench.sh's lines, "cpu_threads: PRESET THREADS STEPS_PER_S", as
    {"cpu_threads": {preset: {threads: steps/s}}, "cores": N} (threads as strings, as JSON keeps
    them; N from cpu_bench's first line, "CPU backend: N CPU cores", None before it)."""
    rates = {}
    for m in re.finditer(r"^cpu_threads: (\S+) (\d+) ([\d.]+)$", log, re.M):
        rates.setdefault(m[1], {})[m[2]] = float(m[3])
    cores = re.search(r"^CPU backend: (\d+) CPU cores", log, re.M)
    return {"cpu_threads": rates, "cores": int(cores[1]) if cores else None}


def collect_bench(tmp):
    """The bench part's figures: cuda_bench's rows from TMP/bench_*.json and redraw train's own rate
    from TMP/run/metrics.csv."""
    data = {"throughput": []}
    for f in sorted(glob.glob(os.path.join(tmp, "bench_*.json"))):
        j = load_json(f)
        if j is not None:
            data["throughput"] += j.get("throughput", [])
            data.setdefault("device", j.get("device"))
    try:
        with open(os.path.join(tmp, "run", "metrics.csv")) as f:
            rows = list(csv.DictReader(f))
        first, last = rows[0], rows[-1]
        steps = int(last["step"]) - int(first["step"])
        secs = float(last["seconds"]) - float(first["seconds"])
        data["cli_train"] = {"preset": "siren", "size": 256, "steps": steps, "seconds": secs,
                             "steps_per_s": steps / secs if secs > 0 else None,
                             "final_psnr_db": float(last["psnr_db"])}
    except (OSError, ValueError, KeyError, IndexError) as e:
        data["cli_train"] = {"error": str(e)}
    return data
