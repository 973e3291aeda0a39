"""The pack (on the build machine): a build for the GPU machine's architecture, its binaries with
their shared-library closure and the test images in one pack.tar.xz that a device call carries;
`run` unpacks it there. A pack replaces its folder whole, so only a folder a pack made (it holds
PACK_MARKER), an empty one or a new one may receive it, and only once the new pack is complete
(an incomplete build leaves the earlier pack whole). `pack` counts what a device call carries: the
pack and the working tree together, within CARRY_LIMIT_MIB."""
import glob
import math
import os
import re
import shutil
import subprocess
import tempfile

from .common import ROOT, grep, read, show

PACK_BINARIES = ("redraw", "libredraw_cuda.so", "redraw_tests", "redraw_cuda_tests", "cuda_bench", "cpu_bench",
                 "psnr_bench", "redraw_interop_check", "decode_bench")
BUILD_TARGETS = ("redraw", "redraw_cuda_module", "redraw_tests", "redraw_cuda_tests", "cuda_bench", "cpu_bench",
                 "psnr_bench", "redraw_interop_check", "decode_bench")
PACK_LIMIT_MIB = 60
CARRY_LIMIT_MIB = 64  # what a device call carries: the working tree and the pack folder together
KODAK_IMAGE_BYTES = 822712  # the largest of the 24 Kodak PNGs (kodim13), for how many more still fit
# Libraries the GPU machine provides itself: glibc, the driver (libcuda, libnvidia-*, the EGL vendor
# library) and cuBLAS (its toolkit or PyTorch's wheel has the one matching its driver).
PACK_SKIP_LIBS = re.compile(r"^(libc|libm|libmvec|libdl|librt|libpthread|libresolv)\.so|^ld-linux|"
                            r"^libcuda\.so|^libcublas|^libnvidia|^libEGL_nvidia|^libcudart")
PACK_MARKER = "GPU_PACK"  # pack writes it into its folder; a later pack replaces only a folder holding it
TCNN_BIN = "tcnn_image_bench"  # tiny-cuda-nn's image benchmark in the pack's bin/


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


def put_pack_folder(new, out):
    """Renames the finished pack folder NEW over OUT (after pack_folder_problem allowed OUT): an
    earlier OUT is renamed aside first and removed once NEW has its name."""
    old = None
    if os.path.isdir(out):
        old = tempfile.mkdtemp(prefix=".gpu-pack-old-", dir=os.path.dirname(os.path.abspath(out)))
        os.rmdir(old)
        os.rename(out, old)
    os.rename(new, out)
    if old:
        shutil.rmtree(old, ignore_errors=True)


def stage_pack(build, stage, tcnn_bin=None):
    """Lays out in STAGE what travels: BUILD/bin's binaries (and TCNN_BIN, when given), stripped, the
    libraries they need that the GPU machine lacks, the test images and the revision. True when
    every binary was there."""
    complete = True
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
    return complete


def pack_from_build(build, out, tcnn_bin=None):
    """Copies BUILD/bin's binaries (and tcnn_bin, when given) with their shared-library closure
    into OUT/pack.tar.xz, what travels to the GPU machine (`run` unpacks it there). The pack is made
    in a new folder beside OUT and renamed over it only when complete (every binary there, tar
    done), so a failed or incomplete pack leaves an earlier one whole. True when it replaced OUT;
    False, with OUT untouched, otherwise (pack_folder_problem refusing OUT among the reasons).
    xz runs at -3 on two threads; REDRAW_PACK_XZ_OPT replaces those options (tests/project/gpu_pack_contract.sh)."""
    problem = pack_folder_problem(out, build)
    if problem:
        print(f"gpu_check pack: {problem}")
        return False
    stage = tempfile.mkdtemp(prefix="gpu_pack-")
    new = tempfile.mkdtemp(prefix=".gpu-pack-new-", dir=os.path.dirname(os.path.abspath(out)))
    os.chmod(new, 0o755)
    try:
        if not stage_pack(build, stage, tcnn_bin):
            print(f"gpu_check pack: the build is incomplete: {out} is left as it was")
            return False
        with open(os.path.join(new, PACK_MARKER), "w") as f:
            f.write("A folder made by scripts/gpu_check.py pack: the next pack into it replaces it whole.\n")
        files = sorted("./" + os.path.relpath(os.path.join(d, f), stage)
                       for d, _, names in os.walk(stage) for f in names)
        with open(os.path.join(new, "MANIFEST"), "w") as f:
            f.write("".join(line + "\n" for line in files))
        tar = subprocess.run(["tar", "-cJf", os.path.join(new, "pack.tar.xz"), "."], cwd=stage,
                             env={**os.environ, "XZ_OPT": os.environ.get("REDRAW_PACK_XZ_OPT", "-3 -T2")})
        if tar.returncode != 0:
            print(f"gpu_check pack: tar failed (exit {tar.returncode}): {out} is left as it was")
            return False
        shutil.copy(os.path.join(stage, "REVISION"), new)
        put_pack_folder(new, out)
        return True
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        shutil.rmtree(new, ignore_errors=True)


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


