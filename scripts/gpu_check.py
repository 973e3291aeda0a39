#!/usr/bin/env python3
"""Proves (or disproves) every GPU claim of Redraw in a few fixed commands on a bare GPU machine
(CUDA driver, cuBLAS, cmake, Python 3 and PyTorch, but no package registry and no build dependencies).

  scripts/gpu_check.py pack [--tcnn-bin PATH] [DIR]
                                      here: builds for sm_90 without the GUI and packs the binaries,
                                      the libraries they need and the test images into DIR (default
                                      .gpu-pack, git-ignored), then prints the device calls to make;
                                      --tcnn-bin adds tiny-cuda-nn's image benchmark built elsewhere.
                                      DIR must be absent, empty or an earlier pack (it holds the
                                      GPU_PACK file pack writes): anything else is refused, untouched
  scripts/gpu_check.py run PART       there: one part per device call (see list)
  scripts/gpu_check.py list [PART...] anywhere: each part's steps and their timeouts, added up by
                                      walking the part without running anything
  scripts/gpu_check.py report [DIR...]
                                      here: one table from the results of every call (default:
                                      $REDRAW_GPU_RESULTS, else .gpu-results/)
Every command answers -h or --help (its usage, exit 0) without doing anything else.
scripts/gpu_check.sh runs this program with the same arguments.

Parts: quick (first: the most in one call), tests, sanitize, sanitize-parity, bench, accuracy,
interop, torch, instant, instant-torch, profile (Nsight Compute's limiters for the kernels of
instant's step), fullres (100 MP at full resolution against 1 MP), cpu-threads (every preset's CPU
steps/s at 1, 2, 4, 8 and 16 threads; 16 threads at least 8x one for instant and fourier). A lease
is short (15 minutes of device time, the start included): run quick first, then the others as time
allows.
quick: redraw_cuda_tests; memcheck and racecheck on the fused MLP and hash-grid cases; instant's
samples/s (default kernels, the grid a user's 512x512 run trains) beside tiny-cuda-nn's image
benchmark (when packed) and the PyTorch hash grid (fp16, eager and compiled), both given that same
grid; the shared-dense backward against the default on that grid and on the preset's unsized one;
interop at 1024x1024; a short fullres run. It leaves 3 files in $OUT.
The timeouts inside any part, quick included, add up to at most 480 s, so a part fits one device command
(600 s, unpacking included); `run` refuses parts whose timeouts add up to more (REDRAW_GPU_LONG=1
allows it on a machine without that limit; `all` needs it).
Every part with a figure checks it against its floor (FLOORS, at the top of this program) and says
"failed" with the figure when it misses. A part says "ok" only when every one of its checks was
measured: a check skipped (no tiny-cuda-nn binary, compute-sanitizer, PyTorch or EGL) or a floor
only reported (the H100's on another card) ends it "incomplete", its reason naming what was not
measured.
`run` writes PART.json (machine-readable, "status": ok | failed | skipped | incomplete, the reason,
the steps finished and the floors checked) and PART.log into $OUT when set, else .gpu-results/.
PART.json is rewritten before every step with what the finished steps measured, so a part killed
at the command's limit still leaves its JSON ("incomplete", naming the step it stopped in).
Library paths are set only for Redraw's own processes (PyTorch keeps its own). cuBLAS is found in
the machine's toolkit or PyTorch's wheels. A part that finds no device writes "skipped" with the
reason and exits 0; a part that fails says which check failed and the program exits 1; else a part
that ended incomplete makes it exit 3.
Environment: REDRAW_GPU_PACK (the pack folder), REDRAW_CUDA_ARCHS (the pack's architectures,
default 90), REDRAW_GPU_BUILD (its build folder, default build-gpu), REDRAW_GPU_STEPS (bench
steps, default 200), REDRAW_GPU_RESULTS (report's folders, ':'-separated), REDRAW_CUBLAS_DIR
(cuBLAS 13's folder, when it is neither in /usr/local/cuda nor in PyTorch's wheels),
REDRAW_GPU_LONG=1 (no per-call limit).
tiny-cuda-nn: --tcnn-bin takes the binary of its benchmarks/image/bench_ours.cu (bench_image_ours),
run as `BIN IMAGE CONFIG` with the instant configuration on the grid cuda_bench recorded in the same
call (tcnn_config below; the PyTorch peer gets that grid too, --grid-from). The step reads its
output and ends it once batch 2^18's training throughput is printed, which must come within the
step's timeout (`list quick`). This repository holds no tiny-cuda-nn code and no recipe to build it:
the binary is built by hand elsewhere and travels in the pack only.
"""
import csv
import glob
import json
import math
import os
import re
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from typing import NamedTuple, Optional


class Floor(NamedTuple):
    op: str  # ">=" or "<="
    value: float
    unit: str  # how the figure prints: "samples/s", "x", "ms" or "share"
    card: Optional[str]  # checked only on this card (its name in nvidia-smi's), else on any
    what: str


