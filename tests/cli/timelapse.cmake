# Timelapse and export command line: included by tests/CMakeLists.txt.
add_test(NAME cli_timelapse COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_timelapse.sh $<TARGET_FILE:redraw>
         WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(cli_timelapse PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets")
# Fault tests: kill -9, a full disk, an injected NaN, SIGINT/SIGTERM.
add_test(NAME fault_tests COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/fault_tests.sh $<TARGET_FILE:redraw>
         WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(fault_tests PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 600)