def build_for_gpu(build):
    """Configures and builds BUILD for the GPU machine (REDRAW_CUDA_ARCHS, default 90; no GUI), its
    output in BUILD.log. True when it built; else the log's tail or its errors are printed."""
    archs = os.environ.get("REDRAW_CUDA_ARCHS", "90")
    with open(build + ".log", "w") as log:
        if subprocess.run(["cmake", "-S", ".", "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DREDRAW_GUI=OFF",
                           "-DREDRAW_CUDA=ON", f"-DCMAKE_CUDA_ARCHITECTURES={archs}"],
                          stdout=log, stderr=subprocess.STDOUT).returncode != 0:
            show(read(build + ".log").splitlines()[-20:])
            return False
        if subprocess.run(["cmake", "--build", build, f"-j{os.cpu_count()}", "--target", *BUILD_TARGETS],
                          stdout=log, stderr=subprocess.STDOUT).returncode != 0:
            show(grep(read(build + ".log"), "error", 20))
            return False
    return True


def folder_bytes(folder):
    """The bytes of every file under FOLDER (links not followed)."""
    return sum(os.lstat(os.path.join(d, f)).st_size for d, _, names in os.walk(folder) for f in names)


def tree_bytes(root=ROOT):
    """The bytes of the working tree a device call carries beside the pack: tracked files and the
    untracked ones git does not ignore (None outside a git checkout)."""
    ls = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                        capture_output=True)
    if ls.returncode != 0:
        return None
    paths = {os.path.join(root, p) for p in ls.stdout.decode(errors="replace").split("\0") if p}
    return sum(os.lstat(p).st_size for p in paths if os.path.isfile(p) and not os.path.islink(p))


def carry_room(pack, tree):
    """(the lines saying what a device call carries, True when it fits CARRY_LIMIT_MIB): the pack
    folder's PACK bytes and the working tree's TREE bytes, the MiB left and how many Kodak images
    (KODAK_IMAGE_BYTES each) still fit in them."""
    if tree is None:
        return [f"gpu_check pack: no git checkout here: the working tree a device call carries beside the pack is "
                f"not counted (the limit is {CARRY_LIMIT_MIB} MiB for both)"], pack <= CARRY_LIMIT_MIB * 2**20
    left = CARRY_LIMIT_MIB * 2**20 - pack - tree
    lines = [f"gpu_check pack: a device call carries the pack ({pack / 2**20:.1f} MiB) and the working tree "
             f"({tree / 2**20:.1f} MiB): {(pack + tree) / 2**20:.1f} MiB of {CARRY_LIMIT_MIB}"]
    if left < 0:
        return lines + [f"gpu_check pack: {-left / 2**20:.1f} MiB over the carry limit"], False
    return lines + [f"  {left / 2**20:.1f} MiB left: room for {min(24, left // KODAK_IMAGE_BYTES)} Kodak images "
                    f"(up to {KODAK_IMAGE_BYTES / 2**20:.2f} MiB each) in {{pack}}/kodak"], True


def pack_summary(out, tcnn_bin, part_names, tree=None):
    """Prints the pack's size, what a device call carries with it (the working tree's TREE bytes,
    counted when None) and the device calls to make (one per part in PART_NAMES); 1 when the pack
    is over PACK_LIMIT_MIB or the pack and the tree over CARRY_LIMIT_MIB, else 0."""
    pack = folder_bytes(out)
    mib = math.ceil(pack / 2**20)
    files = len(read(os.path.join(out, "MANIFEST")).splitlines())
    print(f"gpu_check pack: {out} is {mib} MiB compressed (limit {PACK_LIMIT_MIB}): {files} files")
    print(f"tiny-cuda-nn: {'packed from ' + tcnn_bin if tcnn_bin else 'not packed (quick skips it; --tcnn-bin PATH)'}")
    lines, fits = carry_room(pack, tree_bytes() if tree is None else tree)
    print("\n".join(lines).replace("{pack}", out))
    if mib > PACK_LIMIT_MIB or not fits:
        print(f"gpu_check pack: the pack is over {PACK_LIMIT_MIB} MiB" if mib > PACK_LIMIT_MIB else
              f"gpu_check pack: the pack and the working tree are over a device call's {CARRY_LIMIT_MIB} MiB")
        return 1
    print(f'\nDevice calls (the run tool, carry ["{out}"]), one part per call, quick first:')
    for name in part_names:
        print(f"  python3 scripts/gpu_check.py run {name}")
    print("Then here:  python3 scripts/gpu_check.py report DIR...   (the folders the calls' files came back to)")
    return 0
