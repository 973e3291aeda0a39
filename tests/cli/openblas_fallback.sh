#!/usr/bin/env bash
# When OpenBLAS falls back to kernels without AVX on a processor it does not know (a preloaded
# stand-in reports Prescott until OPENBLAS_CORETYPE is set), redraw re-executes itself with the
# family the CPU's features choose, says so in --version and `info --backends`, and trains with the
# same bits as under that family set by hand; a user's OPENBLAS_CORETYPE wins.
#   tests/cli/openblas_fallback.sh REDRAW_BINARY SHIM.so
set -u
redraw="$1"
shim="$2"
. "$(dirname "$0")/../lib.sh"
# The choice is redraw's only where nobody made it: a machine whose environment already sets the
# family (one here sets OPENBLAS_CORETYPE=Haswell for every process) would make every line below the
# user's choice. The cases that set it do so themselves.
unset OPENBLAS_CORETYPE
flags=" $(grep -m1 '^flags' /proc/cpuinfo) "
has() { [[ "$flags" == *" $1 "* ]]; }
if has avx512f && has avx512bw && has avx512dq && has avx512vl && has avx2 && has fma; then family=SkylakeX; why=AVX-512
elif has avx2 && has fma; then family=Haswell; why=AVX2
elif has avx; then family=Sandybridge; why=AVX
else
  echo "SKIP: this CPU has no AVX: OpenBLAS's own SSE kernels are the only choice"
  exit 77
fi

# Without the stand-in: OpenBLAS knows this processor, and an AVX family runs.
"$redraw" info --backends >"$work/plain.txt" 2>&1
check "grep -Eq 'OpenBLAS (Sandybridge|Haswell|SkylakeX|Cooperlake|SapphireRapids|Zen|Bulldozer|Piledriver|Steamroller|Excavator) kernels' '$work/plain.txt'"

want="OpenBLAS $family kernels (chosen from the CPU's features: $why; OpenBLAS fell back to Prescott)"
LD_PRELOAD="$shim" "$redraw" info --backends >"$work/fallback.txt" 2>&1
check "grep -qF \"$want\" '$work/fallback.txt'"
LD_PRELOAD="$shim" "$redraw" --version >"$work/version.txt" 2>&1
check "grep -qF \"cpu kernels: $want\" '$work/version.txt'"
# The user's variable wins, even a poor choice: no re-execution, said as set.
LD_PRELOAD="$shim" OPENBLAS_CORETYPE=Prescott "$redraw" info --backends >"$work/user.txt" 2>&1
check "grep -qF 'OpenBLAS Prescott kernels (OPENBLAS_CORETYPE=Prescott)' '$work/user.txt'"

# Training after the fall-back is training under the chosen family: the same weights.
make_png "$work/img.png" 48 40
LD_PRELOAD="$shim" "$redraw" train "$work/img.png" --preset siren --backend cpu --steps 6 --out "$work/chosen" --quiet \
  >/dev/null 2>&1 || fail "training after the fall-back"
OPENBLAS_CORETYPE="$family" "$redraw" train "$work/img.png" --preset siren --backend cpu --steps 6 --out "$work/set" \
  --quiet >/dev/null 2>&1 || fail "training under $family"
f1=$("$redraw" info "$work/chosen/model.redraw" | grep -o 'fingerprint [0-9a-f]*')
f2=$("$redraw" info "$work/set/model.redraw" | grep -o 'fingerprint [0-9a-f]*')
check "[ -n '$f1' ] && [ '$f1' = '$f2' ]  # the same weights ($f1 / $f2)"
# ... and not Prescott's, which gives other bits: the comparison can tell the kernels apart.
OPENBLAS_CORETYPE=Prescott "$redraw" train "$work/img.png" --preset siren --backend cpu --steps 6 --out "$work/sse" \
  --quiet >/dev/null 2>&1 || fail "training under Prescott"
f3=$("$redraw" info "$work/sse/model.redraw" | grep -o 'fingerprint [0-9a-f]*')
check "[ -n '$f3' ] && [ '$f3' != '$f1' ]  # Prescott's weights differ ($f3)"
finish openblas_fallback
