# Inputs from elsewhere: crafted model files, extreme aspect ratios, two writers on one folder,
# signals and missing homes. Shell tests, each one command over the built redraw.
add_test(NAME hostile_models COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/hostile_models.sh $<TARGET_FILE:redraw>)
set_tests_properties(hostile_models PROPERTIES ENVIRONMENT "REDRAW_ASSETS=${CMAKE_SOURCE_DIR}/assets" TIMEOUT 300)
