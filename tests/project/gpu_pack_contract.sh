#!/usr/bin/env bash
# scripts/gpu_check.py on a machine without a GPU: the pack made from this build is complete
# (every binary the device calls run), under 60 MiB, and self-contained (with its lib/ on the
# library path every dependency resolves, except the driver and cuBLAS, which the GPU machine
# has); and every `run` part says "skipped" with the reason and exits 0.
#   gpu_pack_contract.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src="$1"
build="$2"
. "$(dirname "$0")/../lib.sh"
tmp="$work"
cd "$src"
# xz -1 here, not the pack's -3: less than half the CPU time, and a pack a few MiB larger, so the
# size check below holds a stricter bound than the real pack needs.
REDRAW_PACK_XZ_OPT="-1 -T2" python3 scripts/gpu_check.py pack-from-build "$build" "$tmp/pack"
check_run "every binary of the device calls was packed" test $? -eq 0
mib=$(du -sm "$tmp/pack" | cut -f1)
check_run "the pack is $mib MiB as it travels (limit 60)" test "$mib" -le 60
python3 scripts/gpu_check.py unpack "$tmp/pack"
check_run "it unpacks" test -x "$tmp/pack/bin/redraw"
unresolved="$(for b in "$tmp"/pack/bin/*; do LD_LIBRARY_PATH="$tmp/pack/lib" ldd "$b" | grep 'not found'; done |
  awk '{print $1}' | sort -u)"
echo "unresolved without a GPU machine: $(echo $unresolved)"
check_run "only the driver and cuBLAS are left to the GPU machine" \
  bash -c "! grep -Evq '^(libcuda\.so|libcublas\.so|libcublasLt\.so)' <<<\"$unresolved\" || [ -z \"$unresolved\" ]"
check_run "the test images travel with the pack" test -f "$tmp/pack/samples/horse.png"
out="$(REDRAW_GPU_PACK="$tmp/pack" OUT="$tmp/results" PATH="/usr/bin:/bin" python3 scripts/gpu_check.py run all 2>&1)"
rc=$?
echo "$out" | tail -3
check_run "run all without a device exits 0" test $rc -eq 0
for part in quick tests sanitize sanitize-parity bench accuracy interop torch instant instant-torch profile fullres \
  cpu-threads; do
  check_run "$part.json says skipped, with a reason" python3 -c "
import json,sys; j=json.load(open('$tmp/results/$part.json'))
sys.exit(0 if j['status']=='skipped' and j['reason'] else 1)"
done
python3 scripts/gpu_check.py run nonsense >/dev/null 2>&1
check_run "an unknown part is refused" test $? -eq 2
check_run "an unknown command is a usage error" bash -c "python3 scripts/gpu_check.py frobnicate >/dev/null 2>&1; test \$? -eq 2"
check_run "the report of skipped parts lists every part" bash -c "python3 bench/gpu_report.py '$tmp/results' | grep -c '| skipped |' | grep -qx 13"
finish gpu_pack_contract
