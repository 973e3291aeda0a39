"""Proves (or disproves) every GPU claim of Redraw in a few fixed commands on a bare GPU machine
(CUDA driver, cuBLAS, cmake, Python 3 and PyTorch, but no package registry and no build dependencies).

  scripts/gpu_check.py pack [--tcnn-bin PATH] [DIR]
                                      here: builds for sm_90 without the GUI and packs the binaries,
                                      the libraries they need and the test images into DIR (default
                                      .gpu-pack, git-ignored), then prints the device calls to make;
                                      --tcnn-bin adds tiny-cuda-nn's image benchmark built elsewhere.
                                      DIR must be absent, empty or an earlier pack (it holds the
                                      GPU_PACK file pack writes): anything else is refused, untouched.
                                      An incomplete build leaves an earlier pack whole; the pack and
                                      the working tree must fit a device call's 64 MiB together (it
                                      prints the MiB left and how many Kodak images still fit)
  scripts/gpu_check.py run PART       there: one part per device call (see list)
  scripts/gpu_check.py list [PART...] anywhere: each part's steps and their timeouts, added up by
                                      walking the part without running anything
  scripts/gpu_check.py report [DIR...]
                                      here: one table from the results of every call (default:
                                      $REDRAW_GPU_RESULTS, else .gpu-results/)
  scripts/gpu_check.py floors [--markdown | --into FILE]
                                      anywhere: the floors the parts check (scripts/gpu_check/floors.py);
                                      --markdown as bench/README.md quotes them, --into rewrites
                                      FILE's table between its marker comments
Every command answers -h or --help (its usage, exit 0) without doing anything else.
scripts/gpu_check.sh runs this program with the same arguments; the program is the package
scripts/gpu_check/ (python3 scripts/gpu_check.py runs it, as does python3 -m gpu_check from scripts/).

Parts: quick (first: the most in one call), tests, sanitize, sanitize-parity, bench, accuracy,
interop, torch, instant, instant-torch, profile (Nsight Compute's limiters for the kernels of
instant's step), fullres (100 MP at full resolution against 1 MP), cpu-threads (every preset's CPU
steps/s at 1, 2, 4, 8 and 16 threads; 16 threads against one for instant and fourier). A lease
is short (15 minutes of device time, the start included): run quick first, then the others as time
allows.
quick: redraw_cuda_tests; memcheck and racecheck on the fused MLP and hash-grid cases; instant's
samples/s (default kernels, the grid a user's 512x512 run trains) beside tiny-cuda-nn's image
benchmark (when packed) and the PyTorch hash grid (fp16, eager and compiled), both given that same
grid; the per-sample backward (the earlier default) against the default (shared-dense) on that
grid and on the preset's unsized one (the default slower on either fails quick:
shared_dense_over_per_sample); interop at 1024x1024; a short fullres run. It leaves 3 files in $OUT.
The timeouts inside any part, quick included, add up to at most 480 s, so a part fits one device command
(600 s, unpacking included); `run` refuses parts whose timeouts add up to more (REDRAW_GPU_LONG=1
allows it on a machine without that limit; `all` needs it).
Every part with a figure checks it against its floor (`floors` lists them) and says
"failed" with the figure when it misses. A part says "ok" only when every one of its checks was
measured: a check skipped (no tiny-cuda-nn binary, compute-sanitizer, PyTorch or EGL) or a floor
only reported (the H100's and H200's on another card) ends it "incomplete", its reason naming what
was not measured.
`run` writes PART.json (machine-readable, "status": ok | failed | skipped | incomplete, the reason,
the steps finished and the floors checked) and PART.log into $OUT when set, else .gpu-results/.
PART.json is rewritten before every step with what the finished steps measured, so a part killed
at the command's limit still leaves its JSON ("incomplete", naming the step it stopped in).
Library paths are set only for Redraw's own processes (PyTorch keeps its own). cuBLAS is found in
the machine's toolkit or PyTorch's wheels. A part that finds no device writes "skipped" with the
reason and exits 0; a call without the pack fails every part it names (exit 1: it proved nothing); a
part that fails says which check failed and the program exits 1; else a part that ended incomplete
makes it exit 3.
Environment: REDRAW_GPU_PACK (the pack folder), REDRAW_CUDA_ARCHS (the pack's architectures,
default 90), REDRAW_GPU_BUILD (its build folder, default build-gpu), REDRAW_GPU_STEPS (bench
steps, default 200), REDRAW_GPU_RESULTS (report's folders, ':'-separated), REDRAW_CUBLAS_DIR
(cuBLAS 13's folder, when it is neither in /usr/local/cuda nor in PyTorch's wheels),
REDRAW_GPU_LONG=1 (no per-call limit).
tiny-cuda-nn: --tcnn-bin takes the binary of its benchmarks/image/bench_ours.cu (bench_image_ours),
run as `BIN IMAGE CONFIG` with the instant configuration on the grid cuda_bench recorded in the same
call (peers.tcnn_config; the PyTorch peer gets that grid too, --grid-from). The step reads its
output and ends it once batch 2^18's training throughput is printed, which must come within the
step's timeout (`list quick`). This repository holds no tiny-cuda-nn code and no recipe to build it:
the binary is built by hand elsewhere and travels in the pack only.
"""
import os
import shutil
import signal
import subprocess
import sys

