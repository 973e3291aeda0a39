#!/usr/bin/env bash
# The shell completions (packaging/completions) know every option of every command, read from
# `redraw CMD --help`, so a new option cannot be forgotten there; the bash completion completes
# commands, options, option values, preset names and files.
#   completions_check.sh path/to/redraw SOURCE_DIR
set -uo pipefail
redraw="$(realpath "$1")"
src="$(realpath "$2")"
bash_file="$src/packaging/completions/redraw.bash"
zsh_file="$src/packaging/completions/_redraw"
. "$(dirname "$0")/../lib.sh"

# ---- every option of every command is in both files ----
for cmd in "" gui train render timelapse info sweep export-weights bench; do
  opts="$("$redraw" $cmd --help | grep -oE '(^|[ ,])--?[a-z][a-z0-9-]*' | sed 's/^[ ,]//' | grep -vx -- -h | sort -u)"
  for file in "$bash_file" "$zsh_file"; do
    missing=""
    for o in $opts; do
      grep -qE -- "(^|[^a-z-])$o([^a-z0-9-]|\$)" "$file" || missing="$missing $o"
    done
    check_run "$(basename "$file") knows every option of 'redraw${cmd:+ $cmd}'${missing:+ (missing:$missing)}" \
      test -z "$missing"
  done
done

# ---- every bench protocol (the help reads them from their table) is in both files ----
protocols="$("$redraw" bench --help | sed -nE 's/^  protocol TEXT REQUIRED +//p' | tr -d ',')"
check_run "redraw bench --help lists the protocols" test -n "$protocols"
for file in "$bash_file" "$zsh_file"; do
  missing=""
  for p in $protocols; do grep -qE -- "(^|[^a-z-])$p([^a-z0-9-]|\$)" "$file" || missing="$missing $p"; done
  check_run "$(basename "$file") knows every bench protocol${missing:+ (missing:$missing)}" test -z "$missing"
done

# ---- bash: what a Tab gives ----
if [ -f /usr/share/bash-completion/bash_completion ]; then
  touch "$work/photo.png" "$work/notes.txt" "$work/run.redraw"
  # complete WORD...: COMPREPLY for a command line ending in the last word, sorted, on one line.
  results="$(cd "$work" && PATH="$(dirname "$redraw"):$PATH" REDRAW_ASSETS="$src/assets" bash --norc -c '
    source /usr/share/bash-completion/bash_completion
    source "$1"
    complete_line() {
      COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
      COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
      _redraw redraw "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
      printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "; echo
    }
    complete_line redraw t
    complete_line redraw train --pre
    complete_line redraw train x.png --backend ""
    complete_line redraw train x.png --preset ""
    complete_line redraw train ""
    complete_line redraw render ""
    complete_line redraw render m.redraw --bit-depth ""
  ' _ "$bash_file" 2>&1)"
  echo "$results"
  line() { sed -n "${1}p" <<<"$results"; }
  check_run "'redraw t<Tab>' gives timelapse and train" test "$(line 1)" = "timelapse train "
  check_run "'redraw train --pre<Tab>' gives --precision and --preset" test "$(line 2)" = "--precision --preset "
  check_run "'--backend <Tab>' gives auto cpu cuda" test "$(line 3)" = "auto cpu cuda "
  presets="$(ls "$src/assets/presets" | sed -n 's/\.json$//p' | sort | tr '\n' ' ')"
  check_run "'train x.png --preset <Tab>' gives the presets ($presets)" test "$(line 4)" = "$presets"
  check_run "'redraw train <Tab>' offers images, not other files" test "$(line 5)" = "photo.png "
  check_run "'redraw render <Tab>' offers models" test "$(line 6)" = "run.redraw "
  check_run "'--bit-depth <Tab>' gives 16 8" test "$(line 7)" = "16 8 "
else
  echo "SKIP: bash-completion not installed (apt-get install bash-completion)"
fi

# ---- zsh: at least it parses ----
if command -v zsh >/dev/null; then
  check_run "zsh -n _redraw" zsh -n "$zsh_file"
else
  echo "SKIP: zsh not installed; _redraw not parsed"
fi
finish completions_check