# The floors every part checks its figures against (a figure that misses one fails its part).
FLOORS = {
    "instant_samples_per_s": Floor(">=", 3.0e8, "samples/s", "H100",
                                   "instant's training samples/s at batch 2^18, default kernels, precision auto "
                                   "(on other cards the figure and its share of this floor are reported)"),
    "instant_over_tcnn": Floor(">=", 1.0, "x", None,
                               "instant's samples/s over tiny-cuda-nn's on the same configuration, same call"),
    "instant_over_torch": Floor(">=", 1.0, "x", None,
                                "instant's samples/s over the fastest PyTorch hash grid's, same call"),
    "interop_copy_upload_ms": Floor("<=", 1.0, "ms", None,
                                    "CUDA-GL copy + texture upload per 1024x1024 frame (0.64 ms on an H100)"),
    "fullres_share": Floor(">=", 0.80, "share", None, "instant's steps/s at 100 MP over its steps/s at 1 MP"),
    "cpu_threads_instant": Floor(">=", 8.0, "x", None,
                                 "instant's CPU steps/s at 16 threads over 1 thread (256x256, its CPU batch of 2^14)"),
    "cpu_threads_fourier": Floor(">=", 8.0, "x", None,
                                 "fourier's CPU steps/s at 16 threads over 1 thread (256x256, full batch)"),
}
CPU_THREADS = (1, 2, 4, 8, 16)  # the cpu-threads part's team sizes
CPU_THREAD_STEPS = {1: 120, 2: 80, 4: 60, 8: 50, 16: 50}  # seconds: every preset at that count

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PART_LIMIT = 480  # seconds: the timeouts inside one part (and one call) add up to at most this
QUICK_LIMIT = 480  # seconds: quick's, as every part's, leaving time to unpack and to write back within a 600 s call
PACK_BINARIES = ("redraw", "libredraw_cuda.so", "redraw_tests", "redraw_cuda_tests", "cuda_bench", "cpu_bench",
                 "psnr_bench", "redraw_interop_check", "decode_bench")
PACK_LIMIT_MIB = 60
# Libraries the GPU machine provides itself: glibc, the driver (libcuda, libnvidia-*, the EGL vendor
# library) and cuBLAS (its toolkit or PyTorch's wheel has the one matching its driver).
PACK_SKIP_LIBS = re.compile(r"^(libc|libm|libmvec|libdl|librt|libpthread|libresolv)\.so|^ld-linux|"
                            r"^libcuda\.so|^libcublas|^libnvidia|^libEGL_nvidia|^libcudart")
PACK_MARKER = "GPU_PACK"  # pack writes it into its folder; a later pack replaces only a folder holding it
TCNN_BIN = "tcnn_image_bench"  # tiny-cuda-nn's image benchmark in the pack's bin/
TCNN_BATCH = 1 << 18
DEFAULT_BACKWARD = "per-sample"  # the hash-grid backward the CUDA backend runs by default (cuda/hash_grid_choice.h)
AB_BACKWARD = "shared-dense"  # the opt-in backward quick times against it, on a user's grid and the preset's
GRID_KEYS = ("levels", "dense_levels", "features_per_level", "log2_hashmap_size", "base_resolution",
             "finest_resolution", "entries")  # two grids are alike when these are equal


def tcnn_config(grid):
    """instant's network in tiny-cuda-nn's terms on GRID, the grid cuda_bench recorded for its run
    ("grid" in its JSON: on a 512x512 image, 16 levels x 2 features, 2^18 rows per hashed level, base
    16 to a finest 512 at scale 32^(1/15), the first 15 levels dense), 2 ReLU layers of 64, sigmoid
    output, MSE, Adam. tiny-cuda-nn gets the same levels, features, table size, base and scale; it
    counts base_resolution in vertices (level l has ceil(base * scale^l - 1) + 1 per side, Redraw's
    floor(base * scale^l) + 1) and picks dense levels by its own rule, so its levels hold up to one
    vertex per side fewer: like grids, not bit-identical ones. It draws its batch of 2^18 from
    camera.png (512x512)."""
    return {
        "loss": {"otype": "L2"},
        "optimizer": {"otype": "Adam", "learning_rate": 1e-2, "beta1": 0.9, "beta2": 0.99, "epsilon": 1e-15,
                      "l2_reg": 0.0},
        "encoding": {"otype": "HashGrid", "n_levels": grid["levels"],
                     "n_features_per_level": grid["features_per_level"],
                     "log2_hashmap_size": grid["log2_hashmap_size"], "base_resolution": grid["base_resolution"],
                     "per_level_scale": grid["per_level_scale"]},
        "network": {"otype": "FullyFusedMLP", "activation": "ReLU", "output_activation": "Sigmoid", "n_neurons": 64,
                    "n_hidden_layers": 2},
    }


