#!/usr/bin/python3
"""PSNR of a picture against a reference photo, by tools independent of Redraw: Pillow decodes
both files (its own libjpeg and zlib paths, not libvips) and, when the picture is smaller,
resizes it to the reference's size with Pillow's bicubic filter; numpy computes the mean squared
error over every pixel and channel of the 8-bit RGB values (peak 255).
  independent_psnr.py REFERENCE PICTURE [PICTURE ...]   -> one line "PICTURE W x H -> PSNR dB" each
Needs python3-pil and python3-numpy (Debian: apt-get install python3-pil python3-numpy)."""
import sys

import numpy as np
from PIL import Image

Image.MAX_IMAGE_PIXELS = None  # a 100-megapixel reference is expected here, not a decompression bomb


def rgb(path):
    return Image.open(path).convert("RGB")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    ref_img = rgb(argv[1])
    ref = np.asarray(ref_img, dtype=np.float64)
    for path in argv[2:]:
        pic = rgb(path)
        size = pic.size
        if pic.size != ref_img.size:
            pic = pic.resize(ref_img.size, Image.BICUBIC)
        err = np.mean((np.asarray(pic, dtype=np.float64) - ref) ** 2)
        psnr = float("inf") if err == 0 else 10 * np.log10(255.0**2 / err)
        print(f"{path} {size[0]} x {size[1]} -> {psnr:.3f} dB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
