#!/usr/bin/env bash
# `redraw train` at --threads 1 and --threads 2 ends with bit-identical weights (`info`'s
# fingerprint) and a byte-identical final.png,
# for siren (sgemm layers, full batch, several chunks) and instant (hash grid, thin layers,
# minibatches), under this CPU's own OpenBLAS kernels and under the Haswell kernels most AVX2
# machines get.
#   tests/cli/cli_threads_identical.sh REDRAW_BINARY
set -euo pipefail
redraw="$1"
. "$(dirname "$0")/../lib.sh"
image="$samples/horse.png"
cores=("")
grep -qw avx2 /proc/cpuinfo && cores+=(Haswell)
status=0
for core in "${cores[@]}"; do
  for preset in siren instant; do
    for threads in 1 2; do
      OPENBLAS_CORETYPE="$core" "$redraw" train "$image" --preset "$preset" --backend cpu --size 96x80 --steps 5 \
        --threads "$threads" --out "$work/$preset-$threads" --quiet >/dev/null 2>&1
    done
    what="$preset, ${core:-native} kernels"
    f1=$("$redraw" info "$work/$preset-1/model.redraw" | grep -o 'fingerprint [0-9a-f]*')
    f2=$("$redraw" info "$work/$preset-2/model.redraw" | grep -o 'fingerprint [0-9a-f]*')
    if [ -n "$f1" ] && [ "$f1" = "$f2" ]; then
      echo "ok: $what: weights identical at 1 and 2 threads ($f1)"
    else
      echo "FAIL: $what: weights differ between 1 and 2 threads ($f1 / $f2)"
      status=1
    fi
    if cmp -s "$work/$preset-1/final.png" "$work/$preset-2/final.png"; then
      echo "ok: $what: final.png identical at 1 and 2 threads"
    else
      echo "FAIL: $what: final.png differs between 1 and 2 threads"
      status=1
    fi
  done
done
exit "$status"