from . import floors
from .common import PART_LIMIT, QUICK_LIMIT, ROOT, long_allowed, read
from .device import Device
from .packing import build_for_gpu, pack_folder_problem, pack_from_build, pack_summary, split_tcnn, unpack
from .plan import PARTS, new_part, unknown, walk
from .processes import descendants, signal_all

RUNNING = None  # the Part being run, for the signal handler

# command: its usage, printed for -h/--help (exit 0) and after a usage error (exit 2)
COMMAND_HELP = {
    "pack": "scripts/gpu_check.py pack [--tcnn-bin PATH] [DIR]\n"
            "  builds for the GPU machine (REDRAW_GPU_BUILD, default build-gpu) and packs it into DIR (default\n"
            "  .gpu-pack); DIR must be absent, empty or an earlier pack (it holds GPU_PACK), else it is refused",
    "pack-from-build": "scripts/gpu_check.py pack-from-build BUILD DIR [--tcnn-bin PATH]\n"
                       "  packs BUILD/bin (already built) into DIR, under the same rule for DIR as pack",
    "unpack": "scripts/gpu_check.py unpack [DIR]\n  unpacks DIR/pack.tar.xz into DIR (default $REDRAW_GPU_PACK "
              "or .gpu-pack)",
    "run": "scripts/gpu_check.py run PART... | all\n  runs the parts on this machine's GPU (parts: "
           + " ".join(PARTS) + ")",
    "list": "scripts/gpu_check.py list [PART...]\n  each part's steps and their timeouts, running nothing",
    "report": "scripts/gpu_check.py report [DIR...]\n  one table from the results folders (bench/gpu_report.py)",
    "floors": "scripts/gpu_check.py floors [--markdown | --into FILE]\n  the floors the parts check; --markdown as "
              "bench/README.md quotes them; --into FILE rewrites FILE's table between its marker comments",
}


def usage(cmd=None):
    """A usage error (exit 2): CMD's usage, else the whole help, on stderr."""
    print(f"usage: {COMMAND_HELP[cmd]}" if cmd else __doc__, file=sys.stderr)
    return 2


def on_signal(signum, _frame):
    """A signal (the device call's limit, Ctrl-C) ends the part in progress with its JSON saying so."""
    p = RUNNING
    if p is not None:
        if p.child is not None:
            signal_all([p.child.pid] + descendants(p.child.pid), signal.SIGTERM)
        p.finish("incomplete", f"killed by {signal.Signals(signum).name} during '{p.step_label}'")
        shutil.rmtree(p.tmp, ignore_errors=True)
    sys.stdout.flush()
    os._exit(128 + signum)


def cmd_pack(args):
    tcnn_bin, rest = split_tcnn(args)
    if len(rest) > 1 or any(a.startswith("-") for a in rest):
        return usage("pack")
    out = rest[0] if rest else os.environ.get("REDRAW_GPU_PACK", ".gpu-pack")
    build = os.environ.get("REDRAW_GPU_BUILD", "build-gpu")
    problem = pack_folder_problem(out, build)
    if problem:
        print(f"gpu_check pack: {problem}")
        return 2
    if tcnn_bin and not (os.path.isfile(tcnn_bin) and os.access(tcnn_bin, os.X_OK)):
        print(f"gpu_check pack: --tcnn-bin {tcnn_bin} is not an executable file")
        return 1
    if not shutil.which("nvcc"):
        print("gpu_check pack: no nvcc (install the CUDA toolkit)")
        return 1
    subprocess.run(["bash", "scripts/install_deps.sh"], stdout=subprocess.DEVNULL)
    if not build_for_gpu(build) or not pack_from_build(build, out, tcnn_bin):
        return 1
    return pack_summary(out, tcnn_bin, list(PARTS))


