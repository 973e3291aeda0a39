# `redraw sweep`: included by tests/CMakeLists.txt.
# One machine: the grid checked up front, a failed cell, kill -9 and a second run, two sweeps on
# one folder (about 15 s).
add_test(NAME sweep COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/sweep.sh $<TARGET_FILE:redraw>)
set_tests_properties(sweep PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 180)
# report.html in headless Chromium: it renders with no console message, its table sorts.
add_test(NAME sweep_report COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/sweep_report.sh $<TARGET_FILE:redraw>)
set_tests_properties(sweep_report PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 180
                     SKIP_RETURN_CODE 77)
# A one-node Slurm cluster on localhost (root): an 8-cell sweep as a job array and its collect job;
# a task requeued while it trains resumes its cell (about 35 s).
add_test(NAME sweep_slurm COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/sweep_slurm.sh $<TARGET_FILE:redraw>)
set_tests_properties(sweep_slurm PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 150
                     SKIP_RETURN_CODE 77)
# A sweep folder others can write into: links planted at a cell's folder or at cells/ are refused,
# naming them, and write nothing where they point (about 5 s).
add_test(NAME sweep_hostile COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/sweep_hostile.sh $<TARGET_FILE:redraw>)
set_tests_properties(sweep_hostile PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 180)
