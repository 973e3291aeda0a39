# Timelapse and export command line (issue #5): included by tests/CMakeLists.txt.
add_test(NAME cli_timelapse COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli_timelapse.sh $<TARGET_FILE:redraw>
         WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(cli_timelapse PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets")
