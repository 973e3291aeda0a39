"""scripts/gpu_check/floors.py: the verdict of a figure against its floor, the floors quick leaves
to other parts, and bench/README.md's copy of the table (it must match the generated one)."""
import os
import tempfile
import unittest

from support import ROOT, program
from gpu_check import floors
from gpu_check.plan import PARTS

README = os.path.join(ROOT, "bench", "README.md")


class Verdicts(unittest.TestCase):
    def test_at_least_passes_at_or_over_the_floor(self):
        fl = floors.FLOORS["instant_samples_per_s"]
        self.assertEqual(floors.verdict(fl, 3.5e8, "NVIDIA H100 80GB HBM3", "{} samples/s"),
                         ("ok", "3.50e8 samples/s (floor 3.00e8)"))
        self.assertEqual(floors.verdict(fl, 3.0e8, "NVIDIA H100 80GB HBM3")[0], "ok")

    def test_at_least_fails_under_it_naming_both_figures(self):
        fl = floors.FLOORS["instant_samples_per_s"]
        self.assertEqual(floors.verdict(fl, 2.0e8, "NVIDIA H100 80GB HBM3", "{} samples/s"),
                         ("failed", "2.00e8 samples/s, under the floor 3.00e8"))

    def test_at_most_is_a_limit(self):
        fl = floors.FLOORS["interop_copy_upload_ms"]
        self.assertEqual(floors.verdict(fl, 0.64, "Fake GPU"), ("ok", "0.640 ms (limit 1.000 ms)"))
        self.assertEqual(floors.verdict(fl, 1.5, "Fake GPU"), ("failed", "1.500 ms, over the limit 1.000 ms"))

    def test_a_floor_of_another_card_is_reported_with_its_share(self):
        fl = floors.FLOORS["instant_samples_per_s"]
        status, detail = floors.verdict(fl, 2.5e8, "Fake GPU", "{} samples/s")
        self.assertEqual(status, "reported")
        self.assertIn("2.50e8 samples/s (0.83 of the H100 or H200 floor 3.00e8", detail)
        self.assertIn("this is Fake GPU", detail)
        self.assertIn("an unknown card", floors.verdict(fl, 2.5e8, "")[1])

    def test_the_samples_floor_is_judged_on_an_h200_as_on_an_h100(self):
        fl = floors.FLOORS["instant_samples_per_s"]
        for card in ("NVIDIA H200", "NVIDIA H200 NVL", "NVIDIA H100 80GB HBM3"):
            self.assertEqual(floors.verdict(fl, 2.47e8, card, "{} samples/s"),
                             ("failed", "2.47e8 samples/s, under the floor 3.00e8"), card)
            self.assertEqual(floors.verdict(fl, 3.2e8, card)[0], "ok", card)
        self.assertEqual(floors.verdict(fl, 3.2e8, "NVIDIA A100-SXM4-80GB")[0], "reported")

    def test_figures_print_by_unit(self):
        self.assertEqual(floors.fmt_figure(2.9e8, "samples/s"), "2.90e8")
        self.assertEqual(floors.fmt_figure(12.0, "x"), "12.00x")
        self.assertEqual(floors.fmt_figure(0.6, "ms"), "0.600 ms")
        self.assertEqual(floors.fmt_figure(0.666, "share"), "0.67")


class Table(unittest.TestCase):
    def test_every_floor_is_well_formed_and_checked_by_known_parts(self):
        self.assertEqual(len(floors.FLOOR_LIST), 8)
        self.assertEqual(list(floors.FLOORS), [f.name for f in floors.FLOOR_LIST])
        for f in floors.FLOOR_LIST:
            self.assertIn(f.op, (">=", "<="), f.name)
            self.assertIn(f.unit, ("samples/s", "x", "ms", "share"), f.name)
            self.assertTrue(f.parts and set(f.parts) <= set(PARTS), f.name)
            self.assertTrue(f.what, f.name)

    def test_quick_names_the_floors_it_leaves_to_other_parts(self):
        self.assertEqual(floors.floors_elsewhere("quick"),
                         "not part of quick: cpu_threads_instant, cpu_threads_fourier (run cpu-threads)")
        self.assertTrue(floors.floors_elsewhere("cpu-threads").startswith(
            "not part of cpu-threads: instant_samples_per_s, instant_over_tcnn"))

    def test_the_markdown_table_has_a_row_per_floor(self):
        table = floors.markdown_table()
        self.assertEqual(len(table), 2 + len(floors.FLOOR_LIST))
        self.assertEqual(table[2], "| `instant_samples_per_s` | at least 3.00e8 samples/s | instant's training "
                                   "samples/s at batch 2^18, default kernels, precision auto; an H100's figure, which "
                                   "an H200 (the same GH100 die, with more memory bandwidth) must meet too (on other "
                                   "cards the figure and its share of this floor are reported) | `quick`, `instant` | "
                                   "an H100 or H200 (elsewhere reported) |")
        self.assertIn("| `interop_copy_upload_ms` | at most 1.000 ms |", "\n".join(table))
        self.assertIn("| `fullres_share` | at least 0.80 |", "\n".join(table))

    def test_bench_readme_quotes_the_table_as_generated(self):
        with open(README) as f:
            quoted = floors.quoted_table(f.read())
        self.assertIsNotNone(quoted, "bench/README.md has no floors table between the marker comments")
        self.assertEqual(quoted, floors.markdown_table(),
                         "bench/README.md's floors table differs from scripts/gpu_check/floors.py: run "
                         "python3 scripts/gpu_check.py floors --into bench/README.md")

    def test_with_table_replaces_only_what_lies_between_the_markers(self):
        text = f"before\n{floors.README_BEGIN}\n| stale |\n{floors.README_END}\nafter\n"
        self.assertEqual(floors.with_table(text), "before\n" + floors.README_BEGIN + "\n" +
                         "\n".join(floors.markdown_table()) + "\n" + floors.README_END + "\nafter\n")
        self.assertIsNone(floors.with_table("no markers\n"))
        self.assertIsNone(floors.quoted_table(f"{floors.README_END}\n{floors.README_BEGIN}\n"))


class Command(unittest.TestCase):
    def test_floors_prints_the_table_and_markdown(self):
        rc, out = program("floors")
        self.assertEqual(rc, 0, out)
        self.assertEqual(len(out.splitlines()), len(floors.FLOOR_LIST))
        self.assertTrue(out.startswith("instant_samples_per_s"), out)
        rc, out = program("floors", "--markdown")
        self.assertEqual((rc, out.splitlines()), (0, floors.markdown_table()))

    def test_floors_into_rewrites_a_stale_table_and_refuses_a_file_without_markers(self):
        with tempfile.TemporaryDirectory() as tmp:
            target = os.path.join(tmp, "README.md")
            with open(target, "w") as f:
                f.write(f"# x\n{floors.README_BEGIN}\n| old |\n{floors.README_END}\ntail\n")
            self.assertEqual(program("floors", "--into", target)[0], 0)
            with open(target) as f:
                text = f.read()
            self.assertEqual(floors.quoted_table(text), floors.markdown_table())
            self.assertTrue(text.startswith("# x\n") and text.endswith("\ntail\n"))
            with open(target, "w") as f:
                f.write("no table\n")
            rc, out = program("floors", "--into", target)
            self.assertEqual(rc, 1)
            self.assertIn("has no table between the markers", out)
        self.assertEqual(program("floors", "--frobnicate")[0], 2)


if __name__ == "__main__":
    unittest.main()
