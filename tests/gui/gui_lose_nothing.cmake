# GUI tests for "never lose work" and honest branching: `redraw gui --test-script`
# (ui/testing/test_script.h) under Xvfb drives the unsaved-run prompt on Ctrl+O, a drop and Ctrl+Q, a
# branch that keeps the abandoned line, and the canvas following live training after a scrub.
# Screenshots land in build/gui_test/lose_nothing/.
if(NOT REDRAW_GUI OR NOT REDRAW_XVFB_RUN)
  return()
endif()
set(_ln_dir ${CMAKE_BINARY_DIR}/gui_test/lose_nothing)
# The window manager's close button, for Xvfb (which has none): a WM_DELETE_WINDOW request.
find_package(X11)
set(_ln_scripts unsaved_prompt branch_tree follow_live)
if(X11_FOUND)
  add_executable(redraw_x11_close_request ${CMAKE_CURRENT_LIST_DIR}/x11_close_request.c)
  target_link_libraries(redraw_x11_close_request PRIVATE X11::X11)
  # Not instrumented in the sanitizer build: libX11's own allocations are no finding of ours.
  if(CMAKE_C_FLAGS MATCHES "-fsanitize")
    target_compile_options(redraw_x11_close_request PRIVATE -fno-sanitize=all)
    target_link_options(redraw_x11_close_request PRIVATE -fno-sanitize=all)
  endif()
  set(CLOSE_REQUEST $<TARGET_FILE:redraw_x11_close_request>)
  list(APPEND _ln_scripts close_button)
endif()
set(IMAGE ${CMAKE_SOURCE_DIR}/assets/default.png)
set(OUT ${_ln_dir})
foreach(_script ${_ln_scripts})
  set(WORK ${_ln_dir}/${_script})
  # @CLOSE_REQUEST@ holds a generator expression: file(GENERATE) resolves it.
  configure_file(${CMAKE_CURRENT_LIST_DIR}/gui_scripts/${_script}.txt ${_ln_dir}/${_script}.txt.in @ONLY)
  file(GENERATE OUTPUT ${_ln_dir}/${_script}.txt INPUT ${_ln_dir}/${_script}.txt.in)
  redraw_gui_script_test(gui_${_script} ${_ln_dir}/${_script}.txt ${WORK} ${CMAKE_CURRENT_LIST_DIR}/gui_tiny.json)
endforeach()
