# The sharp zoom: `redraw gui --test-script` under Xvfb zooms the reconstruction 12x past the
# training size and screenshots it with the sharp zoom off and on; the checker requires the first
# to be blocky (each 12x12 cell one colour) and the second to show detail inside the cells, in the
# same picture. Screenshots land in build/gui_test/zoom/ (zoom_texels.png, zoom_sharp.png).
if(NOT REDRAW_GUI OR NOT REDRAW_XVFB_RUN)
  return()
endif()
set(_zoom_dir ${CMAKE_BINARY_DIR}/gui_test/zoom)
set(OUT ${_zoom_dir})
set(WORK ${_zoom_dir}/work)
configure_file(${CMAKE_CURRENT_LIST_DIR}/gui_scripts/sharp_zoom.txt ${_zoom_dir}/sharp_zoom.txt @ONLY)
redraw_gui_script_test(gui_sharp_zoom ${_zoom_dir}/sharp_zoom.txt ${WORK} ${CMAKE_CURRENT_LIST_DIR}/gui_tiny.json)
set_tests_properties(gui_sharp_zoom PROPERTIES FIXTURES_SETUP gui_zoom_shots)
add_test(NAME gui_sharp_zoom_check
         COMMAND redraw_gui_screenshot_check --zoom 12 ${_zoom_dir}/zoom_texels.png ${_zoom_dir}/zoom_sharp.png)
set_tests_properties(gui_sharp_zoom_check PROPERTIES FIXTURES_REQUIRED gui_zoom_shots)
