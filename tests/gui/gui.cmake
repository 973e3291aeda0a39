# GUI smoke tests: `redraw gui --screenshot` under Xvfb (Mesa's llvmpipe gives GL 4.5 core, no GPU
# needed), twice in one run's life (after 2 and after 60 steps), then a checker that the
# reconstruction area is not blank and changed between the two.
if(NOT REDRAW_GUI)
  return()
endif()

# tests/ui/test_ui_*.cpp join redraw_tests; they test ui/ logic and the training thread, no window.
target_link_libraries(redraw_tests PRIVATE redraw_ui)
target_compile_definitions(redraw_tests PRIVATE REDRAW_TEST_UI=1)

add_executable(redraw_gui_screenshot_check ${CMAKE_CURRENT_LIST_DIR}/gui_screenshot_check.cpp)
target_link_libraries(redraw_gui_screenshot_check PRIVATE redraw_engine)
target_compile_options(redraw_gui_screenshot_check PRIVATE ${REDRAW_WARNINGS})
add_executable(redraw_gui_layout_check ${CMAKE_CURRENT_LIST_DIR}/gui_layout_check.cpp)
target_link_libraries(redraw_gui_layout_check PRIVATE redraw_engine)
target_compile_options(redraw_gui_layout_check PRIVATE ${REDRAW_WARNINGS})

find_program(REDRAW_XVFB_RUN xvfb-run)
set(_gui_dir ${CMAKE_BINARY_DIR}/gui_test)
set(_gui_env "XDG_CONFIG_HOME=${_gui_dir}/config" "XDG_DATA_HOME=${_gui_dir}/data" "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets")
# The sanitizer build preloads tests/gui/dlclose_noop.c here (see scripts/sanitize.sh).
set(REDRAW_TEST_LD_PRELOAD "" CACHE STRING "A library to preload into the GUI smoke tests")
set(REDRAW_TEST_LD_PRELOAD_ENV)
if(REDRAW_TEST_LD_PRELOAD)
  list(APPEND _gui_env "LD_PRELOAD=${REDRAW_TEST_LD_PRELOAD}")
  set(REDRAW_TEST_LD_PRELOAD_ENV "LD_PRELOAD=${REDRAW_TEST_LD_PRELOAD}")
endif()

# redraw_gui_script_test(NAME SCRIPT WORK PRESET): `redraw gui` on the bundled drawing under Xvfb,
# driven by the test script SCRIPT (ui/testing/test_script.h) with PRESET on the CPU, in a fresh
# folder WORK (its own config and data folders).
function(redraw_gui_script_test name script work preset)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -E env "XDG_CONFIG_HOME=${work}/config" "XDG_DATA_HOME=${work}/data"
                   "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" ${REDRAW_TEST_LD_PRELOAD_ENV}
                   sh -c "rm -rf '${work}' && mkdir -p '${work}' && cd '${work}' && exec \"$0\" \"$@\""
                   ${REDRAW_XVFB_RUN} -a -s "-screen 0 1600x1000x24"
                   $<TARGET_FILE:redraw> gui ${CMAKE_SOURCE_DIR}/assets/default.png --preset ${preset}
                   --backend cpu --test-script ${script})
  set_tests_properties(${name} PROPERTIES TIMEOUT 400 RESOURCE_LOCK xvfb LABELS gui)
endfunction()

# redraw_gui_checked_script(NAME FOLDER SCRIPT PRESET CHECK...): gui_scripts/SCRIPT.txt with @OUT@
# (build/gui_test/FOLDER, where its screenshots land) and @WORK@ (OUT/work) filled in, run as the
# test NAME (redraw_gui_script_test); then NAME_check runs redraw_gui_screenshot_check CHECK...
function(redraw_gui_checked_script name folder script preset)
  set(OUT ${CMAKE_BINARY_DIR}/gui_test/${folder})
  set(WORK ${OUT}/work)
  configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/gui_scripts/${script}.txt ${OUT}/${script}.txt @ONLY)
  redraw_gui_script_test(${name} ${OUT}/${script}.txt ${WORK} ${preset})
  set_tests_properties(${name} PROPERTIES FIXTURES_SETUP ${name}_shots)
  add_test(NAME ${name}_check COMMAND redraw_gui_screenshot_check ${ARGN})
  set_tests_properties(${name}_check PROPERTIES FIXTURES_REQUIRED ${name}_shots)
