# Growth marks: `redraw gui --test-script` under Xvfb trains a gaussians model that grows where the
# error is (gui_growth.json: every 12 steps) to step 46, and the same model without growth
# (gui_gaussians.json) to the same step, and screenshots both; the checker requires a mark on the
# loss plot at each growth event's step and a tick on the timelapse slider at its place among the
# frames, nothing of the marks' colour anywhere else, and none in the run without growth.
# Screenshots land in build/gui_test/growth/ (growth_marks_grow.png as users see it).
if(NOT REDRAW_GUI OR NOT REDRAW_XVFB_RUN)
  return()
endif()
set(_growth_out ${CMAKE_BINARY_DIR}/gui_test/growth)
foreach(_run grow plain)
  set(OUT ${_growth_out})
  set(RUN ${_run})
  if(_run STREQUAL "grow")
    set(EVENTS 3) # steps 12, 24 and 36
    set(TICK_FRAME 32) # letting go on step 24's tick: the first frame at or after it
    set(_preset ${CMAKE_CURRENT_LIST_DIR}/gui_growth.json)
  else()
    set(EVENTS 0)
    set(TICK_FRAME 23) # no tick: the slider's nearest frame
    set(_preset ${CMAKE_CURRENT_LIST_DIR}/gui_gaussians.json)
  endif()
  configure_file(${CMAKE_CURRENT_LIST_DIR}/gui_scripts/growth_marks.txt ${_growth_out}/growth_marks_${_run}.txt @ONLY)
  redraw_gui_script_test(gui_growth_marks_${_run} ${_growth_out}/growth_marks_${_run}.txt ${_growth_out}/work_${_run}
                         ${_preset})
  set_tests_properties(gui_growth_marks_${_run} PROPERTIES FIXTURES_SETUP gui_growth_marks_shots)
endforeach()
add_test(NAME gui_growth_marks_check
         COMMAND redraw_gui_screenshot_check --growth-marks ${_growth_out}/growth_marks_grow.png
                 ${_growth_out}/growth_marks_plain.png)
set_tests_properties(gui_growth_marks_check PROPERTIES FIXTURES_REQUIRED gui_growth_marks_shots)
