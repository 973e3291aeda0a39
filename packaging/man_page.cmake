# cmake -DREDRAW=path/to/redraw -DHELP2MAN=help2man -DVERSION=x.y.z -DINCLUDE=redraw.h2m
#       -DPRESETS=path/to/assets/presets -DOUT=path/to/redraw.1 -P man_page.cmake
# The man page from the program's own help, so it never drifts: help2man formats `redraw --help`,
# INCLUDE adds the prose, and each command's --help is added verbatim as a COMMANDS subsection.
# Writes OUT.gz (gzip -9n: no name or timestamp, as Debian wants).
set(_commands "")
foreach(_cmd gui train render timelapse info)
  execute_process(COMMAND ${REDRAW} ${_cmd} --help OUTPUT_VARIABLE _help RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "`redraw ${_cmd} --help` failed (${_rc})")
  endif()
  # roff: a backslash is \e, a minus sign \-, and a line may not start with . or '
  string(REPLACE "\\" "\\e" _help "${_help}")
  string(REPLACE "-" "\\-" _help "${_help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" _help "${_help}")
  string(APPEND _commands ".SS \"redraw ${_cmd}\"\n.nf\n${_help}.fi\n")
endforeach()
file(READ ${INCLUDE} _include)
# The FILES section's preset list is the folder's, as every other list of them (engine/run_config.h).
file(GLOB _preset_files RELATIVE ${PRESETS} ${PRESETS}/*.json)
list(TRANSFORM _preset_files REPLACE "\\.json$" "")
list(SORT _preset_files)
list(JOIN _preset_files ", " _presets)
if(_presets STREQUAL "")
  message(FATAL_ERROR "no preset in ${PRESETS}")
endif()
string(REPLACE "-" "\\-" _presets "${_presets}")
string(REPLACE "%PRESETS%" "${_presets}" _include "${_include}")
file(WRITE ${OUT}.h2m "${_include}\n[COMMANDS]\n${_commands}")
execute_process(
  COMMAND ${HELP2MAN} --no-info --no-discard-stderr --version-string=${VERSION} --section=1
          --include=${OUT}.h2m --output=${OUT} ${REDRAW}
  RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "help2man failed (${_rc})")
endif()
execute_process(COMMAND gzip -9nf ${OUT} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "gzip ${OUT} failed (${_rc})")
endif()
file(REMOVE ${OUT}.h2m)
