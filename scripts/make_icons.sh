#!/usr/bin/env bash
# Renders assets/icons/redraw.svg to the PNG sizes a desktop install needs (assets/icons/png/,
# committed, so building needs no SVG renderer). Run after editing the SVG; needs rsvg-convert
# (apt-get install librsvg2-bin).
set -euo pipefail
cd "$(dirname "$0")/../assets/icons"
command -v rsvg-convert >/dev/null || { echo "make_icons: rsvg-convert not found (apt-get install librsvg2-bin)" >&2; exit 1; }
mkdir -p png
for size in 16 22 24 32 48 64 128 256 512; do
  rsvg-convert --width "$size" --height "$size" redraw.svg --output "png/redraw-$size.png"
done
echo "make_icons: $(ls png | tr '\n' ' ')"
