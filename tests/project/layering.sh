#!/usr/bin/env bash
# The architecture's arrows (docs/contributing.md, 1): app -> ui -> engine <- cpu, cuda. ui/ never
# includes cpu/, cuda/ or app/ and has no CUDA conditionals; engine/ (every room) includes no GL,
# ImGui, GLFW or CUDA header and nothing from a backend; each backend sees only engine/.
# engine/'s rooms are floors (docs/architecture.md, Folders): a room includes only itself and the
# rooms below it, so no include points up and no two rooms include each other. ui/'s rooms are
# floors the same way (ui_floors below), and so are the tests of both.
#   layering.sh SOURCE_DIR
set -uo pipefail
cd "$1"
fail=0
report() { # report DESCRIPTION MATCHES
  if [ -n "$2" ]; then echo "FAIL: $1"; echo "$2"; fail=1; else echo "ok: $1"; fi
}
ui_files=$(find ui -name '*.h' -o -name '*.cpp')
engine_files=$(find engine -name '*.h' -o -name '*.cpp')
# shellcheck disable=SC2086
report "ui/ includes nothing from cpu/, cuda/ or app/" \
  "$(grep -nE '^\s*#\s*include\s*[<"](cpu|cuda|app)/' $ui_files 2>/dev/null)"
report "ui/ has no CUDA build conditionals" "$(grep -nE 'REDRAW_HAVE_CUDA|__CUDACC__' $ui_files ui/*.cmake 2>/dev/null)"
report "ui/ does not link a backend" "$(grep -nE 'redraw_cuda|redraw_cpu|redraw_backends|CUDA::' ui/*.cmake 2>/dev/null)"
# shellcheck disable=SC2086
report "engine/ includes no GL, ImGui, GLFW, CUDA, ui/, app/, cpu/ or cuda/ header" \
  "$(grep -nE '^\s*#\s*include\s*[<"](GL/|GLFW/|glad/|imgui|cuda|cublas|ui/|app/|cpu/)' $engine_files 2>/dev/null)"
report "engine/ keeps at most 40 .cpp files at its top level; the rest are in its rooms" \
  "$(n=$(ls engine/*.cpp | wc -l); [ "$n" -le 40 ] || echo "$n files")"
report "no CPU backend file in engine/ (it lives in cpu/)" "$(find engine -name 'cpu_*')"
# The floors, lowest first: the core is the files directly in engine/. A new room must be placed here.
engine_floors="core images frames model_files training export insight sweep bench"
engine_upward_includes() { # FILE:LINE: #include "..." (why) for each include of a higher room, or
  # one not named by its engine/ path (which the floors could not place)
  local dir
  for dir in engine/*/; do
    dir=${dir%/}; [[ " $engine_floors " == *" ${dir#engine/} "* ]] || echo "$dir/ is not a room of engine_floors"
  done
  # shellcheck disable=SC2086
  grep -nE '^\s*#\s*include\s*"' $engine_files /dev/null | awk -v floors="$engine_floors" '
    function room(path, parts) { return split(path, parts, "/") > 2 ? parts[2] : "core" }
    BEGIN { n = split(floors, f, " "); for (i = 1; i <= n; ++i) rank[f[i]] = i }
    {
      file = $0; sub(/:.*/, "", file)
      inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
      line = $0; sub(/^[^:]*:/, "", line); sub(/:.*/, "", line)
      from = room(file); to = room(inc)
      if (!(from in rank)) next # its folder is reported above
      if (inc !~ /^engine\//) { print file ":" line ": #include \"" inc "\" (name it by its engine/ path)"; next }
      if (!(to in rank)) print file ":" line ": #include \"" inc "\" (" to " is not a room)"
      else if (rank[to] > rank[from]) print file ":" line ": #include \"" inc "\" (" from " is below " to ")"
    }' | sort -u
}
report "engine/'s rooms include only the rooms below them ($engine_floors)" "$(engine_upward_includes)"
# tests/engine/ follows the rooms: a test lives in the folder of the room whose code it tests (the
# highest one it needs), or in cpu/ or cuda/ for a backend's code checked on the CPU. A .cpp left at
# the top would not be built (tests/CMakeLists.txt globs the folders).
report "tests/engine/ keeps no source at its top level; each test is in its room's folder" \
  "$(find tests/engine -maxdepth 1 -type f \( -name '*.cpp' -o -name '*.h' \) | sort)"
