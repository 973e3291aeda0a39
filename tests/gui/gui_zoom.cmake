# The sharp zoom: `redraw gui --test-script` under Xvfb zooms the reconstruction 12x past the
# training size and screenshots it with the sharp zoom off and on; the checker requires the first
# to be blocky (each 12x12 cell one colour) and the second to show detail inside the cells, in the
# same picture. Then the same for a scrubbed timelapse frame, drawn from its own weights.
# Screenshots land in build/gui_test/zoom/ (zoom_texels.png, zoom_sharp.png, frame_texels.png, frame_sharp.png).
if(NOT REDRAW_GUI OR NOT REDRAW_XVFB_RUN)
  return()
endif()
set(_zoom_dir ${CMAKE_BINARY_DIR}/gui_test/zoom)
redraw_gui_checked_script(gui_sharp_zoom zoom sharp_zoom ${CMAKE_CURRENT_LIST_DIR}/gui_tiny.json
                          --zoom 12 ${_zoom_dir}/zoom_texels.png ${_zoom_dir}/zoom_sharp.png)
add_test(NAME gui_sharp_zoom_frame_check
         COMMAND redraw_gui_screenshot_check --zoom 12 ${_zoom_dir}/frame_texels.png ${_zoom_dir}/frame_sharp.png)
set_tests_properties(gui_sharp_zoom_frame_check PROPERTIES FIXTURES_REQUIRED gui_sharp_zoom_shots)

# Previews at the size shown: a 1600x1000 picture trained at full resolution gets previews that fit
# the pane showing it (side by side, then the reconstruction alone), never its 1.6 megapixels.
set(_pane_dir ${CMAKE_BINARY_DIR}/gui_test/preview_pane)
configure_file(${CMAKE_CURRENT_LIST_DIR}/gui_scripts/preview_pane.txt ${_pane_dir}/preview_pane.txt @ONLY)
redraw_gui_script_test(gui_preview_pane ${_pane_dir}/preview_pane.txt ${_pane_dir}/work
                       ${CMAKE_CURRENT_LIST_DIR}/gui_full.json)
