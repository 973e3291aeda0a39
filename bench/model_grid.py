#!/usr/bin/env python3
"""The hash grid of a saved model in one line, from `redraw info --json MODEL` on stdin, as
engine/model_spec.cpp resolves it (bench/torch_reference.py's resolve_grid, standard library only):
"16 levels (14 dense), 2^19 rows per hashed level, finest 1000, 1830000 rows". A model without a
hash grid prints "no hash grid"; input that is not a model's info prints "unknown" (exit 1).
bench/full_res_bench.sh prints it for each training size, so its share names the grids it compares."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_reference  # noqa: E402  (standard library only at import)


def grid_line(info):
    """The grid of the model whose `redraw info --json` is INFO, in words."""
    enc = info["config"]["model"]["encoding"]
    if enc.get("otype") != "HashGrid":
        return "no hash grid"
    g = torch_reference.resolve_grid(enc, int(info["image_width"]), int(info["image_height"]))[0]
    return (f"{g['levels']} levels ({g['dense_levels']} dense), 2^{g['log2_hashmap_size']} rows per hashed level, "
            f"finest {g['finest_resolution']}, {g['entries']} rows")


if __name__ == "__main__":
    try:
        print(grid_line(json.load(sys.stdin)))
    except (ValueError, KeyError, TypeError):
        print("unknown")
        sys.exit(1)
