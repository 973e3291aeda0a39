#!/usr/bin/env bash
# Builds Redraw (scripts/build.sh) and its Debian package, build/redraw_VERSION_ARCH.deb, and
# prints its path. Install it with `sudo apt install ./build/redraw_*.deb`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >&2
cd build
cpack -G DEB >&2
ls "$PWD"/redraw_*.deb
