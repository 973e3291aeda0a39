"""The parts that check correctness and what a user runs: tests (the CUDA tests against the CPU,
redraw train/render/info on the GPU), sanitize and sanitize-parity (compute-sanitizer's three
tools), interop, accuracy, and bench and torch (throughput tables beside the PyTorch reference)."""
import glob
import os
import re

from .common import compute_sanitizer, grep, load_json, read, show
from .peers import interop_cmd, interop_env, judge_interop, torch_cmd
from .readers import collect_bench, parse_sanitizer, parse_tests, sanitizer_problem

# doctest splits -tc at commas: a comma inside a case's name is escaped (case_filters.py checks
# that every piece of every filter selects a case).
PARITY_CASES = ("cuda parity: encode*,cuda parity: predict\\, every*,cuda parity: loss and gradients*,"
                "cuda parity: gradients over*,cuda parity: optimizer*,cuda parity: bound state*,"
                "cuda parity: rendering*,cuda: graph replay*,cuda: errors*")


def part_tests(p):
    env = p.rx()
    p.start_log()
    p.collect = lambda: p.data.update(parse_tests(read(p.log)))
    p.say("== redraw_cuda_tests (CUDA against the CPU, op by op) ==")
    rc = p.step("redraw_cuda_tests", 330, [p.bin("redraw_cuda_tests"), "--reporters=console", "--duration=true"],
                env=env)
    p.say(f"rc {rc}")
    p.say("== redraw_tests: the registry and the module on a real device ==")
    rc = p.step("redraw_tests (registry, module)", 40, [p.bin("redraw_tests"), "-tc=backend registry*,cuda module*"],
                env=env)
    p.say(f"rc {rc}")
    p.say("== redraw train/render/info on the GPU ==")
    p.step("redraw info", 20, [p.bin("redraw"), "info", "--backends"], env=env)
    rc = p.step("redraw train siren 128x128", 50,
                [p.bin("redraw"), "train", p.sample("horse"), "--preset", "siren", "--size", "128x128", "--steps",
                 "300", "--backend", "cuda", "--out", p.path("run")], env=env, out=p.path("out"), mode="w")
    p.say(f"rc {rc}")
    p.append_file(p.path("out"), tail=4)
    rc = p.step("redraw render 2048x2048", 40,
                [p.bin("redraw"), "render", p.path("run", "model.redraw"), "--size", "2048x2048", "-o",
                 p.path("big.png")], env=env, out=p.path("out"), mode="w")
    p.say(f"rc {rc}")
    p.append_file(p.path("out"), tail=2)
    if p.dry:
        return
    p.collect()
    r = p.data
    if len(r["suites"]) < 2:
        p.finish("failed", "a test binary did not finish (see tests.log)")
    elif r["skipped_device"]:
        p.finish("failed", "the CUDA tests skipped although a device is present")
    elif any(c != 0 for c in r["return_codes"]) or any(s["failed"] for s in r["suites"]):
        p.finish("failed", "; ".join(r["failed_cases"][:5] or [f"exit codes {r['return_codes']}"]))
    else:
        p.finish("ok", f"{sum(s['passed'] for s in r['suites'])} CUDA test cases passed")
    show(grep(read(p.log), r"^\[doctest\] test cases|^rc "))


def sanitize_with(p, cases, seconds):
    """redraw_cuda_tests restricted to CASES under each compute-sanitizer tool (SECONDS: each
    tool's timeout); the JSON counts each tool's errors."""
    sanitizer = compute_sanitizer()
    if not p.dry and not os.access(sanitizer, os.X_OK):
        p.finish("skipped", "compute-sanitizer not found")
        return
    p.start_log()
    p.data["tools"] = {}
    failed = []
    for tool, secs in zip(("memcheck", "racecheck", "synccheck"), seconds):
        p.header(tool)
        rc = p.step(tool, secs, [sanitizer, "--tool", tool, "--error-exitcode", "99", "--print-limit", "20",
                                 p.bin("redraw_cuda_tests"), f"-tc={cases}"], env=p.rx())
        p.say(f"rc {rc}")
        if p.dry:
            continue
        p.data["tools"][tool] = parse_sanitizer(p.section(tool), rc)
        problem = sanitizer_problem(tool, p.data["tools"][tool], secs)
        if problem:
            failed.append(problem)
    if p.dry:
        return
    if failed:
        p.finish("failed", f"reports or errors: {' '.join(failed)} (see {p.name}.log)")
    else:
        p.finish("ok", "memcheck, racecheck and synccheck clean")
    show(grep(read(p.log), r"^== |ERROR SUMMARY|test cases:|^rc "))


