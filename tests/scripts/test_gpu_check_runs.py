"""scripts/gpu_check's parts on a fake device (fake_device.py): a finished part's JSON, quick's
checks and its verdict (ok only when every check was measured), every part's floor judged with the
figure, like grids for the peers, the full-resolution and CPU-thread tables, parts refused when
they do not fit one call, and the report of it all. Each scenario runs once, on first use."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from fake_device import FakeDevice
from support import ROOT, check_of, run_parts
from gpu_check import floors, parts_checks
from gpu_check.plan import walked

H100 = "NVIDIA H100 80GB HBM3"
H200 = "NVIDIA H200"
WORK = None
DEVICE = None
RUNS = {}
# name: (parts, tiny-cuda-nn packed, FAKE_* variables)
SCENARIOS = {
    "tests": (["tests"], False, {}),
    "sanitize": (["sanitize"], False, {}),
    "quick": (["quick"], False, {}),
    "quick-torch-grid": (["quick"], False, {"FAKE_TORCH_LOG2": 19}),
    "quick-ab-crash": (["quick"], False, {"FAKE_AB_CRASH": 1}),
    "quick-ab-slower": (["quick"], False, {"FAKE_AB_SAMPLES": "4.0e8"}),
    "quick-tcnn": (["quick"], True, {}),
    "quick-tcnn-faster": (["quick"], True, {"FAKE_TCNN_SAMPLES": "4.2e8"}),
    "quick-h100": (["quick"], True, {"FAKE_GPU_NAME": H100}),
    "quick-h100-no-torch": (["quick"], True, {"FAKE_NO_TORCH": 1, "FAKE_GPU_NAME": H100}),
    "quick-h100-no-egl": (["quick"], True, {"FAKE_NO_EGL": 1, "FAKE_GPU_NAME": H100}),
    "quick-h100-no-tcnn": (["quick"], False, {"FAKE_GPU_NAME": H100}),
    "quick-h100-slow": (["quick"], False, {"FAKE_GPU_NAME": H100, "FAKE_SAMPLES": "2.0e8"}),
    "instant-h100-slow": (["instant"], False, {"FAKE_GPU_NAME": H100, "FAKE_SAMPLES": "2.5e8"}),
    "instant-slow": (["instant"], False, {"FAKE_SAMPLES": "2.5e8"}),
    "instant-h100": (["instant"], False, {"FAKE_GPU_NAME": H100}),
    "instant-h200": (["instant"], False, {"FAKE_GPU_NAME": H200}),
    "quick-h200": (["quick"], True, {"FAKE_GPU_NAME": H200}),
    "instant-torch-faster": (["instant-torch"], False, {"FAKE_TORCH_SAMPLES": "5e8"}),
    "instant-torch": (["instant-torch"], False, {}),
    "interop-slow": (["interop"], False, {"FAKE_INTEROP_MS": "1.5"}),
    "interop": (["interop"], False, {}),
    "fullres": (["fullres"], False, {}),
    "fullres-slow": (["fullres"], False, {"FAKE_FULL_STEPS": 200}),
    "fullres-unlike": (["fullres"], False, {"FAKE_IGNORE_SET": 1}),
    "cpu-threads": (["cpu-threads"], False, {}),
    "cpu-threads-slow": (["cpu-threads"], False, {"FAKE_CPU_X16": 6}),
    "cpu-threads-8-cores": (["cpu-threads"], False, {"FAKE_CPU_X16": 6, "FAKE_CPU_CORES": 8}),
    "profile": (["profile"], False, {}),
    "profile-nothing": (["profile"], False, {"FAKE_NCU_KERNELS": 0}),
    "accuracy": (["accuracy"], False, {}),
    "accuracy-unreached": (["accuracy"], False, {"FAKE_UNREACHED": "siren"}),
    "tests-sanitize": (["tests", "sanitize"], False, {}),
    "quick-accuracy": (["quick", "accuracy"], False, {}),
}


def setUpModule():
    global WORK, DEVICE
    WORK = tempfile.mkdtemp(prefix="gpu_check_runs-")
    DEVICE = FakeDevice(os.path.join(WORK, "device"))


def tearDownModule():
    shutil.rmtree(WORK, ignore_errors=True)


def run(name):
    """Scenario NAME's run, made on first use."""
    if name not in RUNS:
        parts, tcnn, fake = SCENARIOS[name]
        DEVICE.with_tcnn(tcnn)
        RUNS[name] = run_parts(DEVICE, os.path.join(WORK, name), parts, **fake)
    return RUNS[name]


