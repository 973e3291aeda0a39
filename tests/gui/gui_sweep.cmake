# File > Open sweep: a 4-cell `redraw sweep` (gui_sweep_setup), then `redraw gui --test-script`
# under Xvfb opens it in the sweep browser (every cell with its thumbnail), sorts it by PSNR,
# opens a cell's model with a click, and two selected cells in Compare. Screenshots land in
# build/gui_test/sweep/ (sweep_browser.png, sweep_compare.png).
if(NOT REDRAW_GUI OR NOT REDRAW_XVFB_RUN)
  return()
endif()
set(_sweep_dir ${CMAKE_BINARY_DIR}/gui_test/sweep)
add_test(NAME gui_sweep_setup
         COMMAND sh -c "rm -rf \"$1\" && exec \"$0\" sweep --images \"$2\" \"$3\" --presets \"$4\" --set schedule.lr_max=0.01,0.001 --steps 40 --max-side 48 --out \"$1\""
                 $<TARGET_FILE:redraw> ${_sweep_dir}/sweep ${CMAKE_SOURCE_DIR}/assets/default.png
                 ${CMAKE_SOURCE_DIR}/tests/data/camera.png ${CMAKE_CURRENT_LIST_DIR}/gui_tiny.json)
set_tests_properties(gui_sweep_setup PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 120
                     FIXTURES_SETUP gui_sweep_folder LABELS gui)
set(OUT ${_sweep_dir}) # the script's @OUT@
configure_file(${CMAKE_CURRENT_LIST_DIR}/gui_scripts/sweep_browser.txt ${_sweep_dir}/sweep_browser.txt @ONLY)
unset(OUT)
redraw_gui_script_test(gui_sweep_browser ${_sweep_dir}/sweep_browser.txt ${_sweep_dir}/work
                       ${CMAKE_CURRENT_LIST_DIR}/gui_tiny.json)
set_tests_properties(gui_sweep_browser PROPERTIES FIXTURES_REQUIRED gui_sweep_folder)