def part_sanitize(p):
    """The kernels of the instant preset, on small batches (tests/cuda/test_cuda_sanitize.cpp): the
    fused fp16 MLP at every width, the hash grid's encode, grid encode and backward, and bound steps
    with graph replay, rendering and snapshot copies."""
    sanitize_with(p, "cuda sanitize:*", (150, 180, 150))


def part_sanitize_parity(p):
    """The fp32 parity cases, which cover every cuBLAS-path kernel; the bf16 and 200-step runs
    repeat them and are left out to keep each tool within its time."""
    sanitize_with(p, PARITY_CASES, (160, 160, 160))


def part_bench(p):
    env, steps, failed = p.rx(), os.environ.get("REDRAW_GPU_STEPS", "200"), []
    p.start_log()
    p.collect = lambda: p.data.update(collect_bench(p.tmp))
    for prec in ("fp32", "tf32", "bf16"):
        p.say(f"== cuda_bench {prec} ==")
        if p.step(f"cuda_bench {prec}", 120,
                  [p.bin("cuda_bench"), "--presets", "classic,siren,fourier", "--sizes", "200,256,512", "--steps",
                   steps, "--precision", prec, "--json", p.path(f"bench_{prec}.json")], env=env):
            failed.append(f"cuda_bench-{prec}")
    # The CLI's own throughput on the same preset and size as the benchmark (metrics, snapshots and
    # all): what a user sees, against what the step costs alone.
    p.say("== redraw train, siren 256x256, 3000 steps ==")
    if p.step("redraw train siren 256x256", 120,
              [p.bin("redraw"), "train", p.sample("camera"), "--preset", "siren", "--size", "256x256", "--steps",
               "3000", "--backend", "cuda", "--out", p.path("run")], env=env):
        failed.append("redraw-train")
    if p.dry:
        return
    p.collect()
    if failed:
        p.finish("failed", f"did not finish: {' '.join(failed)} (see bench.log)")
    else:
        p.finish("ok", "cuda_bench fp32/tf32/bf16 and redraw train")
    lines = read(p.log).splitlines()
    keep = sorted({j for i, line in enumerate(lines) if line.startswith("preset") for j in range(i, i + 13)
                   if j < len(lines)})
    show([lines[j] for j in keep][:40])


def part_torch(p):
    steps = os.environ.get("REDRAW_GPU_STEPS", "200")
    p.start_log()

    def collect():
        rows = []
        for f in sorted(glob.glob(p.path("*32.json"))):
            rows += load_json(f, [])
        p.data["torch"] = rows
    p.collect = collect
    # PyTorch runs with the machine's own libraries: no LD_LIBRARY_PATH from the pack.
    env = {"PYTHONUNBUFFERED": "1"}
    rc = p.step("PyTorch fp32 eager and compile", 300,
                torch_cmd("fp32", "eager,compile", p.path("fp32.json"), "classic,siren,fourier", "200,256,512",
                          steps), env=env)
    p.say(f"rc {rc}")
    rc = p.step("PyTorch tf32 eager", 120,
                torch_cmd("tf32", "eager", p.path("tf32.json"), "classic,siren,fourier", "200,256,512", steps),
                env=env)
    p.say(f"rc {rc}")
    if p.dry:
        return
    collect()
    log = read(p.log)
    if "SKIPPED" in log:
        p.finish("skipped", grep(log, "SKIPPED", 1)[0])
    elif re.search(r"^rc [1-9]", log, re.M):
        p.finish("failed", "the PyTorch reference did not finish (see torch.log)")
    else:
        p.finish("ok", "PyTorch eager, torch.compile and tf32 eager")
    show(grep(log, r"^(preset|classic|siren|fourier)", 30))


