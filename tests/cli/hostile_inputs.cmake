# Inputs from elsewhere: crafted model files, extreme aspect ratios, two writers on one folder,
# signals and missing homes. Shell tests, each one command over the built redraw.
add_test(NAME hostile_models COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/hostile_models.sh $<TARGET_FILE:redraw>)
set_tests_properties(hostile_models PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 300)

# The GUI's open path against crafted models, a 1x5000 run scrubbed, and very long text
# (screenshots in build/gui_test/hostile/).
if(REDRAW_GUI AND REDRAW_XVFB_RUN)
  add_test(NAME gui_hostile
           COMMAND ${CMAKE_COMMAND} -E env "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" ${REDRAW_TEST_LD_PRELOAD_ENV}
                   bash ${CMAKE_CURRENT_LIST_DIR}/../gui/gui_hostile.sh $<TARGET_FILE:redraw> ${CMAKE_BINARY_DIR}/gui_test/hostile)
  set_tests_properties(gui_hostile PROPERTIES TIMEOUT 600 RESOURCE_LOCK xvfb)
endif()

# 1x5000, 5000x1 and 1x1 through every render, compare, timelapse and export path (and, with a
# GUI, its spectrum and neuron-map views; screenshots in build/gui_test/aspect/).
set(_aspect_gui_dir "")
if(REDRAW_GUI AND REDRAW_XVFB_RUN)
  set(_aspect_gui_dir ${CMAKE_BINARY_DIR}/gui_test/aspect)
endif()
add_test(NAME aspect_ratios
         COMMAND ${CMAKE_COMMAND} -E env "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" ${REDRAW_TEST_LD_PRELOAD_ENV}
                 bash ${CMAKE_CURRENT_LIST_DIR}/aspect_ratios.sh $<TARGET_FILE:redraw> ${_aspect_gui_dir})
set_tests_properties(aspect_ratios PROPERTIES TIMEOUT 900 RESOURCE_LOCK xvfb)

# Two trainers on one --out: the second is refused naming the first; a kill -9 lock is stale.
add_test(NAME one_writer COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/one_writer.sh $<TARGET_FILE:redraw>)
set_tests_properties(one_writer PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 300)

# SIGTERM and SIGHUP to a training GUI: autosaved before exit, offered at the next launch.
if(REDRAW_GUI AND REDRAW_XVFB_RUN)
  add_test(NAME gui_signals
           COMMAND ${CMAKE_COMMAND} -E env "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" ${REDRAW_TEST_LD_PRELOAD_ENV}
                   bash ${CMAKE_CURRENT_LIST_DIR}/../gui/gui_signals.sh $<TARGET_FILE:redraw> ${CMAKE_SOURCE_DIR}/assets
                   ${CMAKE_CURRENT_LIST_DIR}/../gui/gui_tiny.json)
  set_tests_properties(gui_signals PROPERTIES TIMEOUT 400 RESOURCE_LOCK xvfb)
endif()

# Model files whose chunks unpack to gigabytes: opened or refused in under 2 s and 600 MB.
add_test(NAME model_bombs COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/model_bombs.sh $<TARGET_FILE:redraw>)
set_tests_properties(model_bombs PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 300)

# SIGTERM, SIGINT and SIGHUP stop `train --full` on a 2048x2048 picture promptly, saving the last
# finished step; a second signal during the save is told so, a third ends at once.
add_test(NAME train_signals COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/train_signals.sh $<TARGET_FILE:redraw>)
set_tests_properties(train_signals PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 300)

# Valid but unusual images (top-down BMP, 64-bit and half float TIFF) and images cut short, as
# info and train show them.
add_test(NAME damaged_images COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/damaged_images.sh $<TARGET_FILE:redraw>)
set_tests_properties(damaged_images PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 300)

# JSON nested 100,000 deep in --config, --spec, --set, sweep.json and a model's metadata: refused,
# naming the file and the field, never a crash.
add_test(NAME deep_json COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/deep_json.sh $<TARGET_FILE:redraw>)
set_tests_properties(deep_json PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 120)

# Under the sanitizers, the shell tests that start the GUI preload what the GUI smoke tests do
# (tests/gui/gui.cmake): the GL driver stays loaded at exit, so LeakSanitizer can name it and the
# suppressions for its leaks apply (unloaded, its leaks show as "<unknown module>").
if(REDRAW_TEST_LD_PRELOAD)
  foreach(_t gui_hostile aspect_ratios gui_signals)
    if(TEST ${_t})
      set_property(TEST ${_t} APPEND PROPERTY ENVIRONMENT "LD_PRELOAD=${REDRAW_TEST_LD_PRELOAD}")
    endif()
  endforeach()
endif()