def report(*names):
    """bench/gpu_report.py over the scenarios' folders: (exit code, its output)."""
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gpu_report.py"),
                           *[run(n).out for n in names]], capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


class FinishedParts(unittest.TestCase):
    def test_a_finished_tests_part_exits_0_its_json_ok_with_5_steps(self):
        r = run("tests")
        self.assertEqual(r.rc, 0, r.output)
        j = r.json("tests")
        self.assertEqual((j["status"], len(j["steps_finished"]), len(j["suites"])), ("ok", 5, 2))
        self.assertEqual(j["reason"], "34 CUDA test cases passed")

    def test_the_sanitize_parts_json_holds_all_three_tools_clean(self):
        j = run("sanitize").json("sanitize")
        self.assertEqual(j["status"], "ok")
        self.assertEqual(sorted(j["tools"]), ["memcheck", "racecheck", "synccheck"])
        for tool in j["tools"].values():
            self.assertEqual((tool["errors"], tool["cases"], tool["exit"]), (0, 30, 0))


class Quick(unittest.TestCase):
    def test_without_tcnn_on_another_card_it_is_incomplete_exit_3_with_every_check(self):
        r = run("quick")
        self.assertEqual(r.rc, 3, r.output)
        j = r.json("quick")
        self.assertEqual(j["status"], "incomplete")
        self.assertEqual([c["check"] for c in j["checks"]], ["tests", "memcheck", "racecheck", "instant",
                                                             "backward A/B", "interop", "PyTorch", "tiny-cuda-nn",
                                                             "fullres"])

    def test_its_reason_names_what_was_not_measured_and_the_floors_left_to_other_parts(self):
        reason = run("quick").json("quick")["reason"]
        self.assertTrue(reason.startswith("not measured: "), reason)
        self.assertIn("tiny-cuda-nn (skipped", reason)
        self.assertIn("instant (reported", reason)
        self.assertNotIn("PyTorch", reason)
        self.assertTrue(reason.endswith("not part of quick: cpu_threads_instant, cpu_threads_fourier "
                                        "(run cpu-threads)"), reason)

    def test_tcnn_is_skipped_with_the_reason(self):
        c = check_of(run("quick").json("quick"), "tiny-cuda-nn")
        self.assertEqual(c["status"], "skipped")
        self.assertIn("no tiny-cuda-nn binary", c["detail"])

    def test_memcheck_and_racecheck_ran_the_fused_mlp_and_hash_grid_cases_only(self):
        log = run("quick").log("quick")
        self.assertEqual(log.count("-tc=cuda sanitize: fused MLP*,cuda sanitize: hash grid*"), 2)
        self.assertEqual(log.count("--tool "), 2)

    def test_on_another_card_the_samples_floor_is_reported_not_checked(self):
        c = check_of(run("quick").json("quick"), "instant")
        self.assertEqual((c["status"], c["figure"], c["floor"]), ("reported", 3.5e8, "instant_samples_per_s"))
        self.assertIn("3.50e8", c["detail"])

    def test_ours_against_pytorchs_fastest_is_2_92x(self):
        c = check_of(run("quick").json("quick"), "PyTorch")
        self.assertEqual(c["status"], "ok")
        self.assertAlmostEqual(c["figure"], 3.5 / 1.2, places=9)

    def test_at_most_8_files_come_back(self):
        files = run("quick").files()
        self.assertLessEqual(len(files), 8)
        self.assertEqual(sorted(os.path.basename(f) for f in files), ["device.txt", "quick.json", "quick.log"])

    def test_the_figure_judged_is_the_default_backward_on_a_users_grid(self):
        j = run("quick").json("quick")
        self.assertEqual(check_of(j, "instant")["figure"], 3.5e8)
        row = [r for r in j["instant_cuda"] if r["hash_grid_kernels"] == "default kernels"][0]
        self.assertEqual((row["grid"]["log2_hashmap_size"], row["grid"]["dense_levels"]), (18, 15))

    def test_the_backward_ab_has_both_backwards_on_both_grids_with_the_ratios(self):
        j = run("quick").json("quick")
        c = check_of(j, "backward A/B")
        self.assertEqual(c["status"], "ok")
        self.assertEqual(sorted((r["grid"], r["backward"]) for r in j["backward_ab"]),
                         [("image", "per-sample"), ("image", "shared-dense"), ("preset", "per-sample"),
                          ("preset", "shared-dense")])
        self.assertAlmostEqual(c["ratios"]["image"], 3.5 / 3.2, places=9)
        self.assertEqual((c["floor"], c["figure"]), ("shared_dense_over_per_sample", 3.5 / 3.2))
        self.assertIn("shared-dense at 1.09x per-sample's samples/s on a user's grid", c["detail"])

    def test_a_default_backward_slower_than_per_sample_fails_the_ab_with_both_figures(self):
        r = run("quick-ab-slower")
        c = check_of(r.json("quick"), "backward A/B")
        self.assertEqual((r.rc, c["status"]), (1, "failed"), r.output)
        self.assertIn("shared-dense at 0.88x per-sample's samples/s", c["detail"])
        self.assertIn("under the floor 1.00x", c["detail"])

    def test_pytorch_was_given_cuda_benchs_grid_and_judged_on_it(self):
        r = run("quick")
        self.assertRegex(r.log("quick"), r"torch_reference .*--grid-from .*cuda-auto\.json")
        rows = r.json("quick")["instant_torch"]
        self.assertEqual(len(rows), 2)
        for row in rows:
            self.assertEqual((row["grid"]["log2_hashmap_size"], row["grid"]["entries"]), (18, 710639))

    def test_a_pytorch_figure_on_another_grid_gives_no_ratio_failed_naming_both(self):
        j = run("quick-torch-grid").json("quick")
        c = check_of(j, "PyTorch")
        self.assertEqual((j["status"], c["status"]), ("failed", "failed"))
        self.assertIn("unlike grids", c["detail"])
        self.assertIn("log2_hashmap_size", c["detail"])
        self.assertNotIn("figure", c)

    def test_an_ab_run_that_dies_fails_the_ab_naming_the_rows_missing(self):
        j = run("quick-ab-crash").json("quick")
        c = check_of(j, "backward A/B")
        self.assertEqual(c["status"], "failed")
        self.assertIn("per-sample on the image grid", c["detail"])
        self.assertEqual(check_of(j, "instant")["figure"], 3.5e8)


