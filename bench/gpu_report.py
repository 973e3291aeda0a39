#!/usr/bin/env python3
"""Merges the JSON that `scripts/gpu_check.py run PART` wrote on a GPU machine into one table.

  python3 bench/gpu_report.py [DIR ...]

DIR: the folders the device calls' files came back to (one per call, in call order). Without
arguments: the ':'-separated folders in $REDRAW_GPU_RESULTS, else the repository's .gpu-results/
(where `run` writes when $OUT is not set). Later directories win where two hold the same part.
A part that was killed before it finished shows as "incomplete" with what it had measured.
Prints Markdown: the status of every part, every floor a part checked (figure, floor, verdict),
Redraw's steps/s and samples/s per preset, size and precision beside PyTorch eager and
torch.compile from the same machine, the CLI's own throughput, the time for the 200x200 horse to
reach 99% of pixels right, the interop cost per 1024x1024 frame, instant beside tiny-cuda-nn and
the PyTorch hash grid, the full-resolution share, and the CPU's steps/s per thread count. Where a
dedicated part did not run, its figures come from `quick`. Exits 1 when a part failed.
"""
import glob
import json
import os
import sys

PARTS = ("quick", "tests", "sanitize", "sanitize-parity", "bench", "accuracy", "interop", "torch", "instant",
         "instant-torch", "profile", "fullres", "cpu-threads")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


GRID_KEYS = ("levels", "dense_levels", "features_per_level", "log2_hashmap_size", "base_resolution",
             "finest_resolution", "entries")


def alike(a, b):
    """True when grids A and B (a row's "grid") are the same, or either is not recorded."""
    return not a or not b or all(a.get(k) == b.get(k) for k in GRID_KEYS)


def grid_cell(g):
    return (f"{g.get('sizing', '?')}: {g['levels']} levels ({g['dense_levels']} dense), 2^{g['log2_hashmap_size']}, "
            f"{g['entries']} rows") if g else "?"


def load(dirs):
    parts = {}
    device = None
    for d in dirs:
        for part in PARTS:
            f = os.path.join(d, part + ".json")
            if os.path.exists(f):
                try:
                    parts[part] = json.load(open(f))
                except ValueError as e:
                    parts[part] = {"status": "failed", "reason": f"unreadable {f}: {e}"}
        dev = os.path.join(d, "device.txt")
        if os.path.exists(dev):
            device = open(dev).read().strip()
    return parts, device


