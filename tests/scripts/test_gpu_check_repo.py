"""What the GPU check's repository holds: no folder of the development machine in the program or
the report, bench/torch_reference.py resolving instant's grid as the engine does (no PyTorch
needed; the numbers are tests/engine/core/test_hash_grid_summary.cpp's, worked out by hand
there), and no recipe for another project's code: tiny-cuda-nn's benchmark is built by hand,
elsewhere."""
import glob
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
