# Compare runs: `redraw gui --test-script` under Xvfb opens Training > Compare
# with the siren preset, trains both runs in turns, screenshots the side-by-side and split views,
# saves both models and closes the comparison; the checker then crops run A's and run B's pictures
# from the side-by-side screenshot (the sidecar's compare_a / compare_b) and requires two
# different, non-blank pictures. Screenshots land in build/gui_test/compare/.
if(NOT REDRAW_GUI OR NOT REDRAW_XVFB_RUN)
  return()
endif()
set(_cmp_dir ${CMAKE_BINARY_DIR}/gui_test/compare)
redraw_gui_checked_script(gui_compare_runs compare compare_runs ${CMAKE_CURRENT_LIST_DIR}/gui_compare.json
                          --compare ${_cmp_dir}/compare_side.png)
