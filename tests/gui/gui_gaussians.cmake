# The Gaussians view: `redraw gui --test-script` under Xvfb trains a gaussians model with the
# Gaussians window open (N), requires its Gaussians outlined over the reconstruction (the script's
# gaussians_outlined condition), compares it with the instant preset and screenshots both; the
# checker crops run A's and run B's pictures (the sidecar's compare_runs) and requires
# two different, non-blank pictures. Screenshots land in build/gui_test/gaussians/.
if(NOT REDRAW_GUI OR NOT REDRAW_XVFB_RUN)
  return()
endif()
redraw_gui_checked_script(gui_gaussians_view gaussians gaussians_view ${CMAKE_CURRENT_LIST_DIR}/gui_gaussians.json
                          --compare ${CMAKE_BINARY_DIR}/gui_test/gaussians/gaussians_view.png)
