"""python3 -m gpu_check (from scripts/): the same program as python3 scripts/gpu_check.py."""
import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