class QuickWithTcnn(unittest.TestCase):
    def test_with_tcnn_on_another_card_it_exits_3(self):
        r = run("quick-tcnn")
        self.assertEqual((r.rc, r.json("quick")["status"]), (3, "incomplete"), r.output)

    def test_tcnn_was_given_cuda_benchs_grid(self):
        enc = run("quick-tcnn").json("quick")["tcnn"]["config"]["encoding"]
        self.assertEqual((enc["log2_hashmap_size"], enc["n_levels"]), (18, 16))
        self.assertAlmostEqual(enc["per_level_scale"], 2 ** (5 / 15), places=12)

    def test_its_batch_2_18_figure_is_the_one_compared(self):
        j = run("quick-tcnn").json("quick")
        self.assertEqual(j["tcnn"]["samples_per_s"], 2.9e8)
        self.assertIsNone(j["tcnn"]["runs"][0]["batch"])
        c = check_of(j, "tiny-cuda-nn")
        self.assertEqual(c["status"], "ok")
        self.assertIn("2.90e8", c["detail"])
        self.assertIn("3.50e8", c["detail"])

    def test_the_benchmark_was_ended_once_it_printed_it(self):
        self.assertLess(run("quick-tcnn").seconds, 25)  # its pause after the figure is 30 s

    def test_quick_slower_than_tcnn_fails_exit_1_naming_both_figures(self):
        r = run("quick-tcnn-faster")
        self.assertEqual(r.rc, 1)
        j = r.json("quick")
        self.assertEqual(j["status"], "failed")
        for text in ("tiny-cuda-nn", "4.20e8", "0.83x"):
            self.assertIn(text, j["reason"])

    def test_on_an_h100_with_every_peer_measured_it_is_ok_exit_0(self):
        r = run("quick-h100")
        self.assertEqual(r.rc, 0, r.output)
        j = r.json("quick")
        self.assertEqual(j["status"], "ok")
        self.assertEqual({c["status"] for c in j["checks"]}, {"ok"})
        self.assertIn("not part of quick: cpu_threads_instant, cpu_threads_fourier", j["reason"])

    def test_without_pytorch_it_is_incomplete_naming_pytorch_only(self):
        r = run("quick-h100-no-torch")
        reason = r.json("quick")["reason"]
        self.assertEqual(r.rc, 3)
        self.assertTrue(reason.startswith("not measured: PyTorch (skipped"), reason)
        self.assertNotIn("interop", reason)

    def test_without_egl_it_is_incomplete_naming_interop_only(self):
        r = run("quick-h100-no-egl")
        reason = r.json("quick")["reason"]
        self.assertEqual(r.rc, 3)
        self.assertTrue(reason.startswith("not measured: interop (skipped"), reason)
        self.assertNotIn("PyTorch", reason)

    def test_without_tcnn_it_is_incomplete_naming_tcnn_only(self):
        j = run("quick-h100-no-tcnn").json("quick")
        self.assertEqual(j["status"], "incomplete")
        self.assertTrue(j["reason"].startswith("not measured: tiny-cuda-nn (skipped"), j["reason"])
        self.assertNotIn("instant (", j["reason"])

    def test_on_an_h100_under_the_samples_floor_it_fails_with_the_figure(self):
        r = run("quick-h100-slow")
        j = r.json("quick")
        self.assertEqual((r.rc, j["status"]), (1, "failed"))
        self.assertIn("2.00e8", j["reason"])
        self.assertIn("3.00e8", j["reason"])