endfunction()

if(NOT REDRAW_XVFB_RUN)
  # Visible as "Skipped" in ctest's summary, never a silent pass.
  add_test(NAME gui_screenshot COMMAND ${CMAKE_COMMAND} -E echo "SKIP: xvfb-run not found (apt-get install xvfb xauth)")
  set_tests_properties(gui_screenshot PROPERTIES SKIP_REGULAR_EXPRESSION "SKIP:")
  return()
endif()

foreach(_steps 2 60)
  add_test(NAME gui_screenshot_${_steps}
           COMMAND ${REDRAW_XVFB_RUN} -a -s "-screen 0 1600x1000x24"
                   $<TARGET_FILE:redraw> gui ${CMAKE_SOURCE_DIR}/assets/default.png
                   --preset ${CMAKE_CURRENT_LIST_DIR}/gui_tiny.json --backend cpu
                   --screenshot ${_gui_dir}/after_${_steps}.png --screenshot-after-steps ${_steps})
  set_tests_properties(gui_screenshot_${_steps} PROPERTIES
    ENVIRONMENT "${_gui_env}" TIMEOUT 300 FIXTURES_SETUP gui_screenshots RESOURCE_LOCK xvfb)
endforeach()

add_test(NAME gui_screenshot_check
         COMMAND redraw_gui_screenshot_check ${_gui_dir}/after_2.png ${_gui_dir}/after_60.png)
set_tests_properties(gui_screenshot_check PROPERTIES FIXTURES_REQUIRED gui_screenshots)

# The window shrunk to 200x150 and back restores the panels, and settings saved while tiny keep
# a sensible layout (ui/testing/window_test_hook.h); look at gui_test/shrink.png and shrink-tiny.png.
add_test(NAME gui_shrink_restore
         COMMAND ${REDRAW_XVFB_RUN} -a -s "-screen 0 1600x1000x24"
                 $<TARGET_FILE:redraw> gui ${CMAKE_SOURCE_DIR}/assets/default.png
                 --preset ${CMAKE_CURRENT_LIST_DIR}/gui_tiny.json --backend cpu --ui-scale 1
                 --screenshot ${_gui_dir}/shrink.png --screenshot-after-steps 2 --test-resize 200x150)
set_tests_properties(gui_shrink_restore PROPERTIES
  ENVIRONMENT "${_gui_env}" TIMEOUT 300 FIXTURES_SETUP gui_shrink RESOURCE_LOCK xvfb)
add_test(NAME gui_shrink_restore_check COMMAND redraw_gui_layout_check shrink ${_gui_dir}/shrink.png)
set_tests_properties(gui_shrink_restore_check PROPERTIES FIXTURES_REQUIRED gui_shrink)

# HiDPI: the same window at UI scale 1 and 2 (with the performance panel open); the text doubles
# and the status bar still fits. Look at gui_test/scale_1.png and scale_2.png.
foreach(_scale 1 2)
  add_test(NAME gui_ui_scale_${_scale}
           COMMAND ${REDRAW_XVFB_RUN} -a -s "-screen 0 1600x1000x24"
                   $<TARGET_FILE:redraw> gui ${CMAKE_SOURCE_DIR}/assets/default.png
                   --preset ${CMAKE_CURRENT_LIST_DIR}/gui_tiny.json --backend cpu --ui-scale ${_scale} --perf
                   --screenshot ${_gui_dir}/scale_${_scale}.png --screenshot-after-steps 40)
  set_tests_properties(gui_ui_scale_${_scale} PROPERTIES
    ENVIRONMENT "${_gui_env}" TIMEOUT 300 FIXTURES_SETUP gui_ui_scale RESOURCE_LOCK xvfb)
endforeach()
add_test(NAME gui_ui_scale_check
         COMMAND redraw_gui_layout_check scale ${_gui_dir}/scale_1.png ${_gui_dir}/scale_2.png)