def user_grid(size=512):
    """instant's grid on a size x size image as a user's run resolves it (bench/torch_reference.py's
    resolve_grid, the engine's rule in Python), for when cuda_bench recorded none."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import torch_reference  # standard library only at import
    return torch_reference.resolve_grid(torch_reference.load_preset("instant"), size, size)[0]


def unlike_grids(a, b):
    """The GRID_KEYS in which grids A and B differ ([] when either is unknown)."""
    if not a or not b:
        return []
    return [k for k in GRID_KEYS if a.get(k) != b.get(k)]


def grid_text(g):
    return (f"{g['levels']} levels ({g['dense_levels']} dense), 2^{g['log2_hashmap_size']}, scale "
            f"{g['per_level_scale']:.4f}, {g['entries']} rows") if g else "unknown grid"
QUICK_SANITIZE_CASES = "cuda sanitize: fused MLP*,cuda sanitize: hash grid*"  # tests/cuda/test_cuda_sanitize.cpp
PARITY_CASES = ("cuda parity: encode*,cuda parity: predict, every*,cuda parity: loss and gradients*,"
                "cuda parity: gradients over*,cuda parity: optimizer*,cuda parity: bound state*,"
                "cuda parity: rendering*,cuda: graph replay*,cuda: errors*")


def long_allowed():
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


def fmt_figure(value, unit):
    if unit == "samples/s":
        mantissa, exponent = f"{value:.2e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "ms":
        return f"{value:.3f} ms"
    return f"{value:.2f}"


# ---- pack (build machine) ------------------------------------------------------------------

def inside(path, folder):
    """True when PATH is FOLDER or lies under it (both resolved, links followed)."""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([path, folder]) == folder


def pack_folder_problem(out, build=None):
    """'' when OUT may receive a pack, else why not. A pack replaces its folder whole, so OUT must be
    absent, an empty folder, or a folder an earlier pack made (it holds PACK_MARKER); a link, a file,
    any other folder with something in it, and a folder that holds BUILD or lies in it are refused."""
    if os.path.islink(out):
        return f"{out} is a link (give the folder itself)"
    if os.path.lexists(out) and not os.path.isdir(out):
        return f"{out} exists and is not a folder"
    if os.path.isdir(out) and os.listdir(out) and not os.path.isfile(os.path.join(out, PACK_MARKER)):
        return (f"{out} is not empty and is no pack folder (no {PACK_MARKER} file in it): refusing to "
                f"replace it; give a new or empty folder")
    if build and (inside(build, out) or inside(out, build)):
        return f"{out} and the build folder {build} overlap (the pack would delete the build)"
    return ""


def replace_pack_folder(out):
    """Empties OUT (after pack_folder_problem allowed it) and marks it as a pack folder."""
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    with open(os.path.join(out, PACK_MARKER), "w") as f:
        f.write("A folder made by scripts/gpu_check.py pack: the next pack into it replaces it whole.\n")


def pack_from_build(build, out, tcnn_bin=None):
    """Copies BUILD/bin's binaries (and tcnn_bin, when given) with their shared-library closure
    into OUT/pack.tar.xz, what travels to the GPU machine (`run` unpacks it there). True when
    every binary was there; False, with OUT untouched, when pack_folder_problem refuses OUT.
    xz runs at -3 on two threads; REDRAW_PACK_XZ_OPT replaces those options (tests/project/gpu_pack_contract.sh)."""
    problem = pack_folder_problem(out, build)
    if problem:
        print(f"gpu_check pack: {problem}")
        return False
    stage = tempfile.mkdtemp(prefix="gpu_pack-")
    complete = True
    try:
        for sub in ("bin", "lib", "samples"):
            os.makedirs(os.path.join(stage, sub))
        for b in PACK_BINARIES:
            if os.path.isfile(os.path.join(build, "bin", b)):
                shutil.copy2(os.path.join(build, "bin", b), os.path.join(stage, "bin"))
            else:
                print(f"gpu_check pack: {build}/bin/{b} was not built")
                complete = False
        if tcnn_bin:
            shutil.copy2(tcnn_bin, os.path.join(stage, "bin", TCNN_BIN))
        bins = sorted(glob.glob(os.path.join(stage, "bin", "*")))
        if shutil.which("strip"):
            subprocess.run(["strip", "--strip-unneeded", *bins], stderr=subprocess.DEVNULL)
        ldd = subprocess.run(["ldd", *bins], capture_output=True, text=True).stdout
        libs = sorted({(m[1], m[2]) for m in re.finditer(r"^\s*(\S+) => (/\S+)", ldd, re.M)})
        for name, path in libs:
            if not PACK_SKIP_LIBS.search(name):
                shutil.copy(os.path.realpath(path), os.path.join(stage, "lib", name))
        for png in glob.glob(os.path.join(ROOT, "tests", "data", "*.png")):
            shutil.copy(png, os.path.join(stage, "samples"))
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        with open(os.path.join(stage, "REVISION"), "w") as f:
            f.write((rev.stdout.strip() if rev.returncode == 0 else "unknown") + "\n")
        replace_pack_folder(out)
        files = sorted("./" + os.path.relpath(os.path.join(d, f), stage)
                       for d, _, names in os.walk(stage) for f in names)
        with open(os.path.join(out, "MANIFEST"), "w") as f:
            f.write("".join(line + "\n" for line in files))
        tar = subprocess.run(["tar", "-cJf", os.path.abspath(os.path.join(out, "pack.tar.xz")), "."], cwd=stage,
                             env={**os.environ, "XZ_OPT": os.environ.get("REDRAW_PACK_XZ_OPT", "-3 -T2")})
        complete &= tar.returncode == 0
        shutil.copy(os.path.join(stage, "REVISION"), out)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return complete


def unpack(folder):
    """Unpacks FOLDER/pack.tar.xz into FOLDER once (on the GPU machine). False when there is no pack."""
    if os.path.isdir(os.path.join(folder, "bin")):
        return True
    if not os.path.isfile(os.path.join(folder, "pack.tar.xz")):
        return False
    return subprocess.run(["tar", "-xJf", os.path.join(folder, "pack.tar.xz"), "-C", folder]).returncode == 0


def split_tcnn(args):
    """(the path after --tcnn-bin or None, the other arguments)."""
    if "--tcnn-bin" in args[:-1]:
        i = args.index("--tcnn-bin")
        return args[i + 1], args[:i] + args[i + 2:]
    return None, list(args)


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
    archs = os.environ.get("REDRAW_CUDA_ARCHS", "90")
    with open(build + ".log", "w") as log:
        if subprocess.run(["cmake", "-S", ".", "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DREDRAW_GUI=OFF",
                           "-DREDRAW_CUDA=ON", f"-DCMAKE_CUDA_ARCHITECTURES={archs}"],
                          stdout=log, stderr=subprocess.STDOUT).returncode != 0:
            show(read(build + ".log").splitlines()[-20:])
            return 1
        targets = ["redraw", "redraw_cuda_module", "redraw_tests", "redraw_cuda_tests", "cuda_bench", "cpu_bench",
                   "psnr_bench",
                   "redraw_interop_check", "decode_bench"]
        if subprocess.run(["cmake", "--build", build, f"-j{os.cpu_count()}", "--target", *targets],
                          stdout=log, stderr=subprocess.STDOUT).returncode != 0:
            show(grep(read(build + ".log"), "error", 20))
            return 1
    if not pack_from_build(build, out, tcnn_bin):
        return 1
    mib = math.ceil(sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out)) / 2**20)
    files = len(read(os.path.join(out, "MANIFEST")).splitlines())
    print(f"gpu_check pack: {out} is {mib} MiB compressed (limit {PACK_LIMIT_MIB}): {files} files")
    print(f"tiny-cuda-nn: {'packed from ' + tcnn_bin if tcnn_bin else 'not packed (quick skips it; --tcnn-bin PATH)'}")
    if mib > PACK_LIMIT_MIB:
        print(f"gpu_check pack: the pack is over {PACK_LIMIT_MIB} MiB")
        return 1
    print(f'\nDevice calls (the run tool, carry ["{out}"]), one part per call, quick first:')
    for name in PARTS:
        print(f"  python3 scripts/gpu_check.py run {name}")
    print("Then here:  python3 scripts/gpu_check.py report DIR...   (the folders the calls' files came back to)")
    return 0


# ---- the device and the part being run -----------------------------------------------------

class Device:
    """Where a run reads and writes: the pack, the results folder, cuBLAS, the card's name."""

    def __init__(self):
        self.pack = os.environ.get("REDRAW_GPU_PACK", ".gpu-pack")
        self.pack_abs = os.path.join(ROOT, self.pack)
        self.results = os.environ.get("OUT") or os.path.join(ROOT, ".gpu-results")
        self.cublas = ""
        self.card = ""
        self.overall = 0  # 1 once a part failed; else 3 once one ended incomplete

    def find_cublas(self):
        if os.environ.get("REDRAW_CUBLAS_DIR"):
            self.cublas = os.environ["REDRAW_CUBLAS_DIR"]
            return True
        dirs = ["/usr/local/cuda/lib64", "/usr/local/cuda/lib", "/usr/local/cuda/targets/x86_64-linux/lib"]
        # PyTorch's CUDA 13 wheels put cuBLAS under nvidia/cu13/lib (older ones under nvidia/cublas/lib).
        for r in site.getsitepackages() + [site.getusersitepackages()]:
            dirs += glob.glob(os.path.join(r, "nvidia/cu13/lib")) + glob.glob(os.path.join(r, "nvidia/cublas/lib"))
        for d in dirs:
            if glob.glob(os.path.join(d, "libcublas.so.13*")):
                self.cublas = d
                return True
        return False

    def ready(self):
        """'' when a device can run the parts, else why not."""
        if not unpack(self.pack_abs):
            return f"no pack at {self.pack} (run 'scripts/gpu_check.py pack' on the build machine and carry it)"
        smi = shutil.which("nvidia-smi")
        if not smi or subprocess.run([smi, "-L"], capture_output=True).returncode != 0:
            return "no CUDA device (nvidia-smi finds none)"
        if not self.find_cublas():
            return "cuBLAS 13 not found (toolkit or PyTorch wheel)"
        return ""


