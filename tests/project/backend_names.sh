#!/usr/bin/env bash
# One table per vocabulary (docs/architecture.md): a backend's name is spelled once, in its record in
# engine/backend_names.h; every other place reads the record (k_cpu_backend.name, backend_choices(),
# is_gpu_backend, backend_batch, ...). Fails on a string literal of a backend's name ("cpu",
# "cuda", ...) in the code outside the allow-list; comments may name them. Tests may use the names
# as inputs, so tests/ is not searched.
#   backend_names.sh SOURCE_DIR
set -uo pipefail
cd "$1"
# The names, from the records: inline constexpr BackendInfo k_cpu_backend{"cpu", ...
names=$(sed -nE 's/^inline constexpr BackendInfo k_[a-z0-9_]+\{"([^"]+)".*/\1/p' engine/backend_names.h)
if [ -z "$names" ]; then
  echo "FAIL: no BackendInfo record found in engine/backend_names.h"
  exit 1
fi
# The allow-list: the records themselves.
allowed='^engine/backend_names\.h:'
pattern="\"($(echo "$names" | paste -sd'|'))\""
# Comments are dropped first (// to the end of the line), so a line's code is what is searched.
hits=$(find app ui engine cpu cuda python/bindings bench -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) \
         -print0 2>/dev/null | sort -z | xargs -0 awk '{ line = $0; sub(/\/\/.*$/, "", line); print FILENAME ":" FNR ": " line }' |
       grep -E "$pattern" | grep -vE "$allowed")
if [ -n "$hits" ]; then
  echo "FAIL: a backend's name spelled outside its record (engine/backend_names.h: use the record)"
  echo "$hits"
  exit 1
fi
echo "ok: the backend names ($(echo "$names" | paste -sd' ')) are spelled only in engine/backend_names.h"
