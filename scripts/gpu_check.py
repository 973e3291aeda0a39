#!/usr/bin/env python3
"""The GPU check's command line: runs the package scripts/gpu_check/ beside this file (cli.py's
docstring is its help: `python3 scripts/gpu_check.py --help`). `import gpu_check` finds that
package, not this file: a folder with __init__.py comes before a module of the same name in one
folder of sys.path."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the checkout (or in a pack's copy of it)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_check.cli import main  # noqa: E402  (the package, after its folder is on the path)

if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # `gpu_check.py list | head`: the reader left, which is no error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
