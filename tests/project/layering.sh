#!/usr/bin/env bash
# The architecture's arrows (docs/contributing.md, 1): app -> ui -> engine <- cpu, cuda. ui/ never
# includes cpu/, cuda/ or app/ and has no CUDA conditionals; engine/ (every room) includes no GL,
# ImGui, GLFW or CUDA header and nothing from a backend; each backend sees only engine/.
#   layering.sh SOURCE_DIR
set -uo pipefail
cd "$1"
fail=0
report() { # report DESCRIPTION MATCHES
  if [ -n "$2" ]; then echo "FAIL: $1"; echo "$2"; fail=1; else echo "ok: $1"; fi
}
engine_files=$(find engine -name '*.h' -o -name '*.cpp')
report "ui/ includes nothing from cpu/, cuda/ or app/" \
  "$(grep -nE '^\s*#\s*include\s*[<"](cpu|cuda|app)/' ui/*.h ui/*.cpp ui/testing/* 2>/dev/null)"
report "ui/ has no CUDA build conditionals" "$(grep -nE 'REDRAW_HAVE_CUDA|__CUDACC__' ui/*.h ui/*.cpp ui/testing/* ui/*.cmake 2>/dev/null)"
report "ui/ does not link a backend" "$(grep -nE 'redraw_cuda|redraw_cpu|redraw_backends|CUDA::' ui/*.cmake 2>/dev/null)"
# shellcheck disable=SC2086
report "engine/ includes no GL, ImGui, GLFW, CUDA, ui/, app/, cpu/ or cuda/ header" \
  "$(grep -nE '^\s*#\s*include\s*[<"](GL/|GLFW/|glad/|imgui|cuda|cublas|ui/|app/|cpu/)' $engine_files 2>/dev/null)"
report "engine/ keeps at most 40 .cpp files at its top level; the rest are in its rooms" \
  "$(n=$(ls engine/*.cpp | wc -l); [ "$n" -le 40 ] || echo "$n files")"
report "no CPU backend file in engine/ (it lives in cpu/)" "$(find engine -name 'cpu_*' ! -name 'cpu_threads.*' ! -name 'cpu_table_memory.*')"
# engine/images/image_decode.cpp picks a decoder and nothing else: what the decoders share is in
# decode_support.cpp, so no decoder calls into the dispatcher and the dispatcher defines no helper.
report "engine/images/image_decode.cpp defines no decoder helper (they live in decode_support.cpp)" \
  "$(grep -nE '^\s*namespace\s+(redraw::)?detail\b' engine/images/image_decode.cpp 2>/dev/null)"
report "cpu/ includes nothing from ui/, app/ or cuda/" "$(grep -nE '^\s*#\s*include\s*[<"](ui|app|cuda)/' cpu/* 2>/dev/null)"
report "cuda/ includes nothing from ui/, app/ or cpu/" "$(grep -nE '^\s*#\s*include\s*[<"](ui|app|cpu)/' cuda/* 2>/dev/null)"
exit $fail
