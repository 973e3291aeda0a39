"""Redraw: train a coordinate network on an image, render it at any size (docs/python.md).

The engine is the compiled module redraw._redraw; this file only prepares the process for it.
"""
import os as _os

# OpenMP's idle threads wait as the redraw program has them wait (app/cli_openmp_env.h): a short
# spin, then sleep. libgomp reads this once, when it is loaded, which is when _redraw is imported
# (unless another module loaded it first); on a busy machine the default spin made CPU steps
# about three times slower. OMP_WAIT_POLICY or GOMP_SPINCOUNT set by the user win.
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["GOMP_SPINCOUNT"] = "10000"

from ._redraw import *  # noqa: E402,F401,F403
from ._redraw import __doc__, __version__  # noqa: E402,F401