class EveryPartsFloor(unittest.TestCase):
    def test_instant_on_an_h100_under_the_floor_fails_with_the_figure(self):
        j = run("instant-h100-slow").json("instant")
        self.assertEqual(j["status"], "failed")
        self.assertIn("2.50e8", j["reason"])
        self.assertIn("3.00e8", j["reason"])

    def test_instant_on_another_card_reports_the_figure_and_ends_incomplete(self):
        r = run("instant-slow")
        j = r.json("instant")
        self.assertEqual((r.rc, j["status"]), (3, "incomplete"))
        self.assertIn("2.50e8", j["reason"])
        self.assertIn("0.83 of the H100 or H200 floor", j["reason"])

    def test_instant_on_an_h100_over_the_floor_passes(self):
        r = run("instant-h100")
        self.assertEqual((r.rc, r.json("instant")["status"]), (0, "ok"))

    def test_on_an_h200_the_samples_floor_is_judged_and_quick_can_end_ok(self):
        r = run("instant-h200")
        self.assertEqual((r.rc, r.json("instant")["status"]), (0, "ok"), r.output)
        self.assertEqual(check_of(r.json("instant"), "instant")["status"], "ok")
        r = run("quick-h200")
        self.assertEqual((r.rc, r.json("quick")["status"]), (0, "ok"), r.output)

    def test_instant_torch_with_pytorch_faster_fails_with_both_figures(self):
        j = run("instant-torch-faster").json("instant-torch")
        self.assertEqual(j["status"], "failed")
        for text in ("5.00e8", "3.50e8", "0.70x"):
            self.assertIn(text, j["reason"])

    def test_instant_torch_passes_when_ours_is_faster(self):
        self.assertEqual(run("instant-torch").json("instant-torch")["status"], "ok")

    def test_interop_over_its_limit_fails_with_the_figure(self):
        j = run("interop-slow").json("interop")
        self.assertEqual(j["status"], "failed")
        self.assertIn("1.500 ms", j["reason"])
        self.assertIn("1.000 ms", j["reason"])

    def test_interop_under_its_limit_passes(self):
        j = run("interop").json("interop")
        self.assertEqual(j["status"], "ok")
        self.assertIn("0.640 ms", j["reason"])

    def test_each_floor_is_judged_by_the_parts_the_table_names(self):
        judged = {}
        for name in ("quick-h100", "instant-h100", "instant-torch", "interop", "fullres", "cpu-threads"):
            r = run(name)
            part = SCENARIOS[name][0][0]
            for c in r.json(part).get("checks", []):
                if "floor" in c:
                    judged.setdefault(c["floor"], set()).add(part)
                    self.assertEqual(c["floor_value"], floors.FLOORS[c["floor"]].value)
        self.assertEqual(judged, {f.name: set(f.parts) for f in floors.FLOOR_LIST})


