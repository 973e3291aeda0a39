"""What the GPU check's repository holds: no folder of the development machine in the program or
the report, bench/torch_reference.py resolving instant's grid as the engine does (no PyTorch
needed; the numbers are tests/engine/core/test_hash_grid_summary.cpp's, worked out by hand
there), and no recipe for another project's code: tiny-cuda-nn's benchmark is built by hand,
elsewhere."""
import glob
import math
import os
import subprocess
import sys
import unittest

from support import ROOT

sys.path.insert(0, os.path.join(ROOT, "bench"))
import torch_reference  # noqa: E402  (standard library only at import)

USER_GRID = {"sizing": "image", "levels": 16, "dense_levels": 15, "features_per_level": 2, "log2_hashmap_size": 18,
             "base_resolution": 16, "finest_resolution": 512, "per_level_scale": 2 ** (5 / 15), "entries": 710639}
PRESET_GRID = {"sizing": "preset", "levels": 16, "dense_levels": 8, "features_per_level": 2, "log2_hashmap_size": 17,
               "base_resolution": 16, "finest_resolution": 7006, "per_level_scale": 1.5, "entries": 1184057}


def in_git():
    proc = subprocess.run(["git", "-C", ROOT, "rev-parse", "--is-inside-work-tree"], capture_output=True)
    return proc.returncode == 0


class Sources(unittest.TestCase):
    def test_no_folder_of_the_development_machine_by_default(self):
        files = [os.path.join(ROOT, "bench", "gpu_report.py"), os.path.join(ROOT, "scripts", "gpu_check.py"),
                 os.path.join(ROOT, "scripts", "gpu_check.sh")] + glob.glob(os.path.join(ROOT, "scripts", "gpu_check",
                                                                                          "*.py"))
        self.assertGreater(len(files), 10)
        for path in files:
            with open(path) as f:
                self.assertNotIn("/work/", f.read(), path)


class Grids(unittest.TestCase):
    def test_torch_reference_resolves_instant_at_512_as_a_users_run(self):
        g = torch_reference.resolve_grid(torch_reference.load_preset("instant"), 512, 512)[0]
        self.assertEqual((g["log2_hashmap_size"], g["dense_levels"], g["finest_resolution"], g["entries"]),
                         (18, 15, 512, 710639))

    def test_and_takes_a_grid_given_whole(self):
        preset = torch_reference.use_grid(torch_reference.load_preset("instant"), PRESET_GRID)
        self.assertEqual(torch_reference.resolve_grid(preset, 512, 512)[0], PRESET_GRID)

    def test_and_refuses_one_it_cannot_reproduce_exit_2(self):
        bad = dict(USER_GRID, dense_levels=16)
        code = ("import sys; sys.path.insert(0, 'bench'); import torch_reference as t; "
                f"t.use_grid(t.load_preset('instant'), {bad!r})")
        proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True)
        self.assertEqual(proc.returncode, 2)


def preset_bounds(name, widths):
    p = torch_reference.load_preset(name)
    return [torch_reference.init_bounds(p, li, widths[li], widths[li + 1]) for li in range(len(widths) - 1)]


class Inits(unittest.TestCase):
    """The peer's initial bounds, against the papers' closed forms (engine/model_spec.cpp draws the same)."""

    def test_he_and_xavier_keep_their_bounds_past_the_first_layer(self):
        # fourier: He, U(+-sqrt(6/n)), zero biases, on every layer (no first-layer scale).
        self.assertEqual(preset_bounds("fourier", [512, 256, 3]), [(math.sqrt(6 / 512), 0.0), (math.sqrt(6 / 256), 0.0)])
        # classic: Xavier, its first layer at first_layer_scale 10 (weights and biases).
        self.assertEqual(preset_bounds("classic", [2, 64, 3]), [(10, 10), (math.sqrt(6 / 67), 0.0)])

    def test_siren_finer_and_linear(self):
        b = 1 / math.sqrt(256)
        self.assertEqual(preset_bounds("siren", [2, 256, 256]), [(0.5, 1 / math.sqrt(2)), (math.sqrt(6 / 256) / 30, b)])
        self.assertEqual(preset_bounds("finer", [2, 256, 256]), [(0.5, 1.0), (math.sqrt(6 / 256) / 30, b)])
        self.assertEqual(preset_bounds("gauss", [2, 256]), [(1 / math.sqrt(2),) * 2])
        self.assertEqual(preset_bounds("wire", [256, 1]), [(b, b)])

    def test_an_unknown_init_is_refused(self):
        p = dict(torch_reference.load_preset("siren"), init="Orthogonal")
        with self.assertRaises(ValueError):
            torch_reference.init_bounds(p, 0, 2, 256)


