# Compare runs: `redraw gui --test-script` under Xvfb opens Training > Compare
# with the siren preset, trains both runs in turns, screenshots the side-by-side and split views,
# saves both models and closes the comparison; the checker then crops run A's and run B's pictures
# from the side-by-side screenshot (the sidecar's compare_a / compare_b) and requires two
# different, non-blank pictures. Screenshots land in build/gui_test/compare/.
if(NOT REDRAW_GUI OR NOT REDRAW_XVFB_RUN)
  return()
endif()
set(_cmp_dir ${CMAKE_BINARY_DIR}/gui_test/compare)
set(OUT ${_cmp_dir})
set(WORK ${_cmp_dir}/work)
configure_file(${CMAKE_CURRENT_LIST_DIR}/gui_scripts/compare_runs.txt ${_cmp_dir}/compare_runs.txt @ONLY)
set(_cmp_env)
if(REDRAW_TEST_LD_PRELOAD) # the sanitizer build (see tests/gui/gui.cmake)
  list(APPEND _cmp_env "LD_PRELOAD=${REDRAW_TEST_LD_PRELOAD}")
endif()
add_test(NAME gui_compare_runs
         COMMAND ${CMAKE_COMMAND} -E env "XDG_CONFIG_HOME=${WORK}/config" "XDG_DATA_HOME=${WORK}/data"
                 "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" ${_cmp_env}
                 sh -c "rm -rf '${WORK}' && mkdir -p '${WORK}' && cd '${WORK}' && exec \"$0\" \"$@\""
                 ${REDRAW_XVFB_RUN} -a -s "-screen 0 1600x1000x24"
                 $<TARGET_FILE:redraw> gui ${CMAKE_SOURCE_DIR}/assets/default.png
                 --preset ${CMAKE_CURRENT_LIST_DIR}/gui_compare.json --backend cpu
                 --test-script ${_cmp_dir}/compare_runs.txt)
set_tests_properties(gui_compare_runs PROPERTIES TIMEOUT 400 RESOURCE_LOCK xvfb LABELS gui
                     FIXTURES_SETUP gui_compare_shots)
add_test(NAME gui_compare_runs_check
         COMMAND redraw_gui_screenshot_check --compare ${_cmp_dir}/compare_side.png)
set_tests_properties(gui_compare_runs_check PROPERTIES FIXTURES_REQUIRED gui_compare_shots)