def descendants(pid):
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


class Part:
    """One part's bookkeeping: its scratch folder, log, timeouts so far, steps finished, the data
    its JSON carries and the floors it checked. In a dry run (list) steps only count."""

    def __init__(self, name, dev, dry=False):
        self.name, self.dev, self.dry = name, dev, dry
        self.limit = PARTS[name][1]
        self.tmp = tempfile.mkdtemp(prefix=f"gpu_check-{name}-")
        self.log = os.path.join(dev.results, name + ".log")
        self.spent = 0
        self.step_label = "(start)"
        self.done = []
        self.walk = []  # (label, seconds) of each step, in a dry run
        self.data = {}
        self.checks = []
        self.headers = []
        self.child = None
        self.collect = None  # gathers what the finished steps measured into data, before each step

    def path(self, *names):
        return os.path.join(self.tmp, *names)

    def bin(self, name):
        return os.path.join(self.dev.pack_abs, "bin", name)

    def sample(self, name):
        return os.path.join(self.dev.pack_abs, "samples", name + ".png")

    def rx(self, extra_lib=""):
        """The environment of Redraw's own processes: the pack's libraries, cuBLAS, the packed images."""
        lib = os.path.join(self.dev.pack_abs, "lib") + (":" + self.dev.cublas if self.dev.cublas else "") + extra_lib
        return {"LD_LIBRARY_PATH": lib, "REDRAW_ASSETS": os.path.join(ROOT, "assets"),
                "REDRAW_SAMPLE_DIR": os.path.join(self.dev.pack_abs, "samples"),
                "REDRAW_TEST_ASSET_DIR": os.path.join(ROOT, "assets")}

    def start_log(self):
        if not self.dry:
            open(self.log, "w").close()

    def say(self, text):
        if not self.dry:
            with open(self.log, "a") as f:
                f.write(text + "\n")

    def header(self, title):
        """Starts a section of the log; section(title) reads it back."""
        line = f"== {title} =="
        self.headers.append(line)
        self.say(line)

    def section(self, title):
        lines = read(self.log).splitlines()
        line = f"== {title} =="
        if line not in lines:
            return ""
        start = len(lines) - lines[::-1].index(line)
        end = next((i for i in range(start, len(lines)) if lines[i] in self.headers), len(lines))
        return "\n".join(lines[start:end]) + "\n"

    def append_file(self, path, tail=None):
        lines = read(path).splitlines()
        self.say("\n".join(lines[-tail:] if tail else lines))

    def step(self, label, secs, cmd, env=None, out=None, mode="a", cwd=None, stop_when=None):
        """Runs CMD under a timeout of SECS (its output to OUT, else the part's log) after writing the
        JSON as incomplete in LABEL; its exit code (124: timed out, 0 when stop_when() ended it).
        Refuses (125) a step that would take the part's timeouts past its limit."""
        self.spent += secs
        if self.spent > self.limit and not long_allowed():
            print(f"gpu_check {self.name}: '{label}' takes the part's timeouts to {self.spent} s (limit {self.limit})",
                  file=sys.stderr)
            return 125
        if self.dry:
            self.walk.append((label, secs))
            return 0
        self.progress(label)
        with open(out or self.log, mode) as f:
            try:
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                                        env={**os.environ, **(env or {})}, cwd=cwd)
            except OSError as e:
                f.write(f"gpu_check: cannot run {cmd[0]}: {e}\n")
                rc = 127
            else:
                self.child = proc
                rc = self.wait(proc, secs, stop_when)
                self.child = None
        self.done.append(label)
        return rc

    @staticmethod
    def wait(proc, secs, stop_when):
        deadline = time.monotonic() + secs
        while True:
            try:
                rc = proc.wait(timeout=0.2)
                return rc if rc >= 0 else 128 - rc
            except subprocess.TimeoutExpired:
                pass
            if stop_when is not None and stop_when():
                end_tree(proc)
                return 0
            if time.monotonic() >= deadline:
                return 124 if end_tree(proc) else 137

    def progress(self, label):
        self.step_label = label
        if self.collect:
            try:
                self.collect()
            except Exception as e:  # a half-written result must not stop the part
                self.data["collect_error"] = str(e)
        self.write_json("incomplete", f"stopped during '{label}' (killed at the device call's limit, or still running)")

    def write_json(self, status, reason):
        if self.dry:
            return
        out = os.path.join(self.dev.results, self.name + ".json")
        data = dict(self.data)
        data.update({"part": self.name, "status": status, "reason": reason, "steps_finished": list(self.done)})
        if self.checks:
            data["checks"] = self.checks
        with open(out + ".tmp", "w") as f:
            json.dump(data, f, indent=2)
        os.replace(out + ".tmp", out)  # a reader (or a kill) never sees half a file

    def finish(self, status, reason):
        """The part's final JSON and one line on stdout."""
        if self.dry:
            return
        self.write_json(status, reason)
        print(f"gpu_check {self.name}: {status}" + (f" ({reason})" if reason else ""), flush=True)
        if status == "failed":
            self.dev.overall = 1
        elif status == "incomplete" and self.dev.overall == 0:
            self.dev.overall = 3

    def check(self, name, status, detail, **figures):
        self.checks.append({"check": name, "status": status, "detail": detail, **figures})

    def judge(self, name, floor_key, figure, label="{}"):
        """Checks FIGURE against FLOORS[floor_key]: ok, failed, or reported (a floor of another card)."""
        fl = FLOORS[floor_key]
        shown = fmt_figure(figure, fl.unit)
        limit = fmt_figure(fl.value, fl.unit)
        met = figure >= fl.value if fl.op == ">=" else figure <= fl.value
        word = "floor" if fl.op == ">=" else "limit"
        if fl.card and fl.card not in self.dev.card:
            status = "reported"
            detail = (label.format(shown) + f" ({figure / fl.value:.2f} of the {fl.card} {word} {limit}; "
                      f"checked on an {fl.card} only, this is {self.dev.card or 'an unknown card'})")
        else:
            status = "ok" if met else "failed"
            detail = label.format(shown) + (f" ({word} {limit})" if met else
                                             f", {'under' if fl.op == '>=' else 'over'} the {word} {limit}")
        self.check(name, status, detail, figure=figure, floor=floor_key, floor_value=fl.value, what=fl.what)
        return status

    def conclude(self, elsewhere=""):
        """Finishes from the checks: failed when one failed; else incomplete when one was skipped (its
        tool, peer or device missing) or only reported (its floor belongs to another card), the
        reason naming each as not measured; ok only when every check measured and passed. ELSEWHERE,
        when given, ends the reason (floors this part leaves to other parts)."""
        failed = [c for c in self.checks if c["status"] == "failed"]
        unmeasured = [c for c in self.checks if c["status"] in ("skipped", "reported")]
        tail = f"; {elsewhere}" if elsewhere else ""
        if failed:
            self.finish("failed", "; ".join(f"{c['check']}: {c['detail']}" for c in failed) + tail)
        elif unmeasured:
            self.finish("incomplete", "not measured: " + "; ".join(
                f"{c['check']} ({c['status']}: {c['detail']})" for c in unmeasured) + tail)
        else:
            self.finish("ok", "; ".join(f"{c['check']}: {c['detail']}" for c in self.checks) + tail)


