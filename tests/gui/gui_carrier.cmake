# The Gaussians' cosine carrier in the controls: `redraw gui --test-script` under Xvfb opens a plain
# gaussians model (gui_gaussians.json), ticks the Network group's "cosine carrier" box with the
# pointer, and requires the edited settings to take the carrier while the run keeps its model, then
# Apply & reset to build the run with it.
# Screenshots land in build/gui_test/carrier/ (carrier_tooltip.png, carrier_ticked.png with Apply &
# reset marked, carrier_applied.png).
if(NOT REDRAW_GUI OR NOT REDRAW_XVFB_RUN)
  return()
endif()
set(OUT ${CMAKE_BINARY_DIR}/gui_test/carrier)
configure_file(${CMAKE_CURRENT_LIST_DIR}/gui_scripts/carrier_toggle.txt ${OUT}/carrier_toggle.txt @ONLY)
redraw_gui_script_test(gui_carrier_toggle ${OUT}/carrier_toggle.txt ${OUT}/work ${CMAKE_CURRENT_LIST_DIR}/gui_gaussians.json)