set_tests_properties(gui_ui_scale_check PROPERTIES FIXTURES_REQUIRED gui_ui_scale)
# Frame pacing in a user's session (ui/session/frame_pacing.h): a test script with `pace real` checks that
# the window draws few frames while training untouched and still answers a key within a second;
# `--autostart --time-limit` trains, draws under the same pacing and quits with the steps done.
set(_paced_dir ${_gui_dir}/paced)
# An image over `gui --max-image-memory`: offered with a larger budget, and opened when accepted.
set(OUT ${_gui_dir})
configure_file(${CMAKE_CURRENT_LIST_DIR}/gui_scripts/image_budget.txt ${_gui_dir}/image_budget.txt @ONLY)
add_test(NAME gui_image_budget
         COMMAND ${CMAKE_COMMAND} -E env "XDG_CONFIG_HOME=${_gui_dir}/budget/config" "XDG_DATA_HOME=${_gui_dir}/budget/data"
                 "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" ${REDRAW_TEST_LD_PRELOAD_ENV}
                 ${REDRAW_XVFB_RUN} -a -s "-screen 0 1600x1000x24"
                 $<TARGET_FILE:redraw> gui ${CMAKE_SOURCE_DIR}/assets/default.png --max-image-memory 1 --backend cpu
                 --test-script ${_gui_dir}/image_budget.txt)
set_tests_properties(gui_image_budget PROPERTIES TIMEOUT 300 RESOURCE_LOCK xvfb LABELS gui)
redraw_gui_script_test(gui_paced_responsive ${CMAKE_CURRENT_LIST_DIR}/gui_scripts/paced_responsive.txt
                       ${_gui_dir}/paced_script ${CMAKE_CURRENT_LIST_DIR}/gui_long.json)
add_test(NAME gui_time_limit
         COMMAND ${CMAKE_COMMAND} -E env "XDG_CONFIG_HOME=${_paced_dir}/config" "XDG_DATA_HOME=${_paced_dir}/data"
                 "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" ${REDRAW_TEST_LD_PRELOAD_ENV}
                 ${REDRAW_XVFB_RUN} -a -s "-screen 0 1600x1000x24"
                 $<TARGET_FILE:redraw> gui ${CMAKE_SOURCE_DIR}/assets/default.png
                 --preset ${CMAKE_CURRENT_LIST_DIR}/gui_long.json --backend cpu --autostart --time-limit 2)
set_tests_properties(gui_time_limit PROPERTIES TIMEOUT 300 RESOURCE_LOCK xvfb LABELS gui
  PASS_REGULAR_EXPRESSION "time limit: [1-9][0-9]* steps in [2-9]\\.[0-9]+ s of training")

# The insight views: the Spectrum and the Neuron maps windows, each opened through its
# own settings.json, captured after 2 and 60 steps; the checker crops the areas named in the
# FILE.insight.json sidecars (not blank, changed between the captures).
add_executable(redraw_gui_insight_check ${CMAKE_CURRENT_LIST_DIR}/gui_insight_check.cpp)
target_link_libraries(redraw_gui_insight_check PRIVATE redraw_engine)
target_compile_options(redraw_gui_insight_check PRIVATE ${REDRAW_WARNINGS})
foreach(_view spectrum neuron_maps)
  set(_cfg ${_gui_dir}/config_${_view})
  file(WRITE ${_cfg}/redraw/settings.json "{\"show_${_view}\": true}\n")
  set(_env "XDG_CONFIG_HOME=${_cfg}" "XDG_DATA_HOME=${_gui_dir}/data" "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets")
  if(REDRAW_TEST_LD_PRELOAD)
    list(APPEND _env "LD_PRELOAD=${REDRAW_TEST_LD_PRELOAD}")
  endif()
  foreach(_steps 2 60)
    add_test(NAME gui_${_view}_${_steps}
             COMMAND ${REDRAW_XVFB_RUN} -a -s "-screen 0 1600x1000x24"
                     $<TARGET_FILE:redraw> gui ${CMAKE_SOURCE_DIR}/assets/default.png
                     --preset ${CMAKE_CURRENT_LIST_DIR}/gui_tiny.json --backend cpu
                     --screenshot ${_gui_dir}/${_view}_${_steps}.png --screenshot-after-steps ${_steps})
    set_tests_properties(gui_${_view}_${_steps} PROPERTIES
      ENVIRONMENT "${_env}" TIMEOUT 300 FIXTURES_SETUP gui_${_view}_shots RESOURCE_LOCK xvfb)
  endforeach()
  add_test(NAME gui_${_view}_check
           COMMAND redraw_gui_insight_check ${_gui_dir}/${_view}_2.png ${_gui_dir}/${_view}_60.png)
  set_tests_properties(gui_${_view}_check PROPERTIES FIXTURES_REQUIRED gui_${_view}_shots)
endforeach()