# ---- what the steps leave, read back ----------------------------------------------------------

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


def our_grid(p):
    """The grid our figure was measured on (cuda_bench's JSON), else a user's as resolved in Python."""
    row = our_row(collect_instant(p.tmp))
    return (row or {}).get("grid") or user_grid()


def parse_fullres(log):
    rows = []
    for m in re.finditer(r"^\| (\d+)(?: \(round (\d+)\))? \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| "
                         r"(-?[\d.]+) \| (\d+) \| ([^|]*) \| ([^|]*) \|$", log, re.M):
        rows.append({"side": int(m[1]), "round": int(m[2] or 1), "steps": int(m[3]), "train_s": float(m[4]),
                     "steps_per_s": float(m[5]), "wall_s": float(m[6]), "outside_s": float(m[7]),
                     "peak_rss_mib": int(m[8]), "psnr_db": m[9].strip(), "metrics_rows_pct": m[10].strip()})
    share = re.search(r"^steps/s at (\d+) as a share of (\d+): ([\d.]+)", log, re.M)
    res = {"rows": rows, "floor": FLOORS["fullres_share"].value}
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


def interop_env(p):
    """OpenGL through EGL on the NVIDIA device: glvnd's libEGL (packed) finds the driver's vendor
    library through its JSON file."""
    extra = "".join(":" + d for d in ("/usr/local/nvidia/lib64", "/usr/local/nvidia/lib") if os.path.isdir(d))
    env = p.rx(extra)
    vendor = "/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json"
    if os.path.isfile(vendor):
        env["__EGL_VENDOR_LIBRARY_FILENAMES"] = vendor
    return env


