#!/usr/bin/env python3
"""The house's size rules (docs/contributing.md): no source file over 600 lines, no function over
100. Functions are found as the code is formatted (clang-format, namespaces not indented): a C++
definition starts at column 0 with a '(' and ends at the first '}' alone at column 0 after it;
a member function defined in its class body starts indented and ends at the '}' with its own
indentation. Python's def ends where the indentation returns to the def's. Prints each breach
(file:line, name, lines) and exits 1 on one not in KNOWN, or on a KNOWN one that is gone (take it
off the list: the list only shrinks).
Usage: house_sizes.py REPO [FILE...]   (files relative to REPO; default: git ls-files)"""
import os
import re
import subprocess
import sys

MAX_FILE, MAX_FUNCTION = 600, 100
# Breaches that predate the check, as (file, function): each waits for its split. Empty: keep it so.
KNOWN = set()
SOURCES = (".h", ".cpp", ".cu", ".cuh", ".py")
CPP_START = re.compile(r"^(\s*)(?!(?:if|for|while|switch|return|else|do|namespace|struct|class|enum|union)\b)"
                       r"[A-Za-z_~][^;=]*\)[^;]*\{\s*(//.*)?$")


def cpp_functions(lines):
    """(first line index, name, length) of each function body that ends where its start's indent does."""
    out, i = [], 0
    while i < len(lines):
        m = CPP_START.match(lines[i])
        if not m or lines[i].rstrip().endswith("{}"):
            i += 1
            continue
        indent = m.group(1)
        end = i + 1
        while end < len(lines) and not re.match(re.escape(indent) + r"\}", lines[end]):
            if lines[end].strip() and not lines[end].startswith(indent) and lines[end][0] not in "#":
                break  # left the block at a shallower indent: not a body we can measure
            end += 1
        if end < len(lines) and re.match(re.escape(indent) + r"\}", lines[end]):
            name = re.sub(r"\(.*", "", lines[i].strip()).split()[-1] if "(" in lines[i] else lines[i].strip()
            out.append((i, name, end - i + 1))
            i = end + 1 if not indent else i + 1
        else:
            i += 1
    return out


def py_functions(lines):
    out = []
    for i, l in enumerate(lines):
        m = re.match(r"^(\s*)def (\w+)", l)
        if not m:
            continue
        indent, end = len(m.group(1)), i + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        out.append((i, m.group(2), end - i))
    return out


def main():
    repo = sys.argv[1]
    files = sys.argv[2:] or subprocess.run(["git", "-C", repo, "ls-files"], capture_output=True, text=True,
                                           check=True).stdout.split()
    breaches, known_seen = [], set()
    for f in files:
        if not f.endswith(SOURCES) or f.startswith(("third_party/", "external/")):
            continue
        path = os.path.join(repo, f)
        if not os.path.isfile(path):
            continue
        lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) > MAX_FILE:
            breaches.append(f"{f}: {len(lines)} lines (at most {MAX_FILE})")
        for i, name, n in (py_functions if f.endswith(".py") else cpp_functions)(lines):
            if n > MAX_FUNCTION:
                if (f, name) in KNOWN:
                    known_seen.add((f, name))
                    print(f"known: {f}:{i + 1}: {name}: {n} lines (at most {MAX_FUNCTION})")
                else:
                    breaches.append(f"{f}:{i + 1}: {name}: {n} lines (at most {MAX_FUNCTION})")
    gone = [] if sys.argv[2:] else sorted(KNOWN - known_seen)
    for b in breaches:
        print("FAIL:", b)
    for f, name in gone:
        print(f"FAIL: {f}: {name} is within the rules now: take it off KNOWN")
    print(f"house sizes: {len(breaches)} new breach(es), {len(known_seen)} known, {len(gone)} known gone")
    return 1 if breaches or gone else 0


if __name__ == "__main__":
    sys.exit(main())
