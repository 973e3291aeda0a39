#!/usr/bin/env python3
"""Every test-case filter scripts/gpu_check gives a test binary selects cases of that binary, piece
by piece (a piece that selects nothing leaves those cases unrun while its part says clean), and
scripts/gpu_check/case_filters.py selects what the binary itself selects. Reads the binaries' own
lists (--list-test-cases, no GPU needed). ctest's gpu_check_case_filters.
  case_filters_check.py REDRAW_CUDA_TESTS [REDRAW_TESTS]
Exit 77 (skipped, saying so) when the CUDA test binary is not built; a missing REDRAW_TESTS skips
its filters only, saying so. Exit 1 on a filter that selects nothing or on a disagreement."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "scripts"))
from gpu_check.case_filters import filters_used, idle_pieces, listed_cases, selected  # noqa: E402

# Filters beyond the parts' own, each against the binary's filtering: the comma split, a backslash
# kept, '?' and case folding.
PROBES = ("cuda parity: predict, every*", "cuda parity: predict\\, every*", "CUDA PARITY: ENCODE*",
          "cuda?parity: rendering*", "*hash grid*,cuda: errors*", "cuda parity\\: encode*", "cuda sanitize:*")


def cases(binary, value=None):
    """The case names BINARY lists (those VALUE selects, when given)."""
    cmd = [binary, "--list-test-cases"] + ([f"-tc={value}"] if value is not None else [])
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stdout[-2000:]}")
    return listed_cases(proc.stdout)


def check_binary(binary, used):
    """Problems with the filters USED on BINARY ([] when none)."""
    names, problems = cases(binary), []
    print(f"{os.path.basename(binary)}: {len(names)} cases listed")
    if not names:
        return [f"{binary} listed no case"]
    for part, value in used:
        idle = idle_pieces(names, value)
        print(f"  {part}: -tc={value}: {len(selected(names, value))} cases" +
              (f"; selecting nothing: {idle}" if idle else ""))
        problems += [f"part {part}: the piece {p!r} of -tc={value} selects no case of {os.path.basename(binary)}"
                     for p in idle]
    for value in [v for _, v in used] + list(PROBES):
        ours, theirs = selected(names, value), cases(binary, value)
        if ours != theirs:
            problems.append(f"-tc={value}: case_filters selects {len(ours)} cases, the binary {len(theirs)} "
                            f"(only ours: {sorted(set(ours) - set(theirs))[:3]}, only the binary's: "
                            f"{sorted(set(theirs) - set(ours))[:3]})")
    return problems


def main(argv):
    if not argv or len(argv) > 2:
        print(__doc__)
        return 2
    binaries = dict(zip(("redraw_cuda_tests", "redraw_tests"), argv))
    if not os.access(binaries["redraw_cuda_tests"], os.X_OK):
        print(f"SKIPPED: the CUDA test binary is not built ({binaries['redraw_cuda_tests']})")
        return 77
    problems, used = [], filters_used()
    for name, binary in binaries.items():
        mine = [(part, value) for part, b, value in used if b == name]
        if not os.access(binary, os.X_OK):
            print(f"{name}: not built ({binary}): its filters {[v for _, v in mine]} not checked")
            continue
        problems += check_binary(binary, mine)
    for p in problems:
        print(f"FAILED: {p}")
    print(f"case_filters_check: {'failed' if problems else 'ok'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
