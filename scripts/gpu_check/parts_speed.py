"""The parts that measure speed against floors.py: instant (samples/s and time to PSNR, the kernels
kept for comparison), instant-torch (the PyTorch hash grid beside ours), profile (Nsight Compute's
limiters), fullres (100 MP against 1 MP) and cpu-threads (the CPU backend at 1 to 16 threads)."""
import glob
import os
import shutil

from .common import ROOT, grep, read, show
from .peers import judge_fullres, judge_peers, torch_cmd
from .readers import collect_instant, ours, parse_cpu_threads, parse_fullres

CPU_THREADS = (1, 2, 4, 8, 16)  # the cpu-threads part's team sizes
CPU_THREAD_STEPS = {1: 120, 2: 80, 4: 60, 8: 50, 16: 50}  # seconds: every preset at that count


def instant_bench(p, label, secs, json_name, precision="auto", env_extra=None):
    """cuda_bench on instant at batch 2^18 into the part's log; a FAILED line when it fails."""
    p.header(label)
    cmd = [p.bin("cuda_bench"), "--presets", "instant", "--sizes", "512", "--steps", "200", "--precision", precision,
           "--json", p.path(json_name)]
    if p.step(label, secs, cmd, env={**p.rx(), **(env_extra or {})}):
        p.say(f"FAILED: {label}")


def part_instant(p):
    """The instant preset (hash grid + fused MLP): samples/s at batch 2^18 against its floor, the
    kernels kept for comparison, and the time to 25/30/35 dB on a 512x512 photo against fourier
    and siren. Its PyTorch peer is instant-torch (another call)."""
    p.start_log()
    p.collect = lambda: p.data.update(collect_instant(p.tmp))
    instant_bench(p, "cuda_bench instant auto", 70, "cuda-auto.json")
    instant_bench(p, "cuda_bench instant fp32", 70, "cuda-fp32.json", "fp32")
    # The other kernels (cuda/fused_mlp_rules.h, cuda/hash_grid_choice.h), one at a time against the defaults.
    # 40 s each (quick runs the same bench in 25) keeps the part within PART_LIMIT.
    instant_bench(p, "cuda_bench instant auto, fragment epilogue", 40, "cuda-auto-fragment-epilogue.json",
                  env_extra={"REDRAW_FUSED_MLP_EPILOGUE": "fragment"})
    instant_bench(p, "cuda_bench instant auto, atomic backward", 40, "cuda-auto-atomic-backward.json",
                  env_extra={"REDRAW_HASH_GRID_BACKWARD": "atomic"})
    instant_bench(p, "cuda_bench instant auto, warp-aggregated backward", 40, "cuda-auto-warp-aggregated.json",
                  env_extra={"REDRAW_HASH_GRID_BACKWARD": "warp-aggregated"})
    instant_bench(p, "cuda_bench instant auto, per-sample backward", 40, "cuda-auto-per-sample.json",
                  env_extra={"REDRAW_HASH_GRID_BACKWARD": "per-sample"})
    for img in ("chelsea", "camera"):
        p.header(f"time to PSNR, {img} 512x512")
        if p.step(f"time to PSNR, {img} 512x512", 90,
                  [p.bin("psnr_bench"), "--backend", "cuda", "--precision", "auto", "--image", p.sample(img), "--size",
                   "512x512", "--presets", "instant,fourier,siren", "--time-limit", "20", "--measure-every", "0.02",
                   "--json", p.path(f"psnr-{img}.json")], env=p.rx()):
            p.say(f"FAILED: psnr_bench {img}")
    if p.dry:
        return
    p.collect()
    log = read(p.log)
    failed = grep(log, "^FAILED")
    if failed:
        p.check("runs", "failed", f"{'; '.join(failed)} (see instant.log)")
    mine = ours(p.data)
    if mine is None:
        p.check("instant", "failed", "cuda_bench instant auto gave no samples/s")
    else:
        p.judge("instant", "instant_samples_per_s", mine, "{} samples/s (default kernels)")
    p.conclude()
    show(grep(log, r"^(preset|instant|fourier|siren)|samples/s|dB", 30))


def part_instant_torch(p):
    """The pure-PyTorch hash grid on the same network and batch, fp32 and fp16, eager and compiled,
    beside instant's own samples/s from the same call (ours at least the fastest peer's)."""
    p.start_log()
    p.collect = lambda: p.data.update(collect_instant(p.tmp))
    instant_bench(p, "cuda_bench instant auto", 25, "cuda-auto.json")
    failed = []
    for prec in ("fp32", "fp16"):
        p.header(f"PyTorch hash grid {prec}")
        if p.step(f"PyTorch hash grid {prec}", 150, torch_cmd(prec, "eager,compile", p.path(f"torch-{prec}.json"),
                                                              grid_from=p.path("cuda-auto.json")),
                  env={"PYTHONUNBUFFERED": "1"}):
            failed.append(f"torch-{prec}")
    if p.dry:
        return
    p.collect()
    torch_text = p.section("PyTorch hash grid fp32") + p.section("PyTorch hash grid fp16")
    if "SKIPPED" in torch_text:
        p.finish("skipped", grep(torch_text, "SKIPPED", 1)[0])
        return
    if failed:
        p.check("PyTorch", "failed", f"did not finish: {' '.join(failed)} (see instant-torch.log)")
    if p.data["instant_torch"]:
        best = max(p.data["instant_torch"], key=lambda r: r["samples_per_s"])
        judge_peers(p, "instant vs PyTorch", "instant_over_torch", best["samples_per_s"],
                    f"PyTorch's fastest ({best.get('impl')} {best.get('precision')})", best.get("grid"))
    elif not failed:
        p.check("PyTorch", "failed", "no PyTorch figure (see instant-torch.log)")
    p.conclude()
    show(grep(read(p.log), r"^(preset|instant)|samples/s", 20))


