"""Where a run reads and writes on the GPU machine: the pack, the results folder, cuBLAS, the card."""
import glob
import os
import shutil
import site
import subprocess

from .common import ROOT
from .packing import unpack


class Device:
    """Where a run reads and writes: the pack, the results folder, cuBLAS, the card's name, and the
    program's exit code so far."""

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

    def pack_problem(self):
        """'' once the pack is unpacked, else why not (no pack carried, or it did not unpack)."""
        if unpack(self.pack_abs):
            return ""
        if os.path.isfile(os.path.join(self.pack_abs, "pack.tar.xz")):
            return f"the pack at {self.pack} did not unpack (pack.tar.xz damaged or cut short?)"
        return f"no pack at {self.pack} (run 'scripts/gpu_check.py pack' on the build machine and carry it)"

    def ready(self):
        """'' when a device can run the parts (after pack_problem), else why not."""
        smi = shutil.which("nvidia-smi")
        if not smi or subprocess.run([smi, "-L"], capture_output=True).returncode != 0:
            return "no CUDA device (nvidia-smi finds none)"
        if not self.find_cublas():
            return "cuBLAS 13 not found (toolkit or PyTorch wheel)"
        return ""
