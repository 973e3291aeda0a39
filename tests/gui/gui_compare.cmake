# Compare runs: `redraw gui --test-script` under Xvfb opens Training > Compare
# with the siren preset, trains both runs in turns, screenshots the side-by-side and split views,
# saves both models and closes the comparison; the checker then crops run A's and run B's pictures
# from the side-by-side screenshot (the sidecar's compare_runs) and requires two
# different, non-blank pictures. Screenshots land in build/gui_test/compare/.
if(NOT REDRAW_GUI OR NOT REDRAW_XVFB_RUN)
  return()
endif()
set(_cmp_dir ${CMAKE_BINARY_DIR}/gui_test/compare)
redraw_gui_checked_script(gui_compare_runs compare compare_runs ${CMAKE_CURRENT_LIST_DIR}/gui_compare.json
                          --compare ${_cmp_dir}/compare_side.png)

# Runs as a list: four families side by side (A and the three runs opened beside it); the checker
# crops each run's picture from the screenshot (the sidecar's compare_runs) and requires four
# different, non-blank pictures that do not overlap. Screenshots land in build/gui_test/compare_four/.
redraw_gui_checked_script(gui_compare_four compare_four compare_four ${CMAKE_CURRENT_LIST_DIR}/gui_compare.json
                          --compare ${CMAKE_BINARY_DIR}/gui_test/compare_four/compare_four.png 4)
