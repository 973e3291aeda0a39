"""The figures a part compares across programs: the grid each was measured on (two grids are alike
when GRID_KEYS agree; no ratio across unlike grids), tiny-cuda-nn's configuration on our grid, the
PyTorch peer's command, and the interop check's command, environment and verdict."""
import os
import sys

from .common import ROOT, grep, load_json
from .floors import fmt_figure
from .readers import collect_instant, our_row, ours

GRID_KEYS = ("levels", "dense_levels", "features_per_level", "log2_hashmap_size", "base_resolution",
             "finest_resolution", "entries")  # two grids are alike when these are equal


def tcnn_config(grid):
    """instant's network in tiny-cuda-nn's terms on GRID, the grid cuda_bench recorded for its run
    ("grid" in its JSON: on a 512x512 image, 16 levels x 2 features, 2^18 rows per hashed level, base
    16 to a finest 512 at scale 32^(1/15), the first 15 levels dense), 2 ReLU layers of 64, sigmoid
    output, MSE, Adam. tiny-cuda-nn gets the same levels, features, table size, base and scale; it
    counts base_resolution in vertices (level l has ceil(base * scale^l - 1) + 1 per side, Redraw's
    floor(base * scale^l) + 1) and picks dense levels by its own rule, so its levels hold up to one
    vertex per side fewer: like grids, not bit-identical ones. It draws its batch of 2^18 from
    camera.png (512x512)."""
    return {
        "loss": {"otype": "L2"},
        "optimizer": {"otype": "Adam", "learning_rate": 1e-2, "beta1": 0.9, "beta2": 0.99, "epsilon": 1e-15,
                      "l2_reg": 0.0},
        "encoding": {"otype": "HashGrid", "n_levels": grid["levels"],
                     "n_features_per_level": grid["features_per_level"],
                     "log2_hashmap_size": grid["log2_hashmap_size"], "base_resolution": grid["base_resolution"],
                     "per_level_scale": grid["per_level_scale"]},
        "network": {"otype": "FullyFusedMLP", "activation": "ReLU", "output_activation": "Sigmoid", "n_neurons": 64,
                    "n_hidden_layers": 2},
    }


def user_grid(size=512):
    """instant's grid on a size x size image as a user's run resolves it (bench/torch_reference.py's
    resolve_grid, the engine's rule in Python), for when cuda_bench recorded none."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import torch_reference  # standard library only at import
    return torch_reference.resolve_grid(torch_reference.load_preset("instant"), size, size)[0]


def unlike_grids(a, b):
    """The GRID_KEYS in which grids A and B differ ([] when either is unknown)."""
    if not a or not b:
        return []
    return [k for k in GRID_KEYS if a.get(k) != b.get(k)]


def grid_text(g):
    return (f"{g['levels']} levels ({g['dense_levels']} dense), 2^{g['log2_hashmap_size']}, scale "
            f"{g['per_level_scale']:.4f}, {g['entries']} rows") if g else "unknown grid"


def our_grid(p):
    """The grid our figure was measured on (cuda_bench's JSON), else a user's as resolved in Python."""
    row = our_row(collect_instant(p.tmp))
    return (row or {}).get("grid") or user_grid()


def torch_cmd(precision, modes, out, presets="instant", sizes="512", steps="200", grid_from=None):
    """bench/torch_reference.py, with the machine's own libraries (no LD_LIBRARY_PATH from the pack);
    GRID_FROM: a cuda_bench JSON whose grid it trains (when that file exists by then)."""
    cmd = ["python3", os.path.join(ROOT, "bench", "torch_reference.py"), "--presets", presets, "--sizes", sizes,
           "--steps", steps, "--precision", precision, "--modes", modes, "--json", out]
    return cmd + (["--grid-from", grid_from] if grid_from and os.path.isfile(grid_from) else [])


def judge_peers(p, name, floor_key, theirs, who, their_grid=None):
    """Our samples/s over THEIRS against the floor; 'who' names them. Failed, without a ratio, when
    THEIR_GRID (when known) is not the grid our figure was measured on."""
    mine = ours(p.data)
    mine_grid = (our_row(p.data) or {}).get("grid")
    if mine is None:
        p.check(name, "failed", "no Redraw figure to compare with (cuda_bench instant auto)")
    elif unlike_grids(mine_grid, their_grid):
        p.check(name, "failed", f"unlike grids, no ratio: ours {grid_text(mine_grid)}, {who} "
                                f"{grid_text(their_grid)} (differ in {', '.join(unlike_grids(mine_grid, their_grid))})")
    else:
        p.judge(name, floor_key, mine / theirs, f"instant {fmt_figure(mine, 'samples/s')} samples/s against {who} "
                                                f"{fmt_figure(theirs, 'samples/s')}: {{}}")


def fullres_unlike(full):
    """'' when full_res_bench's share (FULL: parse_fullres's "fullres") compares like with like, both
    sizes on one known grid; else why it is not comparable, naming both grids."""
    grids = full.get("grids", {})
    big, small = grids.get(str(full.get("full_side"))), grids.get(str(full.get("small_side")))
    if not big or not small or "unknown" in (big, small):
        return (f"not comparable: a grid is unknown ({full.get('full_side')} px: {big or 'unknown'}; "
                f"{full.get('small_side')} px: {small or 'unknown'})")
    if big != small:
        return (f"not comparable: {full['full_side']} px trained {big}, {full['small_side']} px {small} "
                f"(the share {full['share']:.2f} is not judged)")
    return ""


def judge_fullres(p, rc, log_name):
    """The fullres check from p.data["fullres"]: failed without a share, or when its two sizes did not
    train the same grid (fullres_unlike); else the share against fullres_share, the grid named."""
    full = p.data["fullres"]
    if "share" not in full:
        p.check("fullres", "failed", f"the bench gave no share (exit {rc}; see {log_name})")
    elif fullres_unlike(full):
        p.check("fullres", "failed", fullres_unlike(full))
    else:
        grid = full["grids"][str(full["full_side"])]
        p.judge("fullres", "fullres_share", full["share"], f"100 MP at {{}} of 1 MP steps/s, both on {grid}")


def interop_env(p):
    """OpenGL through EGL on the NVIDIA device: glvnd's libEGL (packed) finds the driver's vendor
    library through its JSON file."""
    extra = "".join(":" + d for d in ("/usr/local/nvidia/lib64", "/usr/local/nvidia/lib") if os.path.isdir(d))
    env = p.rx(extra)
    vendor = "/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json"
    if os.path.isfile(vendor):
        env["__EGL_VENDOR_LIBRARY_FILENAMES"] = vendor
    return env


def interop_cmd(p):
    return [p.bin("redraw_interop_check"), "--size", "1024", "--frames", "60", "--image", p.sample("horse"),
            "--json", p.path("interop.json")]


def judge_interop(p, rc, text):
    """The interop check: skipped (77), failed, or its copy + upload time against the floor."""
    p.data.update(load_json(p.path("interop.json"), {}))
    if rc == 77:
        p.check("interop", "skipped", (grep(text, "SKIPPED", 1) or ["skipped"])[0])
    elif rc != 0:
        p.check("interop", "failed", (grep(text, "FAIL|error", 1) or [f"exit {rc}"])[0])
    elif p.data.get("interop", {}).get("copy_upload_ms") is None:
        p.check("interop", "failed", "no copy + upload time in its JSON")
    else:
        p.judge("interop", "interop_copy_upload_ms", p.data["interop"]["copy_upload_ms"],
                "copy + upload {} per 1024x1024 frame")
