#!/usr/bin/env bash
# One command: installs what is missing, builds, and launches Redraw on the bundled default image
# (or on the image / arguments given).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >&2
exec ./build/bin/redraw "$@"
