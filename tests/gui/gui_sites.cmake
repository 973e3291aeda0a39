# The Sites view: `redraw gui --test-script` under Xvfb trains a sad model with the Sites window
# open (N) to step 40, and screenshots the reconstruction without and with the owner map; the
# checker requires the owner map to show over the picture as flat cells of many colours (the
# same step in both). Screenshots land in build/gui_test/sites/ (sites_view.png as users see it).
if(NOT REDRAW_GUI OR NOT REDRAW_XVFB_RUN)
  return()
endif()
redraw_gui_checked_script(gui_sites_view sites sites_view ${CMAKE_CURRENT_LIST_DIR}/gui_sites.json --owner-map
                          ${CMAKE_BINARY_DIR}/gui_test/sites/sites_plain.png
                          ${CMAKE_BINARY_DIR}/gui_test/sites/sites_owner_map.png)