def have_torch():
    try:
        import torch  # noqa: F401
        return True
    except ImportError:
        return False


@unittest.skipUnless(have_torch(), "PyTorch is not installed (Debian: python3-torch): the peer's CPU run is not checked")
class PeerOnCpu(unittest.TestCase):
    def test_activations_and_their_derivatives_match_the_engines_closed_forms(self):
        import torch
        w, s = 20.0, 10.0
        for z in (-0.31, -0.02, 0.0, 0.07, 0.45):
            x = torch.tensor(z, dtype=torch.float64, requires_grad=True)
            forms = {  # engine/activation_math.h: value and derivative
                "finer": (math.sin(w * (abs(z) + 1) * z), w * (2 * abs(z) + 1) * math.cos(w * (abs(z) + 1) * z)),
                "gauss": (math.exp(-(s * z) ** 2), -2 * s * s * z * math.exp(-(s * z) ** 2)),
                "gabor": (math.cos(w * z) * math.exp(-(s * z) ** 2),
                          -math.exp(-(s * z) ** 2) * (w * math.sin(w * z) + 2 * s * s * z * math.cos(w * z))),
            }
            for name, (value, slope) in forms.items():
                y = torch_reference.activation(torch, name, w, s)(x)
                (g,) = torch.autograd.grad(y, x)
                self.assertAlmostEqual(float(y), value, places=12, msg=f"{name}({z})")
                self.assertAlmostEqual(float(g), slope, places=9, msg=f"{name}'({z})")

    def peer(self, *args):
        """bench/torch_reference.py on the CPU in its own process (it sets the BLAS's thread variables)."""
        cmd = [sys.executable, os.path.join(ROOT, "bench", "torch_reference.py"), "--device", "cpu", "--threads", "1",
               "--modes", "eager", "--sizes", "16", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=600)

    def test_every_network_preset_trains_on_the_cpu(self):
        import json
        import tempfile
        presets = "classic,classic-sgd,siren,finer,gauss,wire,fourier,instant"
        losses = {}
        with tempfile.TemporaryDirectory() as tmp:
            for steps in (1, 40):
                out = os.path.join(tmp, f"{steps}.json")
                proc = self.peer("--presets", presets, "--steps", str(steps), "--json", out)
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
                with open(out) as f:
                    losses[steps] = {r["preset"]: r["final_loss"] for r in json.load(f)}
        self.assertEqual(sorted(losses[40]), sorted(presets.split(",")))
        for name, loss in losses[40].items():
            self.assertLess(loss, losses[1][name], name)

    def test_gaussians_have_no_peer_and_say_so(self):
        proc = self.peer("--presets", "gaussians", "--steps", "1")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("no PyTorch peer for the Gaussians encoding", proc.stdout)

@unittest.skipUnless(in_git(), "no git checkout (the recipe check reads the tracked files)")
class NoTinyCudaNn(unittest.TestCase):
    def test_no_tracked_file_builds_or_patches_tiny_cuda_nn(self):
        # Its CMake switches, its benchmark target, a script named for it (spelled in pieces, so this
        # file is not one of them).
        pattern = "|".join(("-D" + "TCNN_", "TCNN" + "_BUILD_", "--target " + "bench_image_ours", "build_" + "tcnn"))
        proc = subprocess.run(["git", "-C", ROOT, "grep", "-lIE", "-e", pattern], capture_output=True, text=True)
        self.assertEqual((proc.returncode, proc.stdout), (1, ""), "files with a tiny-cuda-nn build recipe")

    def test_no_tracked_file_is_its_code_or_a_binary_of_it(self):
        files = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True, check=True).stdout
        self.assertGreater(len(files.splitlines()), 100)
        for path in files.splitlines():
            low = path.lower()
            parts = low.split("/")[:-1]
            self.assertFalse(any(p.startswith(("tiny-cuda-nn", "tcnn")) for p in parts), path)
            self.assertFalse("bench_image_ours" in low or low.endswith("tcnn_image_bench"), path)


if __name__ == "__main__":
    unittest.main()
