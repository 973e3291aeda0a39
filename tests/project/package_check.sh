#!/usr/bin/env bash
# The Debian package (`cpack -G DEB`): lintian finds no error; Depends names no CUDA package and
# covers every shared library that redraw and the CUDA module load (ldd of the unpacked package,
# each library's owner by dpkg -S, against the closure of Depends over the installed packages);
# and, as root, `dpkg -i` installs it, `redraw --version` runs from /usr/bin, and `dpkg --purge`
# removes it again (skipped when redraw was installed before, so a user's install is left alone).
#   package_check.sh BUILD_DIR
set -uo pipefail
build="$(realpath "$1")"
. "$(dirname "$0")/../lib.sh"
require_tools cpack dpkg-deb dpkg-shlibdeps file lintian python3 ldd

# ---- build the package (into the scratch folder, so the build tree gets no stray .deb) ----
(cd "$build" && cpack -G DEB -B "$work/cpack") >"$work/cpack.log" 2>&1
rc=$?
deb="$(ls "$work"/cpack/redraw_*.deb 2>/dev/null | head -1)"
check_run "cpack -G DEB builds redraw_*.deb" test $rc -eq 0 -a -n "$deb"
if [ -z "$deb" ]; then
  tail -20 "$work/cpack.log"
  exit 1
fi
dpkg-deb -f "$deb" Package Version Architecture Installed-Size Depends Suggests
depends="$(dpkg-deb -f "$deb" Depends)"

# ---- lintian ----
lintian --allow-root "$deb" >"$work/lintian.log" 2>&1
cat "$work/lintian.log"
check_run "lintian reports no error" bash -c "! grep -q '^E: ' '$work/lintian.log'"

# ---- Depends ----
check_run "Depends names no CUDA, cuBLAS or NVIDIA package" bash -c "! grep -qiE 'cuda|cublas|nvidia' <<<'$depends'"

dpkg-deb -x "$deb" "$work/root"
elves="$(find "$work/root" -type f -exec sh -c 'head -c4 "$1" | grep -q "ELF" && echo "$1"' _ {} \;)"
check_run "the package holds redraw$(grep -q libredraw_cuda <<<"$elves" && echo ' and the CUDA module')" \
  test -n "$(grep '/usr/bin/redraw$' <<<"$elves")"

# Every library ldd resolves for the package's ELF files must belong to a package in the closure of
# Depends over the installed packages (each name, what it depends on, and so on; alternatives
# count when installed, virtual packages through their providers). The module's own CUDA
# libraries come from NVIDIA, not from Debian, and are optional by design.
python3 - "$depends" "$work/root" $elves >"$work/coverage.log" <<'PY'
import os, re, subprocess, sys

depends, root, elves = sys.argv[1], sys.argv[2], sys.argv[3:]
status = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}\t${Package}\t${Provides}\t${Depends}, ${Pre-Depends}\n"],
                        capture_output=True, text=True).stdout
pkgs, providers = {}, {}
for line in status.splitlines():
    abbrev, name, provides, deps = (line.split("\t") + ["", "", ""])[:4]
    if abbrev.startswith("ii"):
        pkgs[name] = deps
        for p in filter(None, (x.strip().split(" ")[0] for x in provides.split(","))):
            providers.setdefault(p, []).append(name)

def names(field):
    for group in field.split(","):
        for alt in group.split("|"):
            n = re.sub(r"[\s(].*", "", alt.strip()).split(":")[0]
            if n:
                yield n

closure, todo = set(), list(names(depends))
while todo:
    n = todo.pop()
    for real in ([n] if n in pkgs else []) + providers.get(n, []):
        if real not in closure:
            closure.add(real)
            todo.extend(names(pkgs[real]))

needs, problems = [], []  # (elf, soname, path)
for elf in elves:
    out = subprocess.run(["ldd", elf], capture_output=True, text=True).stdout
    for m in re.finditer(r"^\s*(\S+) => (\S+)", out, re.M):
        soname, path = m.groups()
        if re.match(r"lib(cublas|cudart|cuda\.so|nvidia)", soname):
            continue
        rel = os.path.relpath(elf, root)
        if path == "not":
            problems.append(f"/{rel}: {soname} not found")
        else:
            needs.append((rel, soname, path))
