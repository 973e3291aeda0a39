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
redraw_gui_script_test(gui_compare_runs ${_cmp_dir}/compare_runs.txt ${WORK} ${CMAKE_CURRENT_LIST_DIR}/gui_compare.json)
set_tests_properties(gui_compare_runs PROPERTIES FIXTURES_SETUP gui_compare_shots)
add_test(NAME gui_compare_runs_check
         COMMAND redraw_gui_screenshot_check --compare ${_cmp_dir}/compare_side.png)
set_tests_properties(gui_compare_runs_check PROPERTIES FIXTURES_REQUIRED gui_compare_shots)
