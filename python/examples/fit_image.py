"""Fit an image with two presets, plot their PSNR curves and render the better one at 4x.

    python3 fit_image.py [IMAGE] [--presets instant,siren] [--steps 300] [--size 128] [--out fit-out]

Writes OUT/psnr.png (with matplotlib; OUT/psnr.csv always) and OUT/<preset>_4x.npy, and prints
each preset's final PSNR. docs/python.md walks through it.
"""
import argparse
import os

import numpy as np

import redraw


def fit(image, preset, steps, size):
    trainer = redraw.Trainer(image, preset=preset, size=size, steps=steps)
    trainer.train(callback=lambda step, loss, psnr: print(f"  {preset} step {step}: PSNR {psnr:.2f} dB") or True)
    return trainer


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("image", nargs="?", help="image file (default: Redraw's drawing)")
    p.add_argument("--presets", default="instant,siren")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--size", type=int, default=128, help="longest training side")
    p.add_argument("--out", default="fit-out")
    a = p.parse_args()
    image = a.image or redraw.default_image()
    os.makedirs(a.out, exist_ok=True)

    runs = {name: fit(image, name, a.steps, a.size) for name in a.presets.split(",")}
    with open(os.path.join(a.out, "psnr.csv"), "w") as f:
        f.write("preset,step,psnr_db\n")
        for name, t in runs.items():
            for step, psnr in zip(t.metrics["step"], t.metrics["psnr_db"]):
                f.write(f"{name},{step},{psnr:.4f}\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        for name, t in runs.items():
            plt.plot(t.metrics["step"], t.metrics["psnr_db"], label=name)
        plt.xlabel("step")
        plt.ylabel("PSNR (dB)")
        plt.legend()
        plt.savefig(os.path.join(a.out, "psnr.png"), dpi=100)
    except ImportError:
        print("matplotlib is not installed: the curves are in psnr.csv only")

    best = max(runs, key=lambda name: runs[name].metrics["psnr_db"][-1])
    w, h = runs[best].size
    big = runs[best].render(4 * w, 4 * h)  # the network draws the lines again, at 4x
    np.save(os.path.join(a.out, f"{best}_4x.npy"), big)
    for name, t in runs.items():
        print(f"{name}: {t.metrics['psnr_db'][-1]:.2f} dB after {t.step_count} steps")
    print(f"best: {best}, rendered at {4 * w}x{4 * h} -> {a.out}/{best}_4x.npy")


if __name__ == "__main__":
    main()