def cmd_pack_from_build(args):
    tcnn, folders = split_tcnn(args)
    if len(folders) != 2 or any(a.startswith("-") for a in folders):
        return usage("pack-from-build")
    problem = pack_folder_problem(folders[1], folders[0])
    if problem:
        print(f"gpu_check pack: {problem}")
        return 2
    return 0 if pack_from_build(folders[0], folders[1], tcnn) else 1


def cmd_list(parts):
    parts = parts or list(PARTS)
    if unknown(parts):
        return 2
    for name in parts:
        secs, steps = walk(name)
        print(f"{name}: {secs} s of timeouts (limit {PARTS[name][1]})")
        for label, s in steps:
            print(f"  {label:46} {s:4d} s")
    return 0


def end_all(dev, parts, status, why):
    """Every part in PARTS ends STATUS with WHY: "failed" (no pack: a visit without it proves
    nothing), exit 1; "skipped" (no device or cuBLAS: a machine without a GPU), exit 0."""
    for name in parts:
        p = new_part(name, dev)
        p.finish(status, why)
        shutil.rmtree(p.tmp, ignore_errors=True)
    print(f"{status.upper()}: {why}")
    return dev.overall


def over_one_call(parts):
    """'' when PARTS fit one device call (or REDRAW_GPU_LONG=1), else why not."""
    seconds = {name: walk(name)[0] for name in parts}
    total = sum(seconds.values())
    over = [name for name in parts if seconds[name] > PARTS[name][1]]
    if (total > PART_LIMIT or over) and not long_allowed():
        return (f"gpu_check: {' '.join(parts)} take {total} s of timeouts, over one call's {PART_LIMIT} s "
                f"(quick's {QUICK_LIMIT} s): run one part per call (REDRAW_GPU_LONG=1 runs them anyway)")
    return ""


def cmd_run(parts):
    global RUNNING
    if not parts:
        return usage("run")
    dev = Device()
    if parts[0] == "all":
        parts = list(PARTS)
    if unknown(parts, " all"):
        return 2
    os.makedirs(dev.results, exist_ok=True)
    why = dev.pack_problem()
    if why:
        return end_all(dev, parts, "failed", why)
    why = dev.ready()
    if why:
        return end_all(dev, parts, "skipped", why)
    why = over_one_call(parts)
    if why:
        print(why)
        return 2
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout
    with open(os.path.join(dev.results, "device.txt"), "w") as f:
        f.write(smi)
    dev.card = smi.split(",")[0].strip()
    print(smi, end="")
    print(f"cuBLAS from {dev.cublas}; pack {read(os.path.join(dev.pack_abs, 'REVISION')).strip()}", flush=True)
    for name in parts:
        print(f"==== {name} ====", flush=True)
        p = new_part(name, dev)
        RUNNING = p
        try:
            PARTS[name][0](p)
        finally:
            RUNNING = None
            shutil.rmtree(p.tmp, ignore_errors=True)
    return dev.overall


def cmd_floors(args):
    if not args:
        print("\n".join(floors.text_table()))
        return 0
    if args == ["--markdown"]:
        print("\n".join(floors.markdown_table()))
        return 0
    if len(args) != 2 or args[0] != "--into":
        return usage("floors")
    text = floors.with_table(read(args[1]))
    if text is None:
        print(f"gpu_check floors: {args[1]} has no table between the markers\n  {floors.README_BEGIN}\n  "
              f"{floors.README_END}")
        return 1
    with open(args[1], "w") as f:
        f.write(text)
    return 0


def main(argv):
    os.chdir(ROOT)
    sys.stdout.reconfigure(line_buffering=True)
    cmd, args = (argv[0], argv[1:]) if argv else ("", [])
    if cmd in ("-h", "--help", "help"):
        print(__doc__)
        return 0
    if cmd in COMMAND_HELP and any(a in ("-h", "--help") for a in args):
        print(f"usage: {COMMAND_HELP[cmd]}")
        return 0
    if os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        os.environ["PATH"] += ":/usr/local/cuda/bin"
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    commands = {"pack": cmd_pack, "pack-from-build": cmd_pack_from_build, "run": cmd_run, "list": cmd_list,
                "floors": cmd_floors,
                "unpack": lambda a: 0 if unpack(a[0] if a else os.environ.get("REDRAW_GPU_PACK", ".gpu-pack")) else 1,
                "report": lambda a: subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gpu_report.py"),
                                                    *a]).returncode}
    return commands[cmd](args) if cmd in commands else usage()
