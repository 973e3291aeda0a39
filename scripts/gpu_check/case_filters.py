"""The test-case filters the parts give the test binaries (-tc=...), split and matched as doctest
2.4.9 does (doctest.h: parseCommaSepArgs and wildcmp), so that a filter selecting nothing is found
on the build machine, from the binary's own list of cases (`--list-test-cases` needs no GPU):

- the value of -tc is split at every comma not escaped by a backslash ("\\," keeps a comma, "\\\\"
  a backslash; a backslash before anything else stays); empty pieces are dropped;
- a piece matches a case's whole name, '*' any run of bytes, '?' one byte, letters in either case
  (ASCII, as tolower does; doctest's -cs is never given);
- a case runs when any piece matches its name.
tests/scripts/case_filters_check.py holds these rules against the binaries (ctest
gpu_check_case_filters)."""
import re

from .plan import PARTS, walked

TEST_BINARIES = ("redraw_cuda_tests", "redraw_tests")  # the doctest binaries the parts run
FILTER_FLAGS = ("-tc=", "--test-case=")  # doctest's test-case filter, short and long


def split_filter(value):
    """The pieces of a -tc value, as doctest splits it."""
    pieces, current, backslash = [], "", False
    for ch in value:
        if backslash:
            backslash = False
            if ch in ",\\":
                current += ch
                continue
            current += "\\"
        if ch == "\\":
            backslash = True
        elif ch == ",":
            pieces.append(current)
            current = ""
        else:
            current += ch
    if backslash:
        current += "\\"
    pieces.append(current)
    return [p for p in pieces if p]


def piece_matches(name, piece):
    """True when the piece (wildcards '*' and '?') matches the whole of NAME, in either case."""
    pattern = b"".join(b".*" if c == b"*" else b"." if c == b"?" else re.escape(c)
                       for c in (piece.encode()[i:i + 1] for i in range(len(piece.encode()))))
    return re.fullmatch(pattern, name.encode(), re.DOTALL | re.IGNORECASE) is not None


def selected(names, value):
    """The names (in their order) that the -tc value VALUE selects."""
    pieces = split_filter(value)
    return [n for n in names if any(piece_matches(n, p) for p in pieces)]


def idle_pieces(names, value):
    """The pieces of VALUE that match none of NAMES (each one a filter that runs nothing)."""
    return [p for p in split_filter(value) if not any(piece_matches(n, p) for n in names)]


def filters_used():
    """Every test-case filter a part gives a test binary: [(part, binary, value)], found by walking
    each part without running it."""
    used = []
    for name in PARTS:
        for _, cmd in walked(name).commands:
            binary = next((b for b in TEST_BINARIES for arg in cmd if arg.endswith("/" + b) or arg == b), None)
            for arg in cmd:
                flag = next((f for f in FILTER_FLAGS if arg.startswith(f)), None)
                if binary and flag and (name, binary, arg[len(flag):]) not in used:
                    used.append((name, binary, arg[len(flag):]))
    return used


def listed_cases(text):
    """The case names doctest's --list-test-cases printed in TEXT: the lines between the rule under
    "listing all test case names" and the next rule."""
    names, state = [], "before"
    for line in text.splitlines():
        rule = re.fullmatch(r"={20,}", line) is not None
        if state == "before" and line.startswith("[doctest] listing all test case names"):
            state = "header"
        elif state == "header" and rule:
            state = "names"
        elif state == "names":
            if rule:
                break
            names.append(line)
    return names
