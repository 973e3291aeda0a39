#!/usr/bin/env bash
# A sweep's report.html in headless Chromium: it renders with no console message at all (a page
# with an error is caught the same way, so the check can fail), its tables, thumbnails and curves
# are in the DOM, it needs no network, and #sort=psnr_db:desc opens it sorted by PSNR.
# Usage: sweep_report.sh path/to/redraw [SCREENSHOT.png]
set -u
redraw="$1"
shot="${2:-}"
. "$(dirname "$0")/../lib.sh"
require_tools chromium python3
make_png "$work/a.png" 40 24
make_png "$work/b.png" 24 24
tiny_config "$work/tiny.json" 60 5 adam
check_run "a 4-cell sweep" "$redraw" sweep --images "$work/a.png" "$work/b.png" --presets "$work/tiny.json" \
  --set schedule.lr_max=0.01,0.001 --out "$work/s"
page="$work/s/report.html"

# chrome ARGS...: headless Chromium as root, a fresh profile each time, nothing fetched.
chrome() {
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$(mktemp -d -p "$work")" \
    --enable-logging=stderr --v=0 "$@"
}
# console_messages LOG: the page's console lines (an uncaught error is one).
console_messages() { grep -E ':CONSOLE[:(]|Uncaught' "$1"; }

printf '<!DOCTYPE html><html><body><p>x</p><script>noSuchFunction();</script></body></html>' >"$work/bad.html"
chrome --dump-dom "file://$work/bad.html" >"$work/bad.dom" 2>"$work/bad.log"
check_run "the check catches a page with an uncaught error" console_messages "$work/bad.log"

chrome --dump-dom "file://$page" >"$work/dom.html" 2>"$work/dom.log"
check "[ -s '$work/dom.html' ]"
if console_messages "$work/dom.log"; then fail "report.html wrote to the console"; else ok "no console message"; fi
check 'grep -q "<table class=\"sortable\" id=\"results\">" "$work/dom.html" && grep -q "id=\"summary\"" "$work/dom.html"'
check '[ $(grep -o "<img class=\"thumb\"[^>]*src=\"data:image/png;base64," "$work/dom.html" | wc -l) = 4 ]  # a thumbnail per cell'
check '[ $(grep -o "<polyline" "$work/dom.html" | wc -l) = 4 ]  # a curve per cell'
check '! grep -qE "(src|href)=\"(https?:)?//" "$page"  # nothing from the network'

# The PSNR column of the results table, in the order the DOM shows it.
psnr_order() {
  python3 - "$1" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
table = html[html.index('id="results"'):]
heads = re.findall(r'<th[^>]*>(.*?)</th>', table[:table.index('</thead>')])
col = heads.index('psnr_db')
rows = re.findall(r'<tr>(.*?)</tr>', table[table.index('<tbody>'):table.index('</tbody>')], re.S)
print(' '.join(re.findall(r'<td[^>]*>(.*?)</td>', r, re.S)[col] for r in rows))
PY
}
chrome --dump-dom "file://$page#sort=psnr_db:desc" >"$work/sorted.html" 2>"$work/sorted.log"
order="$(psnr_order "$work/sorted.html")"
echo "sorted by PSNR, descending: $order"
check "[ '$order' = \"\$(tr ' ' '\n' <<<'$order' | sort -rg | tr '\n' ' ' | sed 's/ \$//')\" ]"
check "[ '$order' != '$(psnr_order "$work/dom.html")' ] || [ \$(tr ' ' '\n' <<<'$order' | sort -u | wc -l) = 1 ]  # the sort changed the order"
if console_messages "$work/sorted.log"; then fail "the sorted report wrote to the console"; else ok "sorted: no console message"; fi

if [ -n "$shot" ]; then # a screenshot of this small report (docs/sweep_report.png is taken the same way)
  chrome --screenshot="$shot" --window-size=1280,1500 --hide-scrollbars "file://$page" >/dev/null 2>&1
  check "[ -s '$shot' ]"
fi
finish sweep_report
