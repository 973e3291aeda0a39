# `redraw bench`: included by tests/CMakeLists.txt.
# The smoke protocol end to end on two crops, its table checked against ImageMagick and a numpy
# MS-SSIM, report.html in headless Chromium (about 25 s).
add_test(NAME bench_smoke COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/bench.sh $<TARGET_FILE:redraw>)
set_tests_properties(bench_smoke PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 120
                     SKIP_RETURN_CODE 77)