# ui/ and tests/ui/ are in rooms too, stacked as floors, lowest first: widgets (ImGui pieces with no
# app state), session (the training thread's side), state (UiState, the app state, as plain
# structs), panels (one draw_*() per view), testing (the frame loop's test hooks) and window (the
# frame loop and the glue that carries out intents over the runs). A room includes only itself and
# the rooms below it, so the app state stays out of widgets/ and session/. Their builds glob the
# rooms, so a file left at the top is not built. A new room must be placed here.
ui_floors="widgets session state panels testing window"
ui_rooms="$ui_floors"
report "ui/ and tests/ui/ keep no C++ source at their top level (ui/ only gui.cmake, tests/ui/ its support header)" \
  "$(find ui tests/ui -maxdepth 1 -type f \( -name '*.cpp' -o -name '*.h' \) ! -name ui_test_support.h | sort)"
ui_stray_folders() {
  local d
  for d in ui/*/ tests/ui/*/; do
    [ -d "$d" ] || continue
    case " $ui_rooms " in *" $(basename "$d") "*) ;; *) echo "$d" ;; esac
  done
}
report "every folder in ui/ and tests/ui/ is a room ($ui_rooms)" "$(ui_stray_folders)"
ui_upward_includes() { # FILE:LINE: #include "ui/..." (why) for each include of a higher ui/ room, from
  # ui/<room>/ or tests/ui/<room>/ (the rooms' folders are checked above)
  find ui tests/ui -mindepth 2 \( -name '*.h' -o -name '*.cpp' \) -print0 | xargs -0 -r grep -nE '^\s*#\s*include\s*"ui/' /dev/null |
    awk -v floors="$ui_floors" '
    BEGIN { n = split(floors, f, " "); for (i = 1; i <= n; ++i) rank[f[i]] = i }
    {
      file = $0; sub(/:.*/, "", file)
      inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
      line = $0; sub(/^[^:]*:/, "", line); sub(/:.*/, "", line)
      split(file, p, "/"); from = p[1] == "tests" ? p[3] : p[2]; split(inc, q, "/"); to = q[2]
      if (!(from in rank) || inc == "ui/ui_test_support.h") next # its folder is reported above; the
      # support header of the tests of every room includes no ui/ header (below)
      if (!(to in rank)) print file ":" line ": #include \"" inc "\" (" to " is not a room)"
      else if (rank[to] > rank[from]) print file ":" line ": #include \"" inc "\" (" from " is below " to ")"
    }' | sort -u
  grep -nE '^\s*#\s*include\s*"ui/' tests/ui/ui_test_support.h /dev/null | sed 's/$/ (the support header of every room stands below them all)/'
}
report "ui/'s rooms and tests/ui/'s include only the rooms below them ($ui_floors)" "$(ui_upward_includes)"
tests_engine_upward_includes() { # as engine_upward_includes, for tests/engine/<room>/; cpu/ and
  # cuda/ stand on the core, as the backends do
  local dir
  for dir in tests/engine/*/; do
    [ -d "$dir" ] || continue
    dir=${dir%/}; [[ " $engine_floors cpu cuda " == *" ${dir#tests/engine/} "* ]] || echo "$dir/ is not a room of engine_floors, cpu or cuda"
  done
  find tests/engine -mindepth 2 -name '*.cpp' -print0 | xargs -0 -r grep -nE '^\s*#\s*include\s*"engine/' /dev/null |
    awk -v floors="$engine_floors" '
    function room(path, parts) { return split(path, parts, "/") > 2 ? parts[2] : "core" }
    BEGIN { n = split(floors, f, " "); for (i = 1; i <= n; ++i) rank[f[i]] = i; rank["cpu"] = rank["cuda"] = 1 }
    {
      file = $0; sub(/:.*/, "", file)
      inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
      line = $0; sub(/^[^:]*:/, "", line); sub(/:.*/, "", line)
      split(file, p, "/"); from = p[3]; to = room(inc)
      if (!(from in rank)) next # its folder is reported above
      if (!(to in rank)) print file ":" line ": #include \"" inc "\" (" to " is not a room)"
      else if (rank[to] > rank[from]) print file ":" line ": #include \"" inc "\" (" from " is below " to ")"
    }' | sort -u
}
report "a test in tests/engine/<room>/ includes no engine/ header of a room above it" "$(tests_engine_upward_includes)"
# engine/images/image_decode.cpp picks a decoder and nothing else: what the decoders share is in
# decode_support.cpp, so no decoder calls into the dispatcher and the dispatcher defines no helper.
report "engine/images/image_decode.cpp defines no decoder helper (they live in decode_support.cpp)" \
  "$(grep -nE '^\s*namespace\s+(redraw::)?detail\b' engine/images/image_decode.cpp 2>/dev/null)"
report "cpu/ includes nothing from ui/, app/ or cuda/" "$(grep -nE '^\s*#\s*include\s*[<"](ui|app|cuda)/' cpu/* 2>/dev/null)"
report "cuda/ includes nothing from ui/, app/ or cpu/" "$(grep -nE '^\s*#\s*include\s*[<"](ui|app|cpu)/' cuda/* 2>/dev/null)"
exit $fail
