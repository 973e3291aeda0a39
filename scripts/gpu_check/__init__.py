"""The GPU check (scripts/gpu_check.py runs it; its help: `python3 scripts/gpu_check.py --help`,
cli.py's docstring), standard library only, by responsibility:

  cli.py           the commands (pack, pack-from-build, unpack, run, list, report, floors), their
                   usage and help, the signal handler that ends a part in progress
  plan.py          the parts in a visit's order with their limits; a part walked without running
  floors.py        the floors table: every figure a part checks, read by the checks and rendered
                   into bench/README.md
  part.py          a part being run: scratch folder, log and sections, steps under timeouts
  results.py       a part's data, checks and verdict, and its PART.json
  processes.py     a step's process tree under a timeout
  device.py        the GPU machine: the pack, the results folder, cuBLAS, the card
  packing.py       the pack, made on the build machine and unpacked on the GPU machine
  readers.py       what the steps leave, read back (doctest, sanitizer, benchmark output and JSON)
  kodak.py         scripts/gpu_kodak.sh's verdict on the table its call made
  case_filters.py  the test-case filters the parts give the test binaries, split and matched as
                   doctest does (tests/scripts/case_filters_check.py holds them against the binaries)
  peers.py         the grids and the peers (PyTorch, tiny-cuda-nn), the interop check
  part_quick.py    quick; parts_checks.py and parts_speed.py: the other parts
Tests: tests/scripts/ (a fake device; ctest gpu_check_logic)."""
from .device import Device
from .cli import main

__all__ = ["Device", "main"]
