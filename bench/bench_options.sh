# Sourced by the bench scripts. bench_options "NAMES" "FLAGS" "$@" reads the command line into the
# script's own variables: `--some-name VALUE` sets some_name for each of NAMES (which the script has
# set to its defaults first), `--flag` sets flag=1 for each of FLAGS. Anything else prints a usage
# line with the defaults and exits with status 2.
bench_options() {
  local _names=" $1 " _flags=" $2 " _key
  shift 2
  while [ $# -gt 0 ]; do
    _key="${1#--}"
    _key="${_key//-/_}"
    if [[ "$1" == --* && "$_flags" == *" $_key "* ]]; then
      printf -v "$_key" 1
      shift
    elif [[ "$1" == --* && "$_names" == *" $_key "* && $# -ge 2 ]]; then
      printf -v "$_key" '%s' "$2"
      shift 2
    else
      local _usage="usage: $0" _n
      for _n in $_names; do _usage+=" [--${_n//_/-} ${!_n:-VALUE}]"; done
      for _n in $_flags; do _usage+=" [--${_n//_/-}]"; done
      echo "$1: not an option here; $_usage" >&2
      exit 2
    fi
  done
}
