#!/usr/bin/env bash
# Model files whose chunks unpack to gigabytes (tests/model_bombs.py): each opens, or is refused
# naming the chunk, in under 2 s of CPU time and 600 MB of peak memory, in `info` and `render`.
# The CPU bound is for a Release build: it scales by REDRAW_TEST_TIME_FACTOR, which the sanitizer
# stage sets (ASan and UBSan make the same work several times dearer); the bound on memory, which
# counts what the reader allocates, holds in every build.
# The CPU bound is on the reader's own work: what the kernel charges for the memory it holds (its
# peak, which the memory bound caps) is measured on this machine first and left out. A page fault is
# dear on some virtual machines (about 1 s of CPU for 256 MB of fresh pages on one, several times
# less on another), and dearer under load: the file that opens with 256 MB of pictures took 1.1 s
# of CPU quiet and 2.6 s in a busy CI run, nearly all of it the kernel mapping pages.
# An unknown chunk is skipped without being unpacked; a table of 200,000 empty chunks is refused
# from its header, naming the limit. Usage: model_bombs.sh path/to/redraw
set -u
redraw="$1"
. "$(dirname "$0")/../lib.sh"
make_png "$work/img.png" 320 240
"$redraw" train "$work/img.png" --preset instant --steps 3 --out "$work/run" >/dev/null 2>&1 || fail "training the base model"
python3 "$tests_dir/model_bombs.py" "$work/run/model.redraw" "$work" >/dev/null || fail "writing the bombs"

# The CPU time (s) that touching 1 MB of fresh memory costs here: a child that writes one byte to each
# page of 256 MB, less one that does nothing.
fault_s_per_mb=$(python3 - <<'PY'
import resource, subprocess, sys
def child_cpu(code):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, '-c', code], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
idle = child_cpu('pass')
touch = child_cpu('b = bytearray(256 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1')
print('%.6f' % max(0.0, (touch - idle) / 256))
PY
) || fail "measuring what memory costs here"
echo "touching fresh memory costs ${fault_s_per_mb} s of CPU per MB here"
export fault_s_per_mb

# measure KIND CODE NEEDLE COMMAND...: the exit code, the needle in stderr, CPU time and peak RSS
measure() {
  local kind="$1" code="$2" needle="$3"
  shift 3
  python3 - "$code" "$needle" "$kind" "$@" <<'PY'
import os, resource, subprocess, sys
code, needle, kind, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
cpu_bound = 2.0 * float(os.environ.get('REDRAW_TEST_TIME_FACTOR') or 1)
p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu, rss_mb = r.ru_utime + r.ru_stime, r.ru_maxrss / 1024
own = cpu - float(os.environ.get('fault_s_per_mb') or 0) * rss_mb # less what its pages cost the kernel
bad = []
if p.returncode != code: bad.append('exit %d, wanted %d' % (p.returncode, code))
if needle not in p.stderr: bad.append('stderr lacks %r' % needle)
if own >= cpu_bound: bad.append('%.2f s of its own CPU time (bound %.1f s)' % (own, cpu_bound))
if rss_mb >= 600: bad.append('%.0f MB peak' % rss_mb)
print('%s %s: exit %d, %.2f s CPU (%.2f s its own), %.0f MB peak%s' % ('FAIL' if bad else 'ok', kind, p.returncode, cpu,
      own, rss_mb, ' (' + '; '.join(bad) + ')' if bad else ''))
if bad: print(p.stderr[-600:])
sys.exit(1 if bad else 0)
PY
}

# kind|the chunk the error names ('' where the model opens)
cases=(
  "unknown|"
  "meta|chunk META: holds 4294967296 bytes unpacked"
  "meta-runs|chunk META: compressed data runs past"
  "parm|chunk PARM: compressed data runs past"
  "hist|chunk HIST: holds 1099511627776 bytes unpacked"
  "bigframe|chunk FRAM: frame 0: picture size 16384x16384"
  "frames|the frames' pictures come to more than 268435456 bytes"
  "frames-fit|"
  "chunks|is over the limit of 4096 chunks"
)
for c in "${cases[@]}"; do
  IFS='|' read -r kind needle <<<"$c"
  f="$work/bomb-$kind.redraw"
  code=1
  [ -z "$needle" ] && code=0
  measure "info $kind" "$code" "$needle" "$redraw" info "$f" || failures=$((failures + 1))
  measure "render $kind" "$code" "$needle" "$redraw" render "$f" --size 64x48 -o "$work/$kind.png" || failures=$((failures + 1))
  [ "$code" = 1 ] && check "[ ! -e '$work/$kind.png' ]  # render $kind wrote nothing"
done
# Every bomb is well under 10 MB: the floor's files.
check '[ "$(du -b "$work"/bomb-*.redraw | sort -n | tail -1 | cut -f1)" -lt 10000000 ]'
finish model_bombs
