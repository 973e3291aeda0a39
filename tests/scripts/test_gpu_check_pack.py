"""scripts/gpu_check's pack on a machine without a GPU, from a fake build (stub binaries): every
binary packed (tiny-cuda-nn's benchmark under bin/tcnn_image_bench), a pack replacing only a folder
a pack made, `pack` in a stand-in checkout refusing its own folders before building anything, and
every command answering --help without doing anything else."""
import contextlib
import io
import os
import shutil
import subprocess
import tempfile
import unittest

from fake_device import write_tool
from support import ROOT, program
from gpu_check import packing
from gpu_check.packing import PACK_BINARIES, pack_folder_problem

COMMANDS = ("pack", "pack-from-build", "unpack", "run", "list", "report", "floors")


class PackFromBuild(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.build = os.path.join(self.tmp, "fake-build")
        os.makedirs(os.path.join(self.build, "bin"))
        for b in PACK_BINARIES + ("bench_image_ours",):
            write_tool(os.path.join(self.build, "bin", b), f"#!/bin/sh\necho {b}\n")

    def pack(self, out, *extra):
        return program("pack-from-build", self.build, os.path.join(self.tmp, out), *extra)

    def test_tcnn_bin_travels_under_bin_tcnn_image_bench_and_unpacks(self):
        rc, out = self.pack("fake-pack", "--tcnn-bin", os.path.join(self.build, "bin", "bench_image_ours"))
        self.assertEqual(rc, 0, out)
        pack = os.path.join(self.tmp, "fake-pack")
        with open(os.path.join(pack, "MANIFEST")) as f:
            manifest = f.read().splitlines()
        self.assertIn("./bin/tcnn_image_bench", manifest)
        self.assertIn("./samples/horse.png", manifest)
        self.assertEqual(program("unpack", pack)[0], 0)
        ran = subprocess.run([os.path.join(pack, "bin", "tcnn_image_bench")], capture_output=True, text=True)
        self.assertEqual(ran.stdout, "bench_image_ours\n")

    def test_a_non_empty_folder_no_pack_made_is_refused_exit_2_and_left_whole(self):
        folder = os.path.join(self.tmp, "not-a-pack")
        os.makedirs(folder)
        with open(os.path.join(folder, "keep.txt"), "w") as f:
            f.write("keep\n")
        rc, out = self.pack("not-a-pack")
        self.assertEqual(rc, 2)
        self.assertIn("not-a-pack is not empty and is no pack folder", out)
        self.assertEqual(os.listdir(folder), ["keep.txt"])

    def test_its_own_build_folder_is_refused_exit_2_and_the_build_left_whole(self):
        rc, out = self.pack("fake-build")
        self.assertEqual(rc, 2, out)
        self.assertTrue(os.access(os.path.join(self.build, "bin", "redraw"), os.X_OK))

    def test_an_empty_folder_takes_a_pack_and_an_earlier_pack_is_replaced_whole(self):
        os.makedirs(os.path.join(self.tmp, "empty"))
        self.assertEqual(self.pack("empty")[0], 0)
        self.assertTrue(os.path.isfile(os.path.join(self.tmp, "empty", "GPU_PACK")))
        self.assertEqual(program("unpack", os.path.join(self.tmp, "empty"))[0], 0)
        self.assertTrue(os.path.isdir(os.path.join(self.tmp, "empty", "bin")))
        self.assertEqual(self.pack("empty")[0], 0)
        self.assertTrue(os.path.isfile(os.path.join(self.tmp, "empty", "MANIFEST")))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "empty", "bin")))

    def test_a_build_without_cuda_bench_makes_no_pack_exit_1_naming_it(self):
        os.remove(os.path.join(self.build, "bin", "cuda_bench"))
        rc, out = self.pack("fake-pack2")
        self.assertEqual(rc, 1)
        self.assertIn("cuda_bench was not built", out)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "fake-pack2")))

    def test_an_incomplete_build_leaves_the_earlier_pack_whole(self):
        good = os.path.join(self.tmp, "good")
        self.assertEqual(self.pack("good")[0], 0)
        with open(os.path.join(good, "pack.tar.xz"), "rb") as f:
            before = f.read()
        os.remove(os.path.join(self.build, "bin", "cuda_bench"))
        rc, out = self.pack("good")
        self.assertEqual(rc, 1, out)
        self.assertIn("good is left as it was", out)
        with open(os.path.join(good, "pack.tar.xz"), "rb") as f:
            self.assertEqual(f.read(), before)
        with open(os.path.join(good, "MANIFEST")) as f:
            self.assertIn("./bin/cuda_bench", f.read().splitlines())
        self.assertEqual(sorted(os.listdir(self.tmp)), ["fake-build", "good"])  # no half-made folder beside it

    def test_a_link_a_file_and_overlapping_folders_are_refused(self):
        os.symlink(self.build, os.path.join(self.tmp, "link"))
        self.assertIn("is a link", pack_folder_problem(os.path.join(self.tmp, "link")))
        open(os.path.join(self.tmp, "file"), "w").close()
        self.assertIn("exists and is not a folder", pack_folder_problem(os.path.join(self.tmp, "file")))
        inner = os.path.join(self.build, "pack")
        self.assertIn("overlap", pack_folder_problem(inner, self.build))
        outer = os.path.join(self.tmp, "outer")  # an earlier pack's folder that holds a build
        os.makedirs(os.path.join(outer, "build"))
        open(os.path.join(outer, "GPU_PACK"), "w").close()
        self.assertIn("overlap", pack_folder_problem(outer, os.path.join(outer, "build")))
        self.assertEqual(pack_folder_problem(outer, self.build), "")
        self.assertEqual(pack_folder_problem(os.path.join(self.tmp, "new"), self.build), "")


