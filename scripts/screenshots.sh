#!/usr/bin/env bash
# Takes the README's screenshot from the app as a user first sees it: a fresh settings folder (the
# first launch: the `instant` preset on the bundled drawing), the CPU backend, 1600x1000 under Xvfb,
# after STEPS steps of training (default 300). Writes assets/screenshot.png (or OUT).
#   scripts/screenshots.sh [STEPS] [OUT]
# Needs a built redraw (scripts/build.sh) and xvfb-run (scripts/install_deps.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
steps="${1:-300}"
out="${2:-assets/screenshot.png}"
[ -x build/bin/redraw ] || bash scripts/build.sh
command -v xvfb-run >/dev/null || { echo "screenshots: xvfb-run is not installed (scripts/install_deps.sh)"; exit 1; }
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" REDRAW_ASSETS="$PWD/assets" \
  xvfb-run -a -s "-screen 0 1600x1000x24" build/bin/redraw gui --backend cpu \
  --screenshot "$home/shot.png" --screenshot-after-steps "$steps"
mv "$home/shot.png" "$out"
echo "screenshots: $out ($steps steps, first launch)"
