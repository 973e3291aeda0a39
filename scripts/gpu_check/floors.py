"""The floors: one table of every figure a part checks, read by the parts that check them (through
Part.judge), by quick's reason (the floors it leaves to other parts) and by the Markdown table that
bench/README.md quotes between its marker comments (`scripts/gpu_check.py floors --markdown`;
`floors --into bench/README.md` rewrites it there). Change a floor here, then rewrite the table."""
from typing import NamedTuple, Tuple


class Floor(NamedTuple):
    name: str
    op: str  # ">=" (at least) or "<=" (at most)
    value: float
    unit: str  # how the figure prints: "samples/s", "x", "ms" or "share"
    cards: Tuple[str, ...]  # checked only on these cards (a part of the name nvidia-smi gives), else () on any
    parts: Tuple[str, ...]  # the parts that check it
    what: str  # what the figure compares


# Every floor a part checks its figures against (a figure that misses one fails its part).
FLOOR_LIST = (
    Floor("instant_samples_per_s", ">=", 3.0e8, "samples/s", ("H100", "H200"), ("quick", "instant"),
          "instant's training samples/s at batch 2^18, default kernels, precision auto; an H100's figure, "
          "which an H200 (the same GH100 die, with more memory bandwidth) must meet too "
          "(on other cards the figure and its share of this floor are reported)"),
    Floor("instant_over_tcnn", ">=", 1.0, "x", (), ("quick",),
          "instant's samples/s over tiny-cuda-nn's on the same configuration, same call"),
    Floor("instant_over_torch", ">=", 1.0, "x", (), ("quick", "instant-torch"),
          "instant's samples/s over the fastest PyTorch hash grid's, same call"),
    Floor("shared_dense_over_per_sample", ">=", 1.0, "x", (), ("quick",),
          "the default (shared-dense) hash-grid backward's samples/s over the per-sample one's, same call, "
          "on a user's grid and on the preset's unsized one (the lower of the two): the default must not be slower"),
    Floor("interop_copy_upload_ms", "<=", 1.0, "ms", (), ("quick", "interop"),
          "CUDA-GL copy + texture upload per 1024x1024 frame (0.64 ms on an H100)"),
    Floor("fullres_share", ">=", 0.80, "share", (), ("quick", "fullres"),
          "instant's steps/s at 100 MP over its steps/s at 1 MP, both on the 100 MP picture's grid "
          "(4.10 M rows; full_res_bench.sh --same-grid): unlike grids are not comparable"),
    Floor("cpu_threads_instant", ">=", 8.0, "x", (), ("cpu-threads",),
          "instant's CPU steps/s at 16 threads over 1 thread (256x256, its CPU batch of 2^14)"),
    Floor("cpu_threads_fourier", ">=", 8.0, "x", (), ("cpu-threads",),
          "fourier's CPU steps/s at 16 threads over 1 thread (256x256, full batch)"),
)
FLOORS = {f.name: f for f in FLOOR_LIST}

README_BEGIN = ("<!-- floors: generated from scripts/gpu_check/floors.py by "
                "`python3 scripts/gpu_check.py floors --into bench/README.md`; edit there, not here -->")
README_END = "<!-- floors end -->"


def fmt_figure(value, unit):
    if unit == "samples/s":
        mantissa, exponent = f"{value:.2e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "ms":
        return f"{value:.3f} ms"
    return f"{value:.2f}"


def met(floor, figure):
    return figure >= floor.value if floor.op == ">=" else figure <= floor.value


def verdict(floor, figure, card, label="{}"):
    """(status, detail) of FIGURE against FLOOR on the card named CARD: "ok", "failed", or
    "reported" (a floor of another card: the figure and its share of the floor, not judged).
    LABEL frames the figure as printed ("{} samples/s")."""
    shown, limit = fmt_figure(figure, floor.unit), fmt_figure(floor.value, floor.unit)
    word = "floor" if floor.op == ">=" else "limit"
    if floor.cards and not any(c in card for c in floor.cards):
        share = f"{figure / floor.value:.2f} of the {cards_text(floor)} {word} {limit}"
        return "reported", (label.format(shown) + f" ({share}; checked on an {cards_text(floor)} only, this is "
                                                  f"{card or 'an unknown card'})")
    if met(floor, figure):
        return "ok", label.format(shown) + f" ({word} {limit})"
    return "failed", label.format(shown) + f", {'under' if floor.op == '>=' else 'over'} the {word} {limit}"


def cards_text(floor):
    """The cards FLOOR is checked on, in words ("H100 or H200")."""
    return " or ".join(floor.cards)


def floors_elsewhere(part="quick"):
    """The reason's last words for PART: the floors it does not check, and the parts that do."""
    left = [f for f in FLOOR_LIST if part not in f.parts]
    if not left:
        return ""
    parts = sorted({p for f in left for p in f.parts})
    return f"not part of {part}: {', '.join(f.name for f in left)} (run {', '.join(parts)})"


def bound_text(floor):
    return f"{'at least' if floor.op == '>=' else 'at most'} {fmt_figure(floor.value, floor.unit)}" + (
        " samples/s" if floor.unit == "samples/s" else "")


def text_table():
    """The floors as `floors` prints them: one line each."""
    return [f"{f.name:28} {bound_text(f):26} {'on an ' + cards_text(f) if f.cards else 'any card':18} "
            f"{', '.join(f.parts):20} {f.what}" for f in FLOOR_LIST]


def markdown_table():
    """The floors as bench/README.md quotes them, between README_BEGIN and README_END."""
    lines = ["| floor | figure | what it compares | checked by | card |", "|---|---|---|---|---|"]
    for f in FLOOR_LIST:
        card = f"an {cards_text(f)} (elsewhere reported)" if f.cards else "any"
        lines.append(f"| `{f.name}` | {bound_text(f)} | {f.what.replace('|', '/')} | "
                     f"{', '.join('`' + p + '`' for p in f.parts)} | {card} |")
    return lines


def quoted_table(text):
    """The lines between the marker comments of TEXT (a README), or None without both markers."""
    lines = text.splitlines()
    if README_BEGIN not in lines or README_END not in lines:
        return None
    begin, end = lines.index(README_BEGIN), lines.index(README_END)
    return lines[begin + 1:end] if begin < end else None


def with_table(text):
    """TEXT with the table between its markers regenerated (None without both markers)."""
    if quoted_table(text) is None:
        return None
    lines = text.splitlines()
    begin, end = lines.index(README_BEGIN), lines.index(README_END)
    return "\n".join(lines[:begin + 1] + markdown_table() + lines[end:]) + ("\n" if text.endswith("\n") else "")