def part_profile(p):
    """Nsight Compute on instant's training step: every kernel of a few steps (the graph's nodes one
    by one), with what limits each. The profiled program gets Redraw's library path through a shell
    that ncu follows; ncu keeps its own."""
    ncu = shutil.which("ncu") or next(iter(sorted(glob.glob("/usr/local/cuda/bin/ncu") +
                                                  glob.glob("/opt/nvidia/nsight-compute/*/ncu"))), "")
    if not p.dry and not (ncu and os.access(ncu, os.X_OK)):
        p.finish("skipped", "ncu not found")
        return
    lib = p.rx()["LD_LIBRARY_PATH"]
    rc = p.step("ncu: the kernels of instant's step", 300,
                [ncu or "ncu", "--target-processes", "all", "--graph-profiling", "node", "--launch-skip", "60",
                 "--launch-count", "24", "--section", "SpeedOfLight", "--section", "MemoryWorkloadAnalysis",
                 "--section", "ComputeWorkloadAnalysis", "--section", "Occupancy", "--section", "LaunchStats",
                 "bash", "-c", 'export LD_LIBRARY_PATH="$1"; shift; exec "$@"', "sh", lib, p.bin("cuda_bench"),
                 "--presets", "instant", "--sizes", "512", "--steps", "20", "--precision", "auto"], mode="w")
    if p.dry:
        return
    log = read(p.log)
    show(grep(log, r"^  [a-zA-Z_].*\(([0-9]+, ){2}[0-9]+\)x\(|Duration|Memory Throughput|Compute \(SM\) Throughput|"
                   r"Achieved Occupancy", 150))
    p.data["kernels_profiled"] = kernels = len(grep(log, r"^\s*Duration\b"))
    if rc != 0:
        p.finish("failed", f"ncu exit {rc}, {kernels} kernels profiled (see profile.log)")
    elif kernels == 0:
        p.finish("failed", "ncu profiled no kernel (exit 0; see profile.log)")
    else:
        p.finish("ok", f"{kernels} kernels profiled (profile.log)")


def part_fullres(p):
    """Full resolution on the GPU (the floor: a 100-megapixel image at full resolution trains
    `instant` at the fullres_share floor's share of its steps/s at 1 megapixel, both on the 100 MP
    picture's grid): bench/full_res_bench.sh on chelsea tiled at its native scale into a 10000x10000
    JPEG (decode_bench, from the pack), --max-side 1000 against full resolution, 30 s each, the two
    sizes in turns twice (a slow spell then falls on both), --same-grid; two sizes on unlike grids
    are not comparable, and fail."""
    p.start_log()
    p.collect = lambda: p.data.update(parse_fullres(read(p.log)))
    # full_res_bench finds redraw and decode_bench in the pack's bin/ and chelsea in its samples.
    rc = p.step("full resolution: 10000x10000 against 1000, instant, 2 x 2 x 30 s", 420,
                ["bash", os.path.join(ROOT, "bench", "full_res_bench.sh"), "--backend", "cuda", "--size", "10000x10000",
                 "--side", "1000", "--steps", "1000000", "--seconds", "30", "--rounds", "2", "--same-grid", "--keep",
                 p.path("fullres")], env={**p.rx(), "REDRAW_BUILD_DIR": p.dev.pack_abs})
    if p.dry:
        return
    p.collect()
    print(read(p.log), end="")
    judge_fullres(p, rc, "fullres.log")
    p.finish("failed" if p.checks[-1]["status"] == "failed" else "ok", p.checks[-1]["detail"])


def part_cpu_threads(p):
    """The CPU backend on the GPU machine's cores: every preset's steps/s at 1, 2, 4, 8 and 16
    threads (bench/cpu_threads_bench.sh with the pack's cpu_bench, 256x256, each preset's CPU
    batch), one step per count; the floors cpu_threads_instant and cpu_threads_fourier: 16 threads
    over 1 thread (skipped with the reason on fewer than 16 cores)."""
    p.start_log()
    p.collect = lambda: p.data.update(parse_cpu_threads(read(p.log)))
    env = {**p.rx(), "REDRAW_BUILD_DIR": p.dev.pack_abs}
    failed = []
    for t in CPU_THREADS:
        p.header(f"cpu_bench, {t} thread(s)")
        if p.step(f"cpu_bench every preset, {t} thread(s)", CPU_THREAD_STEPS[t],
                  ["bash", os.path.join(ROOT, "bench", "cpu_threads_bench.sh"), "--threads", str(t), "--size", "256",
                   "--seconds", "3"], env=env):
            failed.append(str(t))
    if p.dry:
        return
    p.collect()
    show(grep(read(p.log), r"^cpu_threads: |^CPU backend"))
    rates, cores = p.data["cpu_threads"], p.data["cores"]
    for preset in ("instant", "fourier"):
        one, many = rates.get(preset, {}).get("1"), rates.get(preset, {}).get("16")
        if cores is not None and cores < 16:
            p.check(preset, "skipped", f"{cores} CPU cores here, 16 needed")
        elif not one or not many:
            p.check(preset, "failed", f"no steps/s at 1 and 16 threads (runs that did not finish: "
                                      f"{' '.join(failed) or 'none'}; see cpu-threads.log)")
        else:
            p.judge(preset, f"cpu_threads_{preset}", many / one,
                    f"16 threads at {{}} of 1 thread ({many:.2f} / {one:.2f} steps/s)")
    p.conclude()
