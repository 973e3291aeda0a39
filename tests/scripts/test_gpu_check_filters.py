"""scripts/gpu_check/case_filters.py: doctest's filter rules (a -tc value split at unescaped commas,
'*' and '?' over the whole name, either case), doctest's case list read back, and every filter
the parts give a test binary selecting cases, piece by piece, of the TEST_CASEs in the sources
(ctest gpu_check_case_filters checks them against the built binaries' own lists)."""
import glob
import os
import re
import unittest

from support import ROOT
from gpu_check import case_filters
from gpu_check.case_filters import idle_pieces, listed_cases, piece_matches, selected, split_filter

CASES = ["cuda parity: encode (identity, positional, Fourier)",
         "cuda parity: predict, every activation and encoding, 1 and 3 channels",
         "cuda parity: predict in tf32 and bf16 stays close", "cuda: errors are BackendErrors, never crashes"]
# doctest 2.4.9's --list-test-cases, as redraw_cuda_tests prints it
LISTING = """[doctest] listing all test case names
===============================================================================
{}
===============================================================================
[doctest] unskipped test cases passing the current filters: {}
"""


def source_cases(pattern):
    """The TEST_CASE names in the files matching PATTERN (under tests/), adjacent literals joined."""
    names = []
    for path in glob.glob(os.path.join(ROOT, "tests", pattern), recursive=True):
        with open(path, errors="replace") as f:
            text = f.read()
        for m in re.finditer(r'\bTEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', text):
            names.append("".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m[1])).replace('\\"', '"'))
    return names


class Splitting(unittest.TestCase):
    def test_a_comma_splits_unless_a_backslash_escapes_it(self):
        self.assertEqual(split_filter("a*,b*"), ["a*", "b*"])
        self.assertEqual(split_filter("cuda parity: predict, every*"), ["cuda parity: predict", " every*"])
        self.assertEqual(split_filter("cuda parity: predict\\, every*"), ["cuda parity: predict, every*"])

    def test_a_backslash_before_anything_else_stays_and_empty_pieces_go(self):
        self.assertEqual(split_filter("a\\\\,b\\x,,c\\"), ["a\\", "b\\x", "c\\"])
        self.assertEqual(split_filter(""), [])


class Matching(unittest.TestCase):
    def test_a_piece_matches_the_whole_name_in_either_case(self):
        self.assertTrue(piece_matches("cuda: errors are X", "CUDA: ERRORS*"))
        self.assertFalse(piece_matches("cuda: errors are X", "cuda: errors"))
        self.assertFalse(piece_matches("a cuda: errors", "cuda: errors*"))
        self.assertTrue(piece_matches("abc", "a?c"))
        self.assertFalse(piece_matches("ac", "a?c"))
        self.assertTrue(piece_matches("a.c[1]", "a.c[?]"))

    def test_the_unescaped_comma_runs_neither_piece(self):
        self.assertEqual(idle_pieces(CASES, "cuda parity: predict, every*"), ["cuda parity: predict", " every*"])
        self.assertEqual(selected(CASES, "cuda parity: predict, every*"), [])
        self.assertEqual(selected(CASES, "cuda parity: predict\\, every*,cuda: errors*"), [CASES[1], CASES[3]])

    def test_the_listing_is_read_back_case_by_case(self):
        self.assertEqual(listed_cases(LISTING.format("\n".join(CASES), len(CASES))), CASES)
        self.assertEqual(listed_cases(LISTING.format("", 0)), [""])
        self.assertEqual(listed_cases("[doctest] test cases: 0 | 0 passed\n"), [])


class PartsFilters(unittest.TestCase):
    def test_each_test_binarys_filters_are_found(self):
        used = case_filters.filters_used()
        self.assertEqual(sorted({(part, b) for part, b, _ in used}),
                         [("quick", "redraw_cuda_tests"), ("sanitize", "redraw_cuda_tests"),
                          ("sanitize-parity", "redraw_cuda_tests"), ("tests", "redraw_tests")])

    def test_every_piece_of_every_filter_selects_a_case_in_the_sources(self):
        cuda, other = source_cases("cuda/test_*.cpp"), source_cases("**/test_*.cpp")
        self.assertGreater(len(cuda), 30)
        self.assertIn(CASES[1], cuda)
        for part, binary, value in case_filters.filters_used():
            names = cuda if binary == "redraw_cuda_tests" else [n for n in other if n not in cuda]
            self.assertEqual(idle_pieces(names, value), [], f"part {part}: -tc={value} on {binary}")

    def test_sanitize_parity_runs_the_every_activation_predict_case(self):
        value = next(v for part, _, v in case_filters.filters_used() if part == "sanitize-parity")
        self.assertIn(CASES[1], selected(source_cases("cuda/test_*.cpp"), value))


if __name__ == "__main__":
    unittest.main()