def interop_cmd(p):
    return [p.bin("redraw_interop_check"), "--size", "1024", "--frames", "60", "--image", p.sample("horse"),
            "--json", p.path("interop.json")]


def judge_interop(p, rc, text):
    """The interop check: skipped (77), failed, or its copy + upload time against the floor."""
    p.data.update(load_json(p.path("interop.json"), {}))
    if rc == 77:
        p.check("interop", "skipped", (grep(text, "SKIPPED", 1) or ["skipped"])[0])
    elif rc != 0:
        p.check("interop", "failed", (grep(text, "FAIL|error", 1) or [f"exit {rc}"])[0])
    elif p.data.get("interop", {}).get("copy_upload_ms") is None:
        p.check("interop", "failed", "no copy + upload time in its JSON")
    else:
        p.judge("interop", "interop_copy_upload_ms", p.data["interop"]["copy_upload_ms"],
                "copy + upload {} per 1024x1024 frame")


def torch_cmd(precision, modes, out, presets="instant", sizes="512", steps="200", grid_from=None):
    """bench/torch_reference.py, with the machine's own libraries (no LD_LIBRARY_PATH from the pack);
    GRID_FROM: a cuda_bench JSON whose grid it trains (when that file exists by then)."""
    cmd = ["python3", os.path.join(ROOT, "bench", "torch_reference.py"), "--presets", presets, "--sizes", sizes,
           "--steps", steps, "--precision", precision, "--modes", modes, "--json", out]
    return cmd + (["--grid-from", grid_from] if grid_from and os.path.isfile(grid_from) else [])


def judge_peers(p, name, floor_key, theirs, who, their_grid=None):
    """Our samples/s over THEIRS against the floor; 'who' names them. Failed, without a ratio, when
    THEIR_GRID (when known) is not the grid our figure was measured on."""
    mine = ours(p.data)
    mine_grid = (our_row(p.data) or {}).get("grid")
    if mine is None:
        p.check(name, "failed", "no Redraw figure to compare with (cuda_bench instant auto)")
    elif unlike_grids(mine_grid, their_grid):
        p.check(name, "failed", f"unlike grids, no ratio: ours {grid_text(mine_grid)}, {who} "
                                f"{grid_text(their_grid)} (differ in {', '.join(unlike_grids(mine_grid, their_grid))})")
    else:
        p.judge(name, floor_key, mine / theirs, f"instant {fmt_figure(mine, 'samples/s')} samples/s against {who} "
                                                f"{fmt_figure(theirs, 'samples/s')}: {{}}")


# ---- the parts -----------------------------------------------------------------------------

QUICK_TOOLS = {"memcheck": 40, "racecheck": 45}  # quick's compute-sanitizer tools and their timeouts
# The floors quick checks; the others (the CPU's thread scaling: 5 team sizes, over 5 minutes) are
# left to their own parts, and quick's reason names them.
QUICK_FLOORS = ("instant_samples_per_s", "instant_over_tcnn", "instant_over_torch", "interop_copy_upload_ms",
                "fullres_share")
FLOOR_PARTS = {"cpu_threads_instant": "cpu-threads", "cpu_threads_fourier": "cpu-threads"}


def floors_elsewhere():
    """The reason's last words: the floors of FLOORS quick does not check, and the parts that do."""
    left = [k for k in FLOORS if k not in QUICK_FLOORS]
    parts = sorted({FLOOR_PARTS.get(k, "?") for k in left})
    return f"not part of quick: {', '.join(left)} (run {', '.join(parts)})" if left else ""


def part_quick(p):
    """The most one call proves (QUICK_LIMIT): the CUDA tests, memcheck and racecheck on the fused
    MLP and hash-grid cases, instant's samples/s (default kernels, a user's grid) beside the PyTorch
    hash grid and tiny-cuda-nn (when packed) on that same grid, the per-sample and shared-dense
    backwards on a user's grid and the preset's unsized one, interop at 1024x1024, a short fullres
    run. All of it goes to quick.log and quick.json: with device.txt, 3 files in $OUT."""
    env = p.rx()
    p.start_log()
    sanitizer = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    has_sanitizer = p.dry or os.access(sanitizer, os.X_OK)
    tcnn = p.bin(TCNN_BIN)
    has_tcnn = p.dry or os.access(tcnn, os.X_OK)
    tools = QUICK_TOOLS
    rcs = {}  # step: its exit code
    tcnn_conf = {}  # the config tiny-cuda-nn was given, once written

    def collect():
        p.data.update(parse_tests(p.section("redraw_cuda_tests")))
        p.data["tools"] = {t: parse_sanitizer(p.section(t), rcs[t]) for t in tools if t in rcs}
        p.data.update(collect_instant(p.tmp))
        p.data["tcnn"] = {**parse_tcnn(p.section("tiny-cuda-nn")), "config": tcnn_conf.get("config")}
        p.data.update(parse_fullres(p.section("fullres")))
    p.collect = collect

    p.header("redraw_cuda_tests")
    rcs["tests"] = p.step("redraw_cuda_tests", 95, [p.bin("redraw_cuda_tests"), "--reporters=console",
                                                     "--duration=true"], env=env)
    p.say(f"rc {rcs['tests']}")
    for tool, secs in tools.items():
        if has_sanitizer:
            p.header(tool)
            rcs[tool] = p.step(f"{tool}: fused MLP and hash grid cases", secs,
                               [sanitizer, "--tool", tool, "--error-exitcode", "99", "--print-limit", "20",
                                p.bin("redraw_cuda_tests"), f"-tc={QUICK_SANITIZE_CASES}"], env=env)
            p.say(f"rc {rcs[tool]}")
    p.header("instant")
    # The default backward on a user's grid first (the figure the floors judge; the JSON keeps each
    # row as it comes), then the A/B: the opt-in backward, and both on the preset's unsized grid.
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
    if has_tcnn:
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
                             "--rounds", "1", "--keep", p.path("fullres")],
                            env={**env, "REDRAW_BUILD_DIR": p.dev.pack_abs})
    if p.dry:
        return
    collect()
    quick_checks(p, rcs)
    p.conclude(floors_elsewhere())
    for c in p.checks:
        print(f"  {c['check']:13} {c['status']:8} {c['detail']}")


