# Installing and packaging, included by tests/CMakeLists.txt. Label "packaging":
#   ctest -L packaging     just these; each skips (exit 77) when a tool it needs is missing
#                          (scripts/install_deps.sh installs them all).
# - install_tree: cmake --install into a prefix that is then moved; the installed redraw runs
#   from elsewhere (version, backends, a train with a preset, a window screenshot) and the desktop
#   files pass desktop-file-validate, appstreamcli and xmllint.
# - package_deb: cpack -G DEB, lintian, Depends against ldd, and dpkg -i / redraw --version /
#   dpkg -r when run as root.
# - completions: the bash and zsh completions know every option.
add_test(NAME install_tree
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/install_check.sh ${CMAKE_BINARY_DIR} ${PROJECT_VERSION}
                 ${REDRAW_CUDA} ${REDRAW_GUI} ${CMAKE_CURRENT_LIST_DIR}/../gui/gui_tiny.json)
# COST: the two longest tests of the suite start first, beside the unit tests, not at the end.
set_tests_properties(install_tree PROPERTIES LABELS packaging SKIP_RETURN_CODE 77 TIMEOUT 300
                     RESOURCE_LOCK xvfb COST 200)
add_test(NAME package_deb COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/package_check.sh ${CMAKE_BINARY_DIR})
set_tests_properties(package_deb PROPERTIES LABELS packaging SKIP_RETURN_CODE 77 TIMEOUT 600 COST 1000)
add_test(NAME completions
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/completions_check.sh $<TARGET_FILE:redraw> ${CMAKE_SOURCE_DIR})
set_tests_properties(completions PROPERTIES LABELS packaging)
