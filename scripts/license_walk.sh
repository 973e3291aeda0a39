#!/usr/bin/env bash
# Lists what the redraw .deb brings in: its runtime Depends walked transitively (apt-cache), each
# package with the License: fields of its Debian copyright file (installed packages only), GPL
# ones first. For the README's licence section; a redistributor's starting point, not legal advice.
#   scripts/license_walk.sh [PACKAGE...]   (default: the libraries build/bin/redraw NEEDs, by package)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -gt 0 ]; then
  start=("$@")
else
  mapfile -t start < <(readelf -d "$root/build/bin/redraw" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' |
    while read -r lib; do dpkg -S "*/$lib" 2>/dev/null | head -1 | cut -d: -f1; done | sort -u)
fi
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
  "${start[@]}" 2>/dev/null | grep -v '^ ' | grep -v '^<' | sed 's/:.*//' | sort -u |
  while read -r p; do
    f="/usr/share/doc/$p/copyright"
    if [ -f "$f" ]; then
      lic="$( (grep -h '^License:' "$f" || true) | sed 's/License: *//' | sort -u | paste -sd';')"
      [ -n "$lic" ] || lic="(no machine-readable License: fields)"
    else
      lic="(not installed here)"
    fi
    printf '%s\t%s\n' "$p" "$lic"
  done | awk -F'\t' '{ g = ($2 ~ /(^|;)(A?GPL)/) ? 0 : 1; print g "\t" $0 }' | sort -t$'\t' -k1,1 -k2,2 |
  awk -F'\t' '{ printf "%-32s %s\n", $2, $3 }'