def check_backward_ab(p, rc):
    """quick's A/B of the hash-grid backwards: each one's samples/s on a user's grid and on the
    preset's unsized one, the opt-in one's as a share of the default's (no floor: it says which to
    keep); failed when a row is missing (the opt-in kernel failed or the step ran out of time)."""
    rows = {((r.get("grid") or {}).get("sizing"), r.get("hash_grid_backward")): r for r in p.data["instant_cuda"]
            if r.get("hash_grid_backward") and r.get("precision") == "auto"}
    p.data["backward_ab"] = [{"grid": g, "backward": b, "samples_per_s": r["samples_per_s"], "grid_resolved": r["grid"]}
                             for (g, b), r in rows.items()]
    missing = [f"{b} on the {g} grid" for g in ("image", "preset") for b in (DEFAULT_BACKWARD, AB_BACKWARD)
               if (g, b) not in rows]
    if missing:
        p.check("backward A/B", "failed", f"no samples/s for {', '.join(missing)} (exit {rc}; see quick.log)")
        return
    share = {g: rows[(g, AB_BACKWARD)]["samples_per_s"] / rows[(g, DEFAULT_BACKWARD)]["samples_per_s"]
             for g in ("image", "preset")}
    p.check("backward A/B", "ok", f"{AB_BACKWARD} at {share['image']:.2f}x {DEFAULT_BACKWARD}'s samples/s on a user's "
                                  f"grid ({grid_text(rows[('image', AB_BACKWARD)]['grid'])}), {share['preset']:.2f}x "
                                  f"on the preset's ({grid_text(rows[('preset', AB_BACKWARD)]['grid'])})",
            shares=share)


def quick_checks(p, rcs):
    """quick's verdict, check by check, from what its steps left (RCS: each step's exit code)."""
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
    mine = ours(d)
    if mine is None:
        p.check("instant", "failed", f"cuda_bench instant auto gave no samples/s (exit {rcs['instant']})")
    else:
        p.judge("instant", "instant_samples_per_s", mine, "{} samples/s")
    check_backward_ab(p, rcs["instant"])
    judge_interop(p, rcs["interop"], p.section("interop"))
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
    if "share" not in d["fullres"]:
        p.check("fullres", "failed", f"the bench gave no share (exit {rcs['fullres']}; see quick.log)")
    else:
        p.judge("fullres", "fullres_share", d["fullres"]["share"], "100 MP at {} of 1 MP steps/s")


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


def collect_bench(tmp):
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


def part_accuracy(p):
    env = p.rx()
    p.start_log()

    def collect():
        rows = []
        for name, limit in (("a10.json", 10), ("a60.json", 60)):
            for r in (load_json(p.path(name)) or {}).get("accuracy", []):
                rows.append({**r, "time_limit_s": limit})
        p.data["accuracy"] = rows
    p.collect = collect
    p.say("== every preset, 10 s limit ==")
    if p.step("every preset, 10 s limit", 150,
              [p.bin("cuda_bench"), "--presets", "fourier,siren,classic", "--sizes", "200", "--steps", "20",
               "--accuracy", p.sample("horse"), "--time-limit", "10", "--json", p.path("a10.json")], env=env):
        p.say("FAILED: 10 s run")
    p.say("== classic as the original trained it (SGD, cosine over 800,000 steps), 60 s limit ==")
    if p.step("classic as the original, 60 s limit", 150,
              [p.bin("cuda_bench"), "--presets", "classic", "--sizes", "200", "--steps", "20", "--accuracy",
               p.sample("horse"), "--time-limit", "60", "--accuracy-steps", "800000", "--json", p.path("a60.json")],
              env=env):
        p.say("FAILED: 60 s run")
    if p.dry:
        return
    collect()
    log = read(p.log)
    if grep(log, "^FAILED"):
        p.finish("failed", "a run did not finish (see accuracy.log)")
    else:
        p.finish("ok", "horse 200x200 binary to 99% of pixels")
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


def sanitize_with(p, cases, seconds):
    """redraw_cuda_tests restricted to CASES under each compute-sanitizer tool (SECONDS: each
    tool's timeout); the JSON counts each tool's errors."""
    sanitizer = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
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
    instant_bench(p, "cuda_bench instant auto, shared-dense backward", 40, "cuda-auto-shared-dense.json",
                  env_extra={"REDRAW_HASH_GRID_BACKWARD": "shared-dense"})
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
    if rc == 0:
        p.finish("ok", f"{len(grep(log, 'Duration'))} kernels profiled (profile.log)")
    else:
        p.finish("failed", f"ncu exit {rc} (see profile.log)")


