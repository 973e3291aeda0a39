"""quick: the most one device call proves (QUICK_LIMIT), run first on every visit. The CUDA tests,
memcheck and racecheck on the fused MLP and hash-grid cases, instant's samples/s (default kernels,
a user's grid) beside the PyTorch hash grid and tiny-cuda-nn (when packed) on that same grid, the
shared-dense (default) and per-sample backwards on a user's grid and the preset's unsized one (the
default must not be the slower: shared_dense_over_per_sample), interop at
1024x1024, a short fullres run. All of it goes to quick.log and quick.json: with device.txt, 3
files in $OUT."""
import json
import os

from .common import ROOT, compute_sanitizer, grep
from .floors import floors_elsewhere
from .packing import TCNN_BIN
from .peers import (grid_text, interop_cmd, interop_env, judge_fullres, judge_interop, judge_peers, our_grid,
                    tcnn_config, torch_cmd)
from .readers import (DEFAULT_BACKWARD, collect_instant, ours, parse_fullres, parse_sanitizer, parse_tcnn,
                      parse_tests, sanitizer_problem)

QUICK_SANITIZE_CASES = "cuda sanitize: fused MLP*,cuda sanitize: hash grid*"  # tests/cuda/test_cuda_sanitize.cpp
QUICK_TOOLS = {"memcheck": 40, "racecheck": 45}  # quick's compute-sanitizer tools and their timeouts
AB_BACKWARD = "per-sample"  # the earlier default backward quick times against the default, on a user's grid and the preset's


def part_quick(p):
    """quick (this module's docstring): its steps, then its checks, one line each on stdout."""
    p.start_log()
    rcs = {}  # step: its exit code
    tcnn_conf = {}  # the config tiny-cuda-nn was given, once written

    def collect():
        p.data.update(parse_tests(p.section("redraw_cuda_tests")))
        p.data["tools"] = {t: parse_sanitizer(p.section(t), rcs[t]) for t in QUICK_TOOLS if t in rcs}
        p.data.update(collect_instant(p.tmp))
        p.data["tcnn"] = {**parse_tcnn(p.section("tiny-cuda-nn")), "config": tcnn_conf.get("config")}
        p.data.update(parse_fullres(p.section("fullres")))
    p.collect = collect
    quick_tests_and_tools(p, rcs)
    quick_speed(p, rcs, tcnn_conf)
    if p.dry:
        return
    collect()
    quick_checks(p, rcs)
    p.conclude(floors_elsewhere("quick"))
    for c in p.checks:
        print(f"  {c['check']:13} {c['status']:8} {c['detail']}")


def quick_tests_and_tools(p, rcs):
    """quick's first steps: the CUDA tests, then each of QUICK_TOOLS on the fused MLP and hash-grid
    cases (when compute-sanitizer is there)."""
    env = p.rx()
    sanitizer = compute_sanitizer()
    has_sanitizer = p.dry or os.access(sanitizer, os.X_OK)
    p.header("redraw_cuda_tests")
    rcs["tests"] = p.step("redraw_cuda_tests", 95, [p.bin("redraw_cuda_tests"), "--reporters=console",
                                                     "--duration=true"], env=env)
    p.say(f"rc {rcs['tests']}")
    for tool, secs in QUICK_TOOLS.items():
        if has_sanitizer:
            p.header(tool)
            rcs[tool] = p.step(f"{tool}: fused MLP and hash grid cases", secs,
                               [sanitizer, "--tool", tool, "--error-exitcode", "99", "--print-limit", "20",
                                p.bin("redraw_cuda_tests"), f"-tc={QUICK_SANITIZE_CASES}"], env=env)
            p.say(f"rc {rcs[tool]}")