def in_git():
    proc = subprocess.run(["git", "-C", ROOT, "rev-parse", "--is-inside-work-tree"], capture_output=True)
    return proc.returncode == 0


@unittest.skipUnless(in_git(), "no git checkout: the working tree a device call carries is not counted")
class CarryLimit(unittest.TestCase):
    """`pack`'s size check: the pack and the working tree within a device call's 64 MiB."""

    def summary(self, mib):
        with tempfile.TemporaryDirectory() as out:
            with open(os.path.join(out, "MANIFEST"), "w") as f:
                f.write("./bin/redraw\n")
            with open(os.path.join(out, "pack.tar.xz"), "wb") as f:
                f.truncate(int(mib * 2**20))  # sparse: its size, not its blocks
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                rc = packing.pack_summary(out, None, ["quick"])
        return rc, buf.getvalue()

    def test_a_pack_under_its_own_limit_but_over_with_the_tree_fails_naming_both(self):
        tree = packing.tree_bytes() / 2**20
        pack = min(59.5, 64.5 - tree)  # under the pack's own 60 MiB
        self.assertGreater(pack + tree, 64, "the working tree is too small for this case")
        rc, out = self.summary(pack)
        self.assertEqual(rc, 1, out)
        self.assertIn(f"and the working tree ({tree:.1f} MiB)", out)
        self.assertIn("over a device call's 64 MiB", out)
        self.assertNotIn("Device calls", out)

    def test_it_prints_the_mib_left_and_the_kodak_images_that_fit(self):
        tree = packing.tree_bytes() / 2**20
        rc, out = self.summary(50)
        self.assertEqual(rc, 0, out)
        left = 64 - 50 - tree
        self.assertIn(f"{left:.1f} MiB left: room for {min(24, int(left * 2**20 // packing.KODAK_IMAGE_BYTES))} "
                      f"Kodak images", out)
        self.assertIn("python3 scripts/gpu_check.py run quick", out)


class StandInCheckout(unittest.TestCase):
    """`pack` in a checkout of its own (the program copied): a cmake and an nvcc that record a build
    starting, a .git and a build folder that must survive."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gpu_check_pack-")
        cls.checkout = os.path.join(cls.tmp, "checkout")
        scripts = os.path.join(cls.checkout, "scripts")
        os.makedirs(scripts)
        shutil.copy(os.path.join(ROOT, "scripts", "gpu_check.py"), scripts)
        shutil.copytree(os.path.join(ROOT, "scripts", "gpu_check"), os.path.join(scripts, "gpu_check"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        os.makedirs(os.path.join(cls.checkout, ".git"))
        with open(os.path.join(cls.checkout, ".git", "HEAD"), "w") as f:
            f.write("ref: refs/heads/main\n")
        os.makedirs(os.path.join(cls.checkout, "build-gpu", "bin"))
        with open(os.path.join(cls.checkout, "build-gpu", "bin", "redraw"), "w") as f:
            f.write("build\n")
        tools = os.path.join(cls.tmp, "build-tools")
        os.makedirs(tools)
        for tool in ("cmake", "nvcc"):
            write_tool(os.path.join(tools, tool), f'#!/bin/sh\necho "$0 $*" >>"{cls.tmp}/built"\nexit 1\n')
        cls.env = {"PATH": tools + os.pathsep + os.environ["PATH"], "OUT": os.path.join(cls.tmp, "help-results")}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_there(self, *args):
        return program(*args, env=self.env, cwd=self.tmp, script=os.path.join(self.checkout, "scripts", "gpu_check.py"))

    def test_pack_into_the_checkout_its_build_or_its_git_is_refused_naming_it(self):
        for folder in (".", "build-gpu", ".git"):
            rc, out = self.run_there("pack", folder)
            self.assertEqual(rc, 2, folder)
            self.assertTrue(out.startswith(f"gpu_check pack: {folder} is not empty and is no pack folder"), out)
        self.assertTrue(os.path.isfile(os.path.join(self.checkout, ".git", "HEAD")))
        self.assertTrue(os.path.isfile(os.path.join(self.checkout, "build-gpu", "bin", "redraw")))
        self.assertTrue(os.path.isfile(os.path.join(self.checkout, "scripts", "gpu_check.py")))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "built")))

    def test_every_command_answers_help_and_does_nothing_else(self):
        for cmd in COMMANDS:
            for flag in ("-h", "--help"):
                rc, out = self.run_there(cmd, flag)
                self.assertEqual(rc, 0, (cmd, flag, out))
                self.assertTrue(out.startswith(f"usage: scripts/gpu_check.py {cmd}"), (cmd, flag, out))
        rc, out = self.run_there("--help")
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"(?m)^Parts: quick")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "built")))
        self.assertFalse(os.path.exists(self.env["OUT"]))
        self.assertFalse(os.path.exists(os.path.join(self.checkout, ".gpu-pack")))

    def test_an_unknown_command_is_a_usage_error_with_the_whole_help(self):
        rc, out = self.run_there("frobnicate")
        self.assertEqual(rc, 2)
        self.assertRegex(out, r"(?m)^Parts: quick")
        self.assertEqual(self.run_there("run")[0], 2)
        self.assertEqual(self.run_there("pack", "a", "b")[0], 2)


if __name__ == "__main__":
    unittest.main()
