#!/usr/bin/env bash
# `cmake --install` gives a working desktop program that needs neither the build tree nor the
# source tree: installed into a prefix, the prefix is moved elsewhere, and the installed redraw is
# run from an unrelated folder with REDRAW_ASSETS unset. It must report its version, find its
# data and GPU module beside itself, train with a preset, and open its window (screenshot under
# Xvfb). The desktop files pass their validators.
#   install_check.sh BUILD_DIR PROJECT_VERSION CUDA_BUILT(ON|OFF) GUI_BUILT(ON|OFF) [GUI_CONFIG.json]
set -uo pipefail
build="$1"
version="$2"
cuda_built="$3"
gui_built="$4"
gui_config="${5:+$(realpath "$5")}"
. "$(dirname "$0")/../lib.sh"
require_tools cmake readelf python3 desktop-file-validate appstreamcli xmllint update-mime-database
on() { [ "$1" = ON ] || [ "$1" = 1 ] || [ "$1" = TRUE ]; }

# ---- install, then move the prefix: nothing may point back at the build ----
cmake --install "$build" --prefix "$work/stage" >"$work/install.log" 2>&1
check_run "cmake --install into a prefix" test $? -eq 0 -a -x "$work/stage/bin/redraw"
mv "$work/stage" "$work/moved"
prefix="$work/moved"
redraw="$prefix/bin/redraw"
cd "$work"
unset REDRAW_ASSETS REDRAW_CUDA_PLUGIN
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"

out="$("$redraw" --version 2>&1)"; rc=$?
echo "$out"
check_run "--version exits 0" test $rc -eq 0
check_run "... and starts with 'redraw $version'" grep -q "^redraw $version\b" <<<"$out"
check_run "... finds the data installed beside it ($prefix/share/redraw)" \
  grep -qxF "data: $prefix/share/redraw (installed)" <<<"$out"
if on "$cuda_built"; then
  module="$(find "$prefix" -name libredraw_cuda.so)"
  check_run "the CUDA module is installed under <libdir>/redraw" test -n "$module" -a "$(basename "$(dirname "$module")")" = redraw
  check_run "... and --version finds it there" grep -qxF "cuda module: $module" <<<"$out"
  runpath="$(readelf -d "$module" | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]$/\2/p')"
  check_run "... with no RUNPATH but \$ORIGIN (got: ${runpath:-none}; Debian policy)" \
    test -z "$runpath" -o "$runpath" = '$ORIGIN'
  check_run "... named in --version's backends" grep -q "cuda (run-time module" <<<"$out"
  # Load it (no driver needed for that) from the test binary: it must link and find cuBLAS
  # without a RUNPATH into the toolkit; then again with the library cache hidden, when a mount
  # namespace may be made, so that only the loader's own search finds cuBLAS.
  load_module() { env REDRAW_TEST_INSTALLED_MODULE="$module" "$build/bin/redraw_tests" \
    -tc="cuda module: an installed module*" 2>&1; }
  out="$(load_module)"; rc=$?
  check_run "the installed module loads and finds cuBLAS" test $rc -eq 0
  [ $rc -eq 0 ] || echo "$out" | tail -5
  if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
    out="$(export -f load_module; module="$module" build="$build" \
           unshare -m bash -c 'mount --bind /dev/null /etc/ld.so.cache && load_module')"; rc=$?
    check_run "... and without the library cache, through the loader's search of the CUDA folders" test $rc -eq 0
    [ $rc -eq 0 ] || echo "$out" | tail -5
  else
    skip "cannot hide the library cache here (needs root and a mount namespace)"
  fi
else
  check_run "--version says CUDA is not compiled in" grep -q "cuda not compiled in" <<<"$out"
fi
check_run "redraw has no RUNPATH into the build tree" bash -c "! readelf -d '$redraw' | grep -qE 'RUNPATH|RPATH'"

out="$("$redraw" info --backends 2>&1)"; rc=$?
echo "$out"
check_run "info --backends exits 0 and lists the CPU" test $rc -eq 0 -a -n "$(grep '^cpu: ' <<<"$out")"

out="$("$redraw" train "$prefix/share/redraw/default.png" --preset siren --size 24x20 --steps 5 --backend cpu \
       --out "$work/run" --quiet 2>&1)"; rc=$?
echo "$out" | tail -3
check_run "train --preset siren from the installed presets exits 0" test $rc -eq 0
check_run "... and writes model.redraw, final.png and metrics.csv" \
  test -f "$work/run/model.redraw" -a -f "$work/run/final.png" -a -f "$work/run/metrics.csv"
out="$("$redraw" train "$prefix/share/redraw/default.png" --preset nosuch --steps 1 --out "$work/x" 2>&1)"
presets_known="$(ls "$prefix/share/redraw/presets" | sed -n 's/\.json$//p' | sort | paste -sd, - | sed 's/,/, /g')"
check_run "an unknown preset lists the installed ones ($presets_known)" \
  grep -q "known: $presets_known" <<<"$out"
