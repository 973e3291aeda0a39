#!/usr/bin/env bash
# One OpenBLAS kernel family's rerun of the unit tests: kernel_rerun.sh CORE redraw_tests [ARGS...]
# runs redraw_tests ARGS under OPENBLAS_CORETYPE=CORE, unless the environment that ctest runs in
# already names CORE (OpenBLAS reads the name without regard to case): then the unit tests above
# ran under that family already, and the rerun would repeat them bit for bit, so it skips (77)
# and says why.
set -u
core="$1"
shift
if [ "${OPENBLAS_CORETYPE:-}" != "" ] && [ "${OPENBLAS_CORETYPE,,}" = "${core,,}" ]; then
  echo "SKIP: this environment sets OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE, so the unit tests already ran under $core's kernels"
  exit 77
fi
OPENBLAS_CORETYPE="$core" exec "$@"