def fmt(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


def section(parts, key, *names):
    """PART[key] from the first of NAMES (parts) that has it, else quick's, else None."""
    for p in names + ("quick",):
        v = parts.get(p, {}).get(key)
        if v:
            return v
    return None


def print_parts(parts):
    """Each part's status, then every check's: True when a part failed or is incomplete."""
    print("| part | status | detail |\n|---|---|---|")
    failed = False
    for p in PARTS:
        r = parts.get(p)
        if r is None:
            print(f"| {p} | not run | |")
            continue
        failed |= r.get("status") in ("failed", "incomplete")
        done = r.get("steps_finished")
        steps = f" (finished: {', '.join(done) or 'nothing'})" if r.get("status") == "incomplete" and done is not None else ""
        print(f"| {p} | {r.get('status')} | {r.get('reason', '')}{steps} |")
    checks = [(p, c) for p in PARTS for c in parts.get(p, {}).get("checks", [])]
    if checks:
        print("\n| part | check | status | detail |\n|---|---|---|---|")
        for p, c in checks:
            print(f"| {p} | {c['check']} | {c['status']} | {c['detail']} |")
    return failed


def print_bench(parts):
    """bench's throughput beside PyTorch's rows of the same preset, size and precision, and `redraw train`'s rate."""
    bench = parts.get("bench", {}).get("throughput", [])
    torch = parts.get("torch", {}).get("torch", [])
    ref = {(t["preset"], t["size"], t["impl"], t.get("precision", "fp32")): t for t in torch if "steps_per_s" in t}
    if bench:
        print("\n| preset | size | precision | Redraw steps/s | samples/s | TFLOP/s | % of cuBLAS | "
              "PyTorch eager | x eager | torch.compile | x compile |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in sorted(bench, key=lambda r: (r["preset"], r["size"], r["precision"])):
            key = (r["preset"], r["size"])
            eager = ref.get(key + ("torch-eager", r["precision"]))
            comp = ref.get(key + ("torch-compile", r["precision"]))
            pct = 100.0 * r["cublas_ms_per_step"] / r["gpu_ms_per_step_graph"] if r.get("gpu_ms_per_step_graph") else None
            print(f"| {r['preset']} | {r['size']} | {r['precision']} | {r['steps_per_s']:.1f} | {r['samples_per_s']:.3g} | "
                  f"{r.get('tflops', 0):.1f} | {fmt(pct, '.0f')} | "
                  f"{fmt(eager and eager['steps_per_s'])} | {fmt(eager and r['steps_per_s'] / eager['steps_per_s'], '.2f')} | "
                  f"{fmt(comp and comp['steps_per_s'])} | {fmt(comp and r['steps_per_s'] / comp['steps_per_s'], '.2f')} |")
    cli = parts.get("bench", {}).get("cli_train")
    if cli and "steps_per_s" in cli:
        same = next((r for r in bench if r["preset"] == cli["preset"] and r["size"] == cli["size"]
                     and r["precision"] == "fp32"), None)
        ratio = f" ({100 * cli['steps_per_s'] / same['steps_per_s']:.0f}% of cuda_bench's step rate)" if same else ""
        print(f"\n`redraw train` {cli['preset']} {cli['size']}x{cli['size']}: {cli['steps_per_s']:.1f} steps/s over "
              f"{cli['steps']} steps with metrics and timelapse{ratio}; final PSNR {cli['final_psnr_db']:.2f} dB")


def print_accuracy_interop_sanitizers(parts):
    """accuracy's time to 99% of pixels right, the interop frame, each part's compute-sanitizer tools."""
    acc = parts.get("accuracy", {}).get("accuracy", [])
    if acc:
        print("\n| preset (horse 200x200 binary) | limit | reached 99% | steps | seconds | pixels right |")
        print("|---|---|---|---|---|---|")
        for a in acc:
            print(f"| {a['preset']} | {a['time_limit_s']} s | {'yes' if a['reached'] else 'no'} | {a['steps']} | "
                  f"{a['train_seconds']:.2f} | {100 * a['pixel_accuracy']:.2f}% |")
    inter = section(parts, "interop", "interop")
    if inter:
        print(f"\nInterop, {inter['size']}x{inter['size']} frame on {inter['gl_renderer']}: render {inter['render_ms']:.3f} ms, "
              f"copy + texture upload {inter['copy_upload_ms']:.3f} ms, total {inter['total_ms']:.3f} ms per frame; "
              f"max texel difference {inter['max_level_diff']} level(s)")
    for part in ("sanitize", "sanitize-parity", "quick"):
        san = parts.get(part, {}).get("tools")
        if san:
            print(f"\ncompute-sanitizer ({part}): " +
                  ", ".join(f"{t} {v.get('errors')} errors (exit {v.get('exit')}{', timed out' if v.get('timed_out') else ''})"
                            for t, v in san.items()))


def print_instant(parts):
    """instant's samples/s against the fastest PyTorch hash grid on the same grid, tiny-cuda-nn's, and the times to PSNR."""
    ours = section(parts, "instant_cuda", "instant", "instant-torch") or []
    if ours:
        peers = section(parts, "instant_torch", "instant-torch", "instant") or []
        best = max(peers, key=lambda r: r["samples_per_s"], default=None)
        print("\n| instant 512x512, batch 2^18 | grid | samples/s | vs fastest PyTorch hash grid |\n|---|---|---|---|")
        for r in ours:
            ratio = "-"
            if best and alike(r.get("grid"), best.get("grid")):
                ratio = f"{r['samples_per_s'] / best['samples_per_s']:.1f}x ({best['impl']} {best['precision']})"
            elif best:
                ratio = "unlike grids"
            kernels = r.get("hash_grid_kernels", "default kernels")
            print(f"| Redraw {r['precision']}, {kernels} | {grid_cell(r.get('grid'))} | {r['samples_per_s']:.3g} | {ratio} |")
        for r in peers:
            print(f"| PyTorch {r['impl']} {r['precision']} | {grid_cell(r.get('grid'))} | {r['samples_per_s']:.3g} | |")
        tcnn = section(parts, "tcnn") or {}
        if tcnn.get("samples_per_s"):
            enc = (tcnn.get("config") or {}).get("encoding", {})
            given = f"{enc.get('n_levels')} levels, 2^{enc.get('log2_hashmap_size')}" if enc else "?"
            print(f"| tiny-cuda-nn (FullyFusedMLP), batch 2^18 | {given} | {tcnn['samples_per_s']:.3g} | |")
        print("floors: the checks above (scripts/gpu_check/floors.py)")
    for img, rows in parts.get("instant", {}).get("instant_psnr", {}).items():
        runs = [r for r in rows if "preset" in r] if isinstance(rows, list) else []
        for r in runs:
            hits = ", ".join(f"{h['target_db']} dB {h['seconds']:.2f} s" for h in r.get("time_to_psnr", [])
                             if h.get("seconds") is not None)
            print(f"{img} {r['preset']}: {hits or 'no target reached'}")


def print_fullres_and_threads(parts):
    """fullres's rounds and share, and the CPU's steps/s per thread count."""
    full = section(parts, "fullres", "fullres") or {}
    if full.get("rows"):
        print("\n| full resolution, instant | round | steps/s | outside training s | PSNR dB |\n|---|---|---|---|---|")
        for r in full["rows"]:
            print(f"| {r['side']} px | {r['round']} | {r['steps_per_s']:.1f} | {r['outside_s']:.1f} | {r['psnr_db']} |")
        if "share" in full:
            print(f"share of the {full['small_side']} px rate: {full['share']:.2f} (floor {full['floor']:.2f})")
    cpu = parts.get("cpu-threads", {}).get("cpu_threads") or {}
    if cpu:
        counts = sorted({int(t) for v in cpu.values() for t in v})
        print(f"\n| CPU steps/s, 256x256 ({parts['cpu-threads'].get('cores')} cores) | " +
              " | ".join(f"{t} thr" for t in counts) + f" | {counts[-1]} / {counts[0]} |")
        print("|---|" + "---|" * (len(counts) + 1))
        for preset, v in cpu.items():
            one, last = v.get(str(counts[0])), v.get(str(counts[-1]))
            print(f"| {preset} | " + " | ".join(fmt(v.get(str(t)), ".2f") for t in counts) +
                  f" | {fmt(last / one if one and last else None, '.2f')}x |")


def main(argv):
    env = [d for d in os.environ.get("REDRAW_GPU_RESULTS", "").split(":") if d]
    dirs = argv or env or [os.path.join(REPO, ".gpu-results")]
    dirs = [d for d in dirs if os.path.isdir(d)]
    parts, device = load(dirs)
    if not parts:
        print("gpu_report: no results in " + (", ".join(dirs) or "(no folders)"))
        return 1
    print(f"GPU: {device or 'unknown'}\n")
    failed = print_parts(parts)
    print_bench(parts)
    print_accuracy_interop_sanitizers(parts)
    print_instant(parts)
    print_fullres_and_threads(parts)
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