class Tables(unittest.TestCase):
    def test_fullres_at_0_90_of_the_small_rate_is_ok_with_both_sizes_in_both_rounds(self):
        j = run("fullres").json("fullres")
        self.assertEqual((j["status"], j["fullres"]["share"], len(j["fullres"]["rows"])), ("ok", 0.9, 4))
        self.assertEqual(sorted((r["side"], r["round"]) for r in j["fullres"]["rows"]),
                         [(1000, 1), (1000, 2), (10000, 1), (10000, 2)])

    def test_fullres_trains_both_sizes_on_the_full_pictures_grid_and_names_it(self):
        r = run("fullres")
        grids = r.json("fullres")["fullres"]["grids"]
        self.assertEqual(sorted(grids), ["1000", "10000"])
        self.assertEqual(grids["1000"], grids["10000"])
        self.assertIn("finest 10000", grids["1000"])
        for part in ("fullres", "quick"):
            self.assertTrue(any("--same-grid" in cmd for _, cmd in walked(part).commands), part)
        self.assertIn(f"both on {grids['10000']}", r.json("fullres")["reason"])

    def test_fullres_on_unlike_grids_is_not_comparable_failed_naming_both(self):
        r = run("fullres-unlike")
        j = r.json("fullres")
        self.assertEqual((r.rc, j["status"]), (1, "failed"), r.output)
        self.assertIn("not comparable: 10000 px trained 16 levels", j["reason"])
        self.assertIn("finest 10000", j["reason"])
        self.assertIn("1000 px 16 levels", j["reason"])
        self.assertIn("finest 1000,", j["reason"])
        self.assertRegex(r.log("fullres"), r"(?m)^grid at 1000: .*finest 1000, \d+ rows$")
        self.assertNotIn("figure", check_of(j, "fullres"))

    def test_fullres_at_0_67_fails_naming_the_floor_and_the_report_prints_its_table(self):
        j = run("fullres-slow").json("fullres")
        self.assertEqual(j["status"], "failed")
        self.assertIn("0.67", j["reason"])
        self.assertIn("0.80", j["reason"])
        self.assertRegex(report("fullres-slow")[1], r"(?m)^\| 10000 px \| 2 \| 6\.7 \|")

    def test_cpu_threads_at_12x_is_ok_with_every_preset_at_every_count(self):
        j = run("cpu-threads").json("cpu-threads")
        self.assertEqual(j["status"], "ok")
        self.assertEqual([c["check"] for c in j["checks"]], ["instant", "fourier"])
        self.assertIn("12.00x", j["reason"])
        self.assertEqual(sorted(j["cpu_threads"]), sorted(["instant", "fourier", "siren", "classic", "classic-sgd"]))
        for counts in j["cpu_threads"].values():
            self.assertEqual(sorted(counts, key=int), ["1", "2", "4", "8", "16"])

    def test_cpu_threads_at_6x_fails_exit_1_naming_both_and_the_report_prints_its_table(self):
        r = run("cpu-threads-slow")
        j = r.json("cpu-threads")
        self.assertEqual((r.rc, j["status"]), (1, "failed"))
        self.assertIn("6.00x", j["reason"])
        self.assertIn("8.00x", j["reason"])
        self.assertRegex(report("cpu-threads-slow")[1],
                         r"(?m)^\| fourier \| 10\.00 \| 20\.00 \| 40\.00 \| 80\.00 \| 60\.00 \| 6\.00x \|")

    def test_on_8_cores_the_cpu_floors_are_not_measured(self):
        j = run("cpu-threads-8-cores").json("cpu-threads")
        self.assertEqual(j["status"], "incomplete")
        self.assertEqual({c["status"] for c in j["checks"]}, {"skipped"})
        self.assertIn("8 CPU cores", j["reason"])


