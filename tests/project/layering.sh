#!/usr/bin/env bash
# The architecture's arrows (docs/contributing.md, 1): app -> ui -> engine <- cuda. ui/ never includes cuda/ or
# app/ and has no CUDA conditionals; engine/ includes no GL, ImGui, GLFW or CUDA header.
#   layering.sh SOURCE_DIR
set -uo pipefail
cd "$1"
fail=0
report() { # report DESCRIPTION MATCHES
  if [ -n "$2" ]; then echo "FAIL: $1"; echo "$2"; fail=1; else echo "ok: $1"; fi
}
report "ui/ includes nothing from cuda/ or app/" \
  "$(grep -nE '^\s*#\s*include\s*[<"](cuda|app)/' ui/*.h ui/*.cpp ui/testing/* 2>/dev/null)"
report "ui/ has no CUDA build conditionals" "$(grep -nE 'REDRAW_HAVE_CUDA|__CUDACC__' ui/*.h ui/*.cpp ui/testing/* ui/*.cmake 2>/dev/null)"
report "ui/ does not link the CUDA backend" "$(grep -nE 'redraw_cuda|redraw_backends|CUDA::' ui/*.cmake 2>/dev/null)"
report "engine/ includes no GL, ImGui, GLFW, CUDA, ui/, app/ or cuda/ header" \
  "$(grep -nE '^\s*#\s*include\s*[<"](GL/|GLFW/|glad/|imgui|cuda|cublas|ui/|app/)' engine/*.h engine/*.cpp 2>/dev/null)"
# engine/image_decode.cpp picks a decoder and nothing else: what the decoders share is in
# decode_support.cpp, so no decoder calls into the dispatcher and the dispatcher defines no helper.
report "engine/image_decode.cpp defines no decoder helper (they live in decode_support.cpp)" \
  "$(grep -nE '^\s*namespace\s+(redraw::)?detail\b' engine/image_decode.cpp 2>/dev/null)"
report "cuda/ includes nothing from ui/ or app/" "$(grep -nE '^\s*#\s*include\s*[<"](ui|app)/' cuda/* 2>/dev/null)"
exit $fail