def quick_speed(p, rcs, tcnn_conf):
    """quick's figures: instant with the backward A/B, interop, the PyTorch peer, tiny-cuda-nn (when
    packed; ended once it printed batch 2^18's figure) and a short fullres run."""
    env = p.rx()
    tcnn = p.bin(TCNN_BIN)
    p.header("instant")
    # The default backward on a user's grid first (the figure the floors judge; the JSON keeps each
    # row as it comes), then the A/B: the per-sample backward, and both on the preset's unsized grid.
    rcs["instant"] = p.step("cuda_bench instant auto, backward A/B on two grids", 50,
                            [p.bin("cuda_bench"), "--presets", "instant", "--sizes", "512", "--steps", "200",
                             "--precision", "auto", "--grids", "image,preset", "--backwards",
                             f"{DEFAULT_BACKWARD},{AB_BACKWARD}", "--json", p.path("cuda-auto.json")], env=env)
    p.header("interop")
    rcs["interop"] = p.step("redraw_interop_check 1024x1024, 60 frames", 15, interop_cmd(p), env=interop_env(p))
    p.header("PyTorch")
    # 95 s: 70 left torch.compile with a cold Inductor cache too little room (the peer, not Redraw, would fail).
    rcs["torch"] = p.step("PyTorch hash grid fp16, eager and compiled", 95,
                          torch_cmd("fp16", "eager,compile", p.path("torch-fp16.json"),
                                    grid_from=p.path("cuda-auto.json")), env={"PYTHONUNBUFFERED": "1"})
    if p.dry or os.access(tcnn, os.X_OK):
        p.header("tiny-cuda-nn")
        if not p.dry:
            tcnn_conf["config"] = tcnn_config(our_grid(p))
            os.makedirs(p.path("tcnn"))
            with open(p.path("tcnn", "instant.json"), "w") as f:
                json.dump(tcnn_conf["config"], f, indent=2)
        rcs["tcnn"] = p.step("tiny-cuda-nn image benchmark, batch 2^18", 35,
                             [tcnn, p.sample("camera"), p.path("tcnn", "instant.json")], cwd=p.path("tcnn"),
                             stop_when=lambda: parse_tcnn(p.section("tiny-cuda-nn"))["samples_per_s"] is not None)
    p.header("fullres")
    # 105 s: two 8 s runs, a 10000x10000 JPEG made and decoded twice, the 100 MP picture saved; 80 was tight.
    rcs["fullres"] = p.step("full resolution: 10000x10000 against 1000, 8 s each", 105,
                            ["bash", os.path.join(ROOT, "bench", "full_res_bench.sh"), "--backend", "cuda",
                             "--size", "10000x10000", "--side", "1000", "--steps", "1000000", "--seconds", "8",
                             "--rounds", "1", "--same-grid", "--keep", p.path("fullres")],
                            env={**env, "REDRAW_BUILD_DIR": p.dev.pack_abs})


def check_backward_ab(p, rc):
    """quick's A/B of the hash-grid backwards: each one's samples/s on a user's grid and on the
    preset's unsized one, and the default's over the other's on each grid, the lower of the two
    judged against shared_dense_over_per_sample (the default must not be the slower one); failed
    when a row is missing (the other kernel failed or the step ran out of time)."""
    rows = {((r.get("grid") or {}).get("sizing"), r.get("hash_grid_backward")): r for r in p.data["instant_cuda"]
            if r.get("hash_grid_backward") and r.get("precision") == "auto"}
    p.data["backward_ab"] = [{"grid": g, "backward": b, "samples_per_s": r["samples_per_s"], "grid_resolved": r["grid"]}
                             for (g, b), r in rows.items()]
    missing = [f"{b} on the {g} grid" for g in ("image", "preset") for b in (DEFAULT_BACKWARD, AB_BACKWARD)
               if (g, b) not in rows]
    if missing:
        p.check("backward A/B", "failed", f"no samples/s for {', '.join(missing)} (exit {rc}; see quick.log)")
        return
    ratio = {g: rows[(g, DEFAULT_BACKWARD)]["samples_per_s"] / rows[(g, AB_BACKWARD)]["samples_per_s"]
             for g in ("image", "preset")}
    p.judge("backward A/B", "shared_dense_over_per_sample", min(ratio.values()),
            f"{DEFAULT_BACKWARD} at {ratio['image']:.2f}x {AB_BACKWARD}'s samples/s on a user's grid "
            f"({grid_text(rows[('image', AB_BACKWARD)]['grid'])}), {ratio['preset']:.2f}x on the preset's "
            f"({grid_text(rows[('preset', AB_BACKWARD)]['grid'])}): the lower {{}}")
    p.checks[-1]["ratios"] = ratio