class Accuracy(unittest.TestCase):
    def test_every_preset_at_99_percent_is_ok(self):
        r = run("accuracy")
        self.assertEqual((r.rc, r.json("accuracy")["status"]), (0, "ok"), r.output)
        self.assertEqual(len(r.json("accuracy")["accuracy"]), 4)

    def test_a_preset_that_never_reaches_99_percent_fails_exit_1_naming_it(self):
        r = run("accuracy-unreached")
        j = r.json("accuracy")
        self.assertEqual((r.rc, j["status"]), (1, "failed"), r.output)
        self.assertIn("siren (10 s run) did not reach 99%: 66.94% of pixels right", j["reason"])
        self.assertNotIn("fourier", j["reason"])

    def test_a_preset_without_a_row_fails_naming_it(self):
        rows = [{"preset": p, "reached": True, "time_limit_s": 10} for p in ("fourier", "siren", "classic")]
        self.assertEqual(parts_checks.accuracy_problems(rows), ["classic (60 s run): no result"])
        rows.append({"preset": "classic", "reached": False, "pixel_accuracy": 0.5, "train_seconds": 60.0,
                     "steps": 9000, "time_limit_s": 60})
        self.assertEqual(parts_checks.accuracy_problems(rows), [
            "classic (60 s run) did not reach 99%: 50.00% of pixels right after 60.0 s (9000 steps)"])


class Profile(unittest.TestCase):
    def test_profile_with_every_kernel_is_ok_counting_them(self):
        r = run("profile")
        self.assertEqual((r.rc, r.json("profile")["status"]), (0, "ok"), r.output)
        self.assertEqual(r.json("profile")["reason"], "24 kernels profiled (profile.log)")

    def test_profile_with_no_kernel_profiled_fails_exit_1(self):
        r = run("profile-nothing")
        j = r.json("profile")
        self.assertEqual((r.rc, j["status"]), (1, "failed"), r.output)
        self.assertEqual(j["kernels_profiled"], 0)
        self.assertIn("ncu profiled no kernel", j["reason"])


class Refusals(unittest.TestCase):
    def test_a_call_without_the_pack_fails_each_part_exit_1(self):
        empty = os.path.join(WORK, "no-pack")
        os.makedirs(empty, exist_ok=True)
        r = run_parts(DEVICE, os.path.join(WORK, "no-pack-out"), ["quick"], REDRAW_GPU_PACK=empty)
        self.assertEqual((r.rc, r.json("quick")["status"]), (1, "failed"), r.output)
        self.assertIn("no pack at", r.json("quick")["reason"])
        self.assertIn("FAILED: no pack at", r.output)

    def test_a_call_without_a_device_skips_each_part_exit_0(self):
        no_tools = os.path.join(WORK, "no-tools")
        os.makedirs(no_tools, exist_ok=True)
        r = run_parts(DEVICE, os.path.join(WORK, "no-device-out"), ["quick"], PATH=no_tools)
        self.assertEqual((r.rc, r.json("quick")["status"]), (0, "skipped"), r.output)
        self.assertIn("no CUDA device", r.json("quick")["reason"])

    def test_two_parts_over_one_calls_limit_are_refused_and_nothing_runs(self):
        r = run("tests-sanitize")
        self.assertEqual(r.rc, 2)
        self.assertIn("tests sanitize take 960 s of timeouts", r.output)
        self.assertIn("run one part per call", r.output)
        self.assertFalse(os.path.exists(os.path.join(r.out, "tests.json")))
        self.assertEqual(run("quick-accuracy").rc, 2)
        self.assertIn("take 780 s", run("quick-accuracy").output)


class Report(unittest.TestCase):
    def test_the_report_of_quick_shows_its_checks_and_tcnn_beside_instant(self):
        rc, out = report("quick-tcnn")
        self.assertRegex(out, r"(?m)^\| quick \| tiny-cuda-nn \| ok \|")
        self.assertRegex(out, r"(?m)^\| tiny-cuda-nn .* \| 2\.9e\+08 \|")

    def test_each_row_with_its_grid_and_a_pytorch_ratio_only_on_a_like_grid(self):
        out = report("quick-tcnn")[1]
        self.assertRegex(out, re.escape("| Redraw auto, default kernels | image: 16 levels (15 dense), 2^18, 710639 "
                                        "rows | 3.5e+08 | 2.9x"))
        self.assertRegex(out, re.escape("| Redraw auto, default kernels, preset grid | preset: 16 levels (8 dense), "
                                        "2^17, 1184057 rows | 3.5e+08 | unlike grids |"))


if __name__ == "__main__":
    unittest.main()
