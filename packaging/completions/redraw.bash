# bash completion for redraw (installed as share/bash-completion/completions/redraw).
# Keep in step with app/main.cpp: tests/completions_check.sh fails when an option is missing here.

_redraw_presets() {
  # Preset names from the installed data folder beside the program, as redraw finds them.
  local exe dir f
  exe="$(command -v redraw 2>/dev/null)" || return
  dir="${REDRAW_ASSETS:-$(dirname "$(readlink -f "$exe")")/../share/redraw}/presets"
  for f in "$dir"/*.json; do
    [[ -e $f ]] && f="${f##*/}" && printf '%s\n' "${f%.json}"
  done
}

_redraw() {
  local cur prev words cword
  _init_completion || return

  local images='png|jpg|jpeg|bmp|tga|gif'
  local cmd="" i
  for ((i = 1; i < cword; i++)); do
    case "${words[i]}" in
    gui | train | render | timelapse | info | sweep | export-weights | bench)
      cmd="${words[i]}"
      break
      ;;
    esac
  done

  case "$prev" in
  --backend) COMPREPLY=($(compgen -W "auto cpu cuda" -- "$cur")); return ;;
  --precision) COMPREPLY=($(compgen -W "fp32 tf32 bf16" -- "$cur")); return ;;
  --color) COMPREPLY=($(compgen -W "auto rgb gray binary" -- "$cur")); return ;;
  --bit-depth) COMPREPLY=($(compgen -W "8 16" -- "$cur")); return ;;
  --preset)
    COMPREPLY=($(compgen -W "$(_redraw_presets)" -- "$cur"))
    [[ $cmd == gui ]] && _filedir json # the app also takes a config file here
    return
    ;;
  --config | --spec) _filedir json; return ;;
  --images) _filedir "@($images)"; _filedir -d; return ;;
  --presets | --methods) COMPREPLY=($(compgen -W "$(_redraw_presets)" -- "$cur")); return ;;
  --model | --resume) _filedir redraw; return ;;
  --out) _filedir -d; return ;;
  --screenshot) _filedir png; return ;;
  --test-script) _filedir; return ;;
  --compare) _filedir "@($images)"; return ;;
  -o | --output) _filedir; return ;;
  --size | --max-side | --steps | --time-limit | --seed | --checkpoint-every | --snapshot-cap-mb | \
    --snapshot | --fps | --screenshot-after-steps | --max-image-memory | --ui-scale | --test-resize | --threads | \
    --set | --seeds | --jobs | --cell | --partition | --time | --gpus-per-task | --cpus-per-task | --sbatch-arg)
    return # a number or WxH
    ;;
  esac

  local opts
  case "$cmd" in
  "") opts="--help --version" ;;
  gui) opts="--help --model --preset --backend --precision --autostart --time-limit --about --screenshot --screenshot-after-steps
             --ui-scale --perf --test-resize --test-script" ;;
  train) opts="--help --preset --config --size --max-side --full --steps --time-limit --backend --precision --seed --color
               --out --checkpoint-every --resume --quiet --snapshot-cap-mb --max-image-memory --threads" ;;
  render) opts="--help --size --output -o --snapshot --bit-depth --backend --precision --compare --max-image-memory
                --threads" ;;
  timelapse) opts="--help --size --fps --output -o --overlay --backend --precision --threads" ;;
  info) opts="--help --backends --json" ;;
  export-weights) opts="--help --output -o" ;;
  sweep) opts="--help --images --presets --set --spec --seeds --time-limit --steps --size --max-side --jobs
               --checkpoint-every --out --cell --collect --dry-run --retry-failed --backend --threads --slurm
               --partition --time --gpus-per-task --cpus-per-task --sbatch-arg" ;;
  bench) opts="--help --images --out --methods --time-limit --jobs --backend --threads --dry-run --collect --retry-failed --slurm
               --partition --time --gpus-per-task --cpus-per-task --sbatch-arg" ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi

  case "$cmd" in
  "")
    COMPREPLY=($(compgen -W "gui train render timelapse info sweep export-weights bench" -- "$cur"))
    _filedir "@($images|redraw)"
    ;;
  gui) _filedir "@($images)" ;;
  train) _filedir "@($images)" ;;
  render | timelapse | info | export-weights) _filedir redraw ;;
  sweep) _filedir -d ;;
  bench) COMPREPLY=($(compgen -W "kodak-paper kodak-minute kodak-timed smoke" -- "$cur")) ;;
  esac
} && complete -F _redraw redraw