def part_fullres(p):
    """Full resolution on the GPU (the floor: a 100-megapixel image at full resolution trains
    `instant` at FLOORS' share of its steps/s at 1 megapixel): bench/full_res_bench.sh on chelsea
    tiled at its native scale into a 10000x10000 JPEG (decode_bench, from the pack), --max-side 1000
    against full resolution, 30 s each, the two sizes in turns twice (a slow spell then falls on both)."""
    p.start_log()
    p.collect = lambda: p.data.update(parse_fullres(read(p.log)))
    # full_res_bench finds redraw and decode_bench in the pack's bin/ and chelsea in its samples.
    rc = p.step("full resolution: 10000x10000 against 1000, instant, 2 x 2 x 30 s", 420,
                ["bash", os.path.join(ROOT, "bench", "full_res_bench.sh"), "--backend", "cuda", "--size", "10000x10000",
                 "--side", "1000", "--steps", "1000000", "--seconds", "30", "--rounds", "2", "--keep",
                 p.path("fullres")], env={**p.rx(), "REDRAW_BUILD_DIR": p.dev.pack_abs})
    if p.dry:
        return
    p.collect()
    print(read(p.log), end="")
    full = p.data["fullres"]
    if "share" not in full:
        p.finish("failed", f"the bench gave no share (exit {rc}; see fullres.log)")
        return
    status = p.judge("fullres", "fullres_share", full["share"], "100 MP at {} of 1 MP steps/s")
    p.finish("failed" if status == "failed" else "ok", p.checks[-1]["detail"])


def parse_cpu_threads(log):
    """bench/cpu_threads_bench.sh's lines, "cpu_threads: PRESET THREADS STEPS_PER_S", as
    {"cpu_threads": {preset: {threads: steps/s}}, "cores": N} (threads as strings, as JSON keeps
    them; N from cpu_bench's first line, "CPU backend: N CPU cores", None before it)."""
    rates = {}
    for m in re.finditer(r"^cpu_threads: (\S+) (\d+) ([\d.]+)$", log, re.M):
        rates.setdefault(m[1], {})[m[2]] = float(m[3])
    cores = re.search(r"^CPU backend: (\d+) CPU cores", log, re.M)
    return {"cpu_threads": rates, "cores": int(cores[1]) if cores else None}


def part_cpu_threads(p):
    """The CPU backend on the GPU machine's cores: every preset's steps/s at 1, 2, 4, 8 and 16
    threads (bench/cpu_threads_bench.sh with the pack's cpu_bench, 256x256, each preset's CPU
    batch), one step per count; the floors: 16 threads at least FLOORS' multiple of 1 thread for
    instant and fourier (skipped with the reason on fewer than 16 cores)."""
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


# ---- run and list --------------------------------------------------------------------------

RUNNING = None  # the Part being run, for the signal handler


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


def walk(name):
    """PART walked without running anything: its timeouts in all and its steps."""
    dev = Device()
    dev.results = tempfile.mkdtemp(prefix="gpu_check-dry-")
    p = Part(name, dev, dry=True)
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
    return p.spent, p.walk


def unknown(parts, extra=""):
    bad = [x for x in parts if x not in PARTS]
    if bad:
        print(f"gpu_check: unknown part '{bad[0]}' (known: {' '.join(PARTS)}{extra})")
    return bool(bad)


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
    why = dev.ready()
    if why:
        for name in parts:
            p = Part(name, dev)
            p.finish("skipped", why)
            shutil.rmtree(p.tmp, ignore_errors=True)
        print(f"SKIPPED: {why}")
        return 0
    seconds = {name: walk(name)[0] for name in parts}
    total = sum(seconds.values())
    over = [name for name in parts if seconds[name] > PARTS[name][1]]
    if (total > PART_LIMIT or over) and not long_allowed():
        print(f"gpu_check: {' '.join(parts)} take {total} s of timeouts, over one call's {PART_LIMIT} s "
              f"(quick's {QUICK_LIMIT} s): run one part per call (REDRAW_GPU_LONG=1 runs them anyway)")
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
        p = Part(name, dev)
        RUNNING = p
        try:
            PARTS[name][0](p)
        finally:
            RUNNING = None
            shutil.rmtree(p.tmp, ignore_errors=True)
    return dev.overall


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
}


def usage(cmd=None):
    """A usage error (exit 2): CMD's usage, else the whole help, on stderr."""
    print(f"usage: {COMMAND_HELP[cmd]}" if cmd else __doc__, file=sys.stderr)
    return 2


def wants_help(args):
    return any(a in ("-h", "--help") for a in args)


def main(argv):
    os.chdir(ROOT)
    sys.stdout.reconfigure(line_buffering=True)
    cmd, args = (argv[0], argv[1:]) if argv else ("", [])
    if cmd in ("-h", "--help", "help"):
        print(__doc__)
        return 0
    if cmd in COMMAND_HELP and wants_help(args):
        print(f"usage: {COMMAND_HELP[cmd]}")
        return 0
    if os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        os.environ["PATH"] += ":/usr/local/cuda/bin"
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if cmd == "pack":
        return cmd_pack(args)
    if cmd == "pack-from-build":
        tcnn, folders = split_tcnn(args)
        if len(folders) != 2 or any(a.startswith("-") for a in folders):
            return usage("pack-from-build")
        problem = pack_folder_problem(folders[1], folders[0])
        if problem:
            print(f"gpu_check pack: {problem}")
            return 2
        return 0 if pack_from_build(folders[0], folders[1], tcnn) else 1
    if cmd == "unpack":
        return 0 if unpack(args[0] if args else os.environ.get("REDRAW_GPU_PACK", ".gpu-pack")) else 1
    if cmd == "run":
        return cmd_run(args)
    if cmd == "list":
        return cmd_list(args)
    if cmd == "report":
        return subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gpu_report.py"), *args]).returncode
    return usage()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