def check_tests_and_tools(p, rcs):
    """quick's checks of the CUDA tests and of each sanitizer tool (skipped when it was not found)."""
    d = p.data
    if rcs["tests"] in (124, 137):
        p.check("tests", "failed", "redraw_cuda_tests timed out after 95 s")
    elif not d["suites"]:
        p.check("tests", "failed", f"redraw_cuda_tests did not finish (exit {rcs['tests']}; see quick.log)")
    elif d["skipped_device"]:
        p.check("tests", "failed", "the CUDA tests skipped although a device is present")
    elif rcs["tests"] != 0 or d["suites"][0]["failed"]:
        p.check("tests", "failed", "; ".join(d["failed_cases"][:5] or [f"exit {rcs['tests']}"]))
    else:
        p.check("tests", "ok", f"{d['suites'][0]['passed']} CUDA test cases passed")
    for tool, secs in QUICK_TOOLS.items():
        if tool not in rcs:
            p.check(tool, "skipped", "compute-sanitizer not found")
            continue
        t = d["tools"][tool]
        problem = sanitizer_problem(tool, t, secs)
        p.check(tool, "failed" if problem else "ok",
                f"{problem} (see quick.log)" if problem else f"0 errors in {t['cases']} fused MLP and hash grid cases")


def check_peers(p, rcs):
    """quick's ratios to the PyTorch hash grid and to tiny-cuda-nn (skipped when not packed)."""
    d = p.data
    torch_text = p.section("PyTorch")
    if "SKIPPED" in torch_text:
        p.check("PyTorch", "skipped", grep(torch_text, "SKIPPED", 1)[0])
    elif rcs["torch"] != 0 or not d["instant_torch"]:
        p.check("PyTorch", "failed", f"the PyTorch hash grid did not finish (exit {rcs['torch']}; see quick.log)")
    else:
        best = max(d["instant_torch"], key=lambda r: r["samples_per_s"])
        judge_peers(p, "PyTorch", "instant_over_torch", best["samples_per_s"],
                    f"PyTorch's fastest ({best.get('impl')} {best.get('precision')})", best.get("grid"))
    if "tcnn" not in rcs:
        p.check("tiny-cuda-nn", "skipped", f"no tiny-cuda-nn binary in the pack (bin/{TCNN_BIN}: pack --tcnn-bin PATH)")
    elif d["tcnn"]["samples_per_s"] is None:
        reached = [r["batch"] for r in d["tcnn"]["runs"]]
        p.check("tiny-cuda-nn", "failed", f"no training samples/s at batch 2^18 (exit {rcs['tcnn']}; batches "
                                          f"finished: {reached or 'none'}; see quick.log)")
    else:
        judge_peers(p, "tiny-cuda-nn", "instant_over_tcnn", d["tcnn"]["samples_per_s"], "tiny-cuda-nn's")


def quick_checks(p, rcs):
    """quick's verdict, check by check, from what its steps left (RCS: each step's exit code)."""
    check_tests_and_tools(p, rcs)
    mine = ours(p.data)
    if mine is None:
        p.check("instant", "failed", f"cuda_bench instant auto gave no samples/s (exit {rcs['instant']})")
    else:
        p.judge("instant", "instant_samples_per_s", mine, "{} samples/s")
    check_backward_ab(p, rcs["instant"])
    judge_interop(p, rcs["interop"], p.section("interop"))
    check_peers(p, rcs)
    judge_fullres(p, rcs["fullres"], "quick.log")