paths = sorted({p for _, _, path in needs for p in (path, os.path.realpath(path))})
owner = {}
search = subprocess.run(["dpkg", "-S"] + paths, capture_output=True, text=True).stdout
for line in search.splitlines():
    if line.startswith("diversion"):
        continue
    pkg, _, path = line.partition(": ")
    owner.setdefault(path, pkg.split(",")[0].split(":")[0])
for rel, soname, path in needs:
    pkg = owner.get(os.path.realpath(path)) or owner.get(path)
    if not pkg:
        problems.append(f"/{rel}: {soname} ({path}) belongs to no package")
    elif pkg not in closure:
        problems.append(f"/{rel}: {soname} comes from {pkg}, which Depends does not bring")
print(f"{len({s for _, s, _ in needs})} libraries, {len(closure)} packages in the closure of Depends")
for p in problems:
    print("uncovered: " + p)
PY
cat "$work/coverage.log"
check_run "Depends covers every library that redraw and the module load" \
  test -s "$work/coverage.log" -a -z "$(grep '^uncovered' "$work/coverage.log")"

# ---- dpkg -i, run, dpkg -r ----
if [ "$(id -u)" -ne 0 ]; then
  skip "dpkg -i needs root (CI runs as root)"
elif dpkg-query -W -f='${Status}' redraw 2>/dev/null | grep -q "install ok installed"; then
  skip "a redraw package is installed already; it is left alone"
else
  # Seconds saved where a test install loses nothing: no fsync for the unpack and the MIME
  # database, and the other packages' triggers (desktop, icon, MIME and man databases) run once,
  # after the removal, instead of twice. Another dpkg may hold the lock for a moment (a shared
  # machine): wait for it.
  export PKGSYSTEM_ENABLE_FSYNC=0
  for attempt in 1 2 3 4 5 6; do
    dpkg --force-unsafe-io --no-triggers -i "$deb" >"$work/dpkg.log" 2>&1 && break
    grep -q "lock" "$work/dpkg.log" || break
    sleep 10
  done
  installed_ok=$(dpkg-query -W -f='${Status}' redraw 2>/dev/null | grep -c "install ok installed")
  check_run "dpkg -i installs the package" test "$installed_ok" -eq 1
  [ "$installed_ok" -eq 1 ] || tail -5 "$work/dpkg.log"
  out="$(cd / && env -u REDRAW_ASSETS /usr/bin/redraw --version 2>&1)"; rc=$?
  echo "$out"
  check_run "the installed /usr/bin/redraw --version exits 0" test $rc -eq 0
  check_run "... and uses /usr/share/redraw" grep -qxF "data: /usr/share/redraw (installed)" <<<"$out"
  # The Python module, when the package holds it: it imports from anywhere, finds the installed
  # presets and trains a step on the installed default image.
  # (the listing is taken whole first: grep -q closing the pipe early fails it under pipefail)
  listing="$(dpkg-deb -c "$deb")"
  if grep -q '/dist-packages/redraw/_redraw\.' <<<"$listing"; then
    out="$(cd / && env -u REDRAW_ASSETS -u PYTHONPATH /usr/bin/python3 -c "import redraw; t = redraw.Trainer(redraw.default_image(), size=16, steps=1); t.train(); print(redraw.__file__, t.step_count)" 2>&1)"; rc=$?
    echo "$out"
    check_run "the installed Python module imports and trains" test $rc -eq 0 -a -n "$(grep -E '^/usr/lib/python3.*dist-packages/redraw/__init__\.py 1$' <<<"$out")"
  fi
  # --purge is -r and then forgetting the package, so no "config-files" record stays behind.
  dpkg --force-unsafe-io --no-triggers --purge redraw >"$work/dpkg-r.log" 2>&1
  check_run "dpkg -r (--purge) removes it without a trace, and /usr/bin/redraw with it" \
    test -z "$(dpkg-query -W -f='${Status}' redraw 2>/dev/null | grep -v 'not-installed')" -a ! -e /usr/bin/redraw
  dpkg --triggers-only --pending >"$work/dpkg-t.log" 2>&1
  check_run "the triggers it set off (desktop, icon, MIME, man databases) run cleanly" test $? -eq 0
fi
finish package_check