# accuracy's runs: its JSON, the time limit and the presets each must bring to 99% of pixels
ACCURACY_RUNS = (("a10.json", 10, ("fourier", "siren", "classic")), ("a60.json", 60, ("classic",)))


def accuracy_problems(rows):
    """What keeps accuracy's ROWS (cuda_bench's "accuracy" rows, each with its run's time_limit_s)
    from passing: each preset of ACCURACY_RUNS without a row, or whose row did not reach the target
    ("reached": false, which cuda_bench reports with exit 0). [] when every one reached it."""
    problems = []
    for _, limit, presets in ACCURACY_RUNS:
        for preset in presets:
            row = next((r for r in rows if r.get("preset") == preset and r.get("time_limit_s") == limit), None)
            if row is None:
                problems.append(f"{preset} ({limit} s run): no result")
            elif row.get("reached") is not True:
                share = 100 * row.get("pixel_accuracy", 0)
                problems.append(f"{preset} ({limit} s run) did not reach 99%: {share:.2f}% of pixels right after "
                                f"{row.get('train_seconds', 0):.1f} s ({row.get('steps')} steps)")
    return problems


def part_accuracy(p):
    env = p.rx()
    p.start_log()

    def collect():
        rows = []
        for name, limit, _ in ACCURACY_RUNS:
            for r in (load_json(p.path(name)) or {}).get("accuracy", []):
                rows.append({**r, "time_limit_s": limit})
        p.data["accuracy"] = rows
    p.collect = collect
    p.say("== every preset, 10 s limit ==")
    if p.step("every preset, 10 s limit", 150,
              [p.bin("cuda_bench"), "--presets", ",".join(ACCURACY_RUNS[0][2]), "--sizes", "200", "--steps", "20",
               "--accuracy", p.sample("horse"), "--time-limit", "10", "--json", p.path("a10.json")], env=env):
        p.say("FAILED: 10 s run")
    p.say("== classic as the original trained it (SGD, cosine over 800,000 steps), 60 s limit ==")
    if p.step("classic as the original, 60 s limit", 150,
              [p.bin("cuda_bench"), "--presets", ",".join(ACCURACY_RUNS[1][2]), "--sizes", "200", "--steps", "20",
               "--accuracy", p.sample("horse"), "--time-limit", "60", "--accuracy-steps", "800000", "--json",
               p.path("a60.json")], env=env):
        p.say("FAILED: 60 s run")
    if p.dry:
        return
    collect()
    log = read(p.log)
    problems = [f"{line[len('FAILED: '):]} did not finish" for line in grep(log, "^FAILED")]
    problems += accuracy_problems(p.data["accuracy"])
    if problems:
        p.finish("failed", "; ".join(problems) + " (see accuracy.log)")
    else:
        p.finish("ok", "horse 200x200 binary to 99% of pixels: every preset")
    tail = log[log.find("\naccuracy") + 1:] if "\naccuracy" in log else ""
    show([line for line in tail.splitlines() if not line.startswith("==")][:12])


def part_interop(p):
    p.start_log()
    rc = p.step("redraw_interop_check 1024x1024, 60 frames", 300, interop_cmd(p), env=interop_env(p), mode="w")
    if p.dry:
        return
    log = read(p.log)
    judge_interop(p, rc, log)
    if p.checks[-1]["status"] == "skipped":
        p.finish("skipped", p.checks[-1]["detail"])
    else:
        per_frame = [line.replace("interop_check: ", "") for line in grep(log, "per frame", 1)]
        p.finish("failed" if p.checks[-1]["status"] == "failed" else "ok",
                 "; ".join([p.checks[-1]["detail"]] + per_frame))
    print(log, end="")