# `redraw bench` reads its published rows from the installed data folder before it plans anything.
mkdir -p "$work/bench-images" && cp "$prefix/share/redraw/default.png" "$work/bench-images/"
out="$("$redraw" bench kodak-minute --methods instant --images "$work/bench-images" --out "$work/bench" --dry-run 2>&1)"; rc=$?
check_run "bench --dry-run finds the installed published rows (share/redraw/published/kodak.json)" \
  test $rc -eq 0 -a -f "$prefix/share/redraw/published/kodak.json"
out="$("$redraw" bench smoke --out "$work/smoke" --dry-run 2>&1)"; rc=$?
check_run "bench smoke --dry-run takes the installed default.png by default" \
  test $rc -eq 0 -a -n "$(grep -F "images    default.png ($prefix/share/redraw/default.png)" <<<"$out")"

# ---- the window, from the installed path: the bundled image, the About box ----
if ! on "$gui_built"; then
  skip "GUI not built"
elif ! command -v xvfb-run >/dev/null; then
  skip "xvfb-run not found (apt-get install xvfb xauth)"
else
  cp "$gui_config" "$work/tiny.json"
  xvfb-run -a -s "-screen 0 1280x800x24" "$redraw" gui --preset "$work/tiny.json" --backend cpu --about \
    --screenshot "$work/about.png" --screenshot-after-steps 2 >"$work/gui.log" 2>&1
  rc=$?
  tail -3 "$work/gui.log"
  check_run "the installed app opens on the bundled image and writes a screenshot (exit $rc)" \
    test $rc -eq 0 -a -f "$work/about.png"
  [ -f "$work/about.png" ] && check_run "... of the whole window (1280x800, got $(png_size "$work/about.png"))" \
    test "$(png_size "$work/about.png")" = 1280x800
  mkdir -p "$build/install_test" && cp "$work/about.png" "$build/install_test/" 2>/dev/null # to look at
fi

# ---- desktop integration files (only with the desktop app) ----
if ! on "$gui_built"; then
  check_run "no desktop entry without the desktop app" test ! -e "$prefix/share/applications/redraw.desktop"
else
  desktop="$prefix/share/applications/redraw.desktop"
  check_run "desktop-file-validate redraw.desktop" desktop-file-validate "$desktop"
  check_run "... which passes files to redraw (Exec=redraw %f) and declares application/x-redraw" \
    bash -c "grep -qx 'Exec=redraw %f' '$desktop' && grep -q '^MimeType=application/x-redraw;' '$desktop'"
  metainfo="$(ls "$prefix"/share/metainfo/*.metainfo.xml)"
  check_run "appstreamcli validate --no-net $(basename "$metainfo")" appstreamcli validate --no-net "$metainfo"
  check_run "... with a screenshot and the desktop entry as its launchable" \
    bash -c "grep -q '<screenshot type=\"default\">' '$metainfo' && grep -q '>redraw.desktop</launchable>' '$metainfo'"
  mime="$prefix/share/mime/packages/redraw.xml"
  check_run "xmllint: the MIME file is well-formed" xmllint --noout "$mime"
  mkdir -p "$work/mime/packages" && cp "$mime" "$work/mime/packages/"
  update-mime-database "$work/mime" >/dev/null 2>&1
  check_run "update-mime-database reads it: *.redraw is application/x-redraw" \
    grep -qE '^[0-9]+:application/x-redraw:\*\.redraw$' "$work/mime/globs2"
  check_run "... and so is a file starting with RDRWMODL" grep -qa "RDRWMODL" "$work/mime/magic"
  check_run "the scalable icon is installed" test -f "$prefix/share/icons/hicolor/scalable/apps/redraw.svg"
  xmllint --noout "$prefix/share/icons/hicolor/scalable/apps/redraw.svg" || failures=$((failures + 1))
  for size in 16 22 24 32 48 64 128 256 512; do
    png="$prefix/share/icons/hicolor/${size}x${size}/apps/redraw.png"
    got="$([ -f "$png" ] && png_size "$png")"
    check_run "icon ${size}x${size} is a ${size}x${size} PNG (got ${got:-none})" test "$got" = "${size}x${size}"
  done
fi

# ---- man page and completions ----
man_page="$prefix/share/man/man1/redraw.1.gz"
if [ -f "$man_page" ] && command -v man >/dev/null; then
  warnings="$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$man_page" 2>&1 >/dev/null)"
  check_run "the man page formats without warnings${warnings:+: $warnings}" test -z "$warnings"
  check_run "... and covers every command" bash -c "zcat '$man_page' | grep -c '^\.SS \"redraw ' | grep -qx 5"
else
  skip "no man page (help2man was not found at build time) or no man to format it"
fi
check_run "the bash completion is installed and parses" bash -n "$prefix/share/bash-completion/completions/redraw"
check_run "the zsh completion is installed" test -f "$(find "$prefix/share/zsh" -name _redraw)"
finish install_check
