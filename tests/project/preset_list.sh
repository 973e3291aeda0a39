#!/usr/bin/env bash
# One table per vocabulary (docs/architecture.md): the presets are the files in assets/presets/. A
# new preset is its JSON file and a row in the README's preset table; every list of them a user sees
# is read from the folder (engine/run_config.h: preset_names):
# - the README's table has exactly one row per file, and no row without a file;
# - no code or packaging file spells the list by hand (it drifted once in the man page);
# - a preset dropped into a copy of the assets folder is at once in `redraw train --help` (and so in
#   the man page, which help2man makes from it), `redraw gui --help`, `redraw sweep --help`, and is
#   trained by name; the man page's FILES list is made from the folder (packaging/man_page.cmake).
#   preset_list.sh path/to/redraw SOURCE_DIR
set -uo pipefail
redraw="$(realpath "$1")"
src="$(realpath "$2")"
. "$(dirname "$0")/../lib.sh"

files=$(cd "$src/assets/presets" && ls -1 -- *.json | sed 's/\.json$//' | sort)
rows=$(sed -nE 's/^\| `([a-z0-9-]+)` \|.*/\1/p' "$src/README.md" | sort)
check_run "the README's preset table has a row per preset file and no other ($(echo "$files" | wc -l) files)" \
  test "$files" = "$rows"
[ "$files" = "$rows" ] || diff <(echo "$files") <(echo "$rows") | sed 's/^/  /'

# A hand-kept list: three or more preset names in a row, comma-separated, outside assets/ and tests/.
names=$(echo "$files" | paste -sd'|')
hand=$(grep -rnE "($names)\\\\?, ($names)\\\\?, ($names)\b" "$src/app" "$src/ui" "$src/engine" "$src/python" \
         "$src/packaging" --include='*.cpp' --include='*.h' --include='*.py' --include='*.h2m' --include='*.cmake' \
         --include='*.in' 2>/dev/null | sed 's/\\-/-/g' | grep -vE '^\S*:[0-9]+:\s*(//|#)')
check_run "no code or packaging file lists the presets by hand" test -z "$hand"
[ -z "$hand" ] || echo "$hand" | sed 's/^/  /'

# A new preset in a copy of the assets: one file, nothing else edited.
mkdir -p "$work/assets"
cp -r "$src/assets/presets" "$src/assets/default.png" "$work/assets/"
sed 's/"name": "siren"/"name": "zz-extra"/' "$src/assets/presets/siren.json" >"$work/assets/presets/zz-extra.json"
for cmd in train gui sweep; do
  help=$(REDRAW_ASSETS="$work/assets" "$redraw" "$cmd" --help 2>&1)
  check_run "'redraw $cmd --help' lists a preset that is only a file in the folder" \
    grep -q "siren, wire, zz-extra" <<<"$help"
done
check_run "a preset that is only a file trains by its name" \
  env REDRAW_ASSETS="$work/assets" "$redraw" train "$src/assets/default.png" --preset zz-extra --steps 2 --size 24x24 \
  --backend cpu --out "$work/run"
check_run "an unknown preset's error lists the folder's presets" \
  bash -c "REDRAW_ASSETS='$work/assets' '$redraw' train '$src/assets/default.png' --preset nope --out '$work/x' 2>&1 |
           grep -q 'known: classic, .*, zz-extra'"
if command -v help2man >/dev/null; then
  REDRAW_ASSETS="$work/assets" cmake -DREDRAW="$redraw" -DHELP2MAN="$(command -v help2man)" -DVERSION=0 \
    -DINCLUDE="$src/packaging/redraw.h2m" -DPRESETS="$work/assets/presets" -DOUT="$work/redraw.1" \
    -P "$src/packaging/man_page.cmake" >/dev/null 2>&1
  check_run "the man page's FILES section lists the folder's presets" \
    bash -c "zcat '$work/redraw.1.gz' | grep -q 'The presets (classic, classic\\\\-sgd, .*, zz\\\\-extra)'"
else
  echo "skip: help2man is not installed; the man page's list is not checked"
fi
finish preset_list
