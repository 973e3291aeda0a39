# `cmake --install` as a desktop program, in GNUInstallDirs folders (paths below are under the prefix):
#   bin/redraw                                      the app and its command line
#   <libdir>/redraw/libredraw_cuda.so               the GPU module (REDRAW_CUDA), loaded when a driver
#                                                   and cuBLAS are there (app/device_plugin_loader.h)
#   share/redraw/{default.png,presets/,published/}
#   share/applications/redraw.desktop               opens images and .redraw models (%f); this and
#                                                   the next three only with the desktop app (REDRAW_GUI)
#   share/icons/hicolor/{16x16..512x512,scalable}/apps/redraw.{png,svg}
#   share/mime/packages/redraw.xml                  application/x-redraw: *.redraw, magic RDRWMODL
#   share/metainfo/<id>.metainfo.xml                AppStream, with a screenshot
#   share/man/man1/redraw.1.gz                      help2man from the CLI's --help (when help2man is there)
#   share/bash-completion/completions/redraw, share/zsh/vendor-completions/_redraw
#   share/doc/redraw/{copyright,changelog.gz,README.md}
# The executable finds share/redraw and <libdir>/redraw relative to itself (engine/install_paths.h),
# so a moved prefix keeps working.

# No public home yet: these placeholders (.invalid never resolves) go into the AppStream file and the
# Debian package; set them when there is one.
set(REDRAW_HOMEPAGE "https://redraw.invalid/" CACHE STRING "Project home page (AppStream, Debian Homepage)")
set(REDRAW_SCREENSHOT_URL "${REDRAW_HOMEPAGE}screenshot.png" CACHE STRING "URL of assets/screenshot.png (AppStream)")
set(REDRAW_APPSTREAM_ID "invalid.redraw.Redraw" CACHE STRING "AppStream component id (reverse DNS of the home page)")
set(REDRAW_LICENSE "MIT" CACHE STRING "SPDX licence of Redraw itself (LICENSE)")
set(REDRAW_RELEASE_DATE "2026-11-23" CACHE STRING "Date of the release PROJECT_VERSION (AppStream)")

set(_pkg ${CMAKE_SOURCE_DIR}/packaging)
set(_out ${CMAKE_BINARY_DIR}/packaging)
set(_data ${CMAKE_INSTALL_DATADIR})

install(TARGETS redraw RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(REDRAW_CUDA)
  install(TARGETS redraw_cuda_module LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/redraw)
endif()
install(FILES ${CMAKE_SOURCE_DIR}/assets/default.png DESTINATION ${_data}/redraw)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/assets/presets DESTINATION ${_data}/redraw FILES_MATCHING PATTERN "*.json")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/assets/published DESTINATION ${_data}/redraw FILES_MATCHING PATTERN "*.json") # redraw bench's published rows

# ---- desktop integration (a build without the desktop app has nothing to launch) ----
if(REDRAW_GUI)
  install(FILES ${_pkg}/redraw.desktop DESTINATION ${_data}/applications)
  install(FILES ${_pkg}/redraw-mime.xml DESTINATION ${_data}/mime/packages RENAME redraw.xml)
  install(FILES ${CMAKE_SOURCE_DIR}/assets/icons/redraw.svg DESTINATION ${_data}/icons/hicolor/scalable/apps)
  foreach(_size 16 22 24 32 48 64 128 256 512)
    install(FILES ${CMAKE_SOURCE_DIR}/assets/icons/png/redraw-${_size}.png
            DESTINATION ${_data}/icons/hicolor/${_size}x${_size}/apps RENAME redraw.png)
  endforeach()
  configure_file(${_pkg}/redraw.metainfo.xml.in ${_out}/${REDRAW_APPSTREAM_ID}.metainfo.xml @ONLY)
  install(FILES ${_out}/${REDRAW_APPSTREAM_ID}.metainfo.xml DESTINATION ${_data}/metainfo)
endif()

# ---- shell completions ----
install(FILES ${_pkg}/completions/redraw.bash DESTINATION ${_data}/bash-completion/completions RENAME redraw)
# Debian's zsh reads vendor-completions; elsewhere (or for /usr/local) choose site-functions.
set(REDRAW_ZSH_COMPLETION_DIR "${_data}/zsh/vendor-completions" CACHE STRING "Where _redraw is installed")
install(FILES ${_pkg}/completions/_redraw DESTINATION ${REDRAW_ZSH_COMPLETION_DIR})

# ---- documentation: the man page, the copyright file, the changelog ----
find_program(REDRAW_HELP2MAN help2man)
if(REDRAW_HELP2MAN)
  file(GLOB _preset_jsons CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/assets/presets/*.json)
  add_custom_command(
    OUTPUT ${_out}/redraw.1.gz
    COMMAND ${CMAKE_COMMAND} -DREDRAW=$<TARGET_FILE:redraw> -DHELP2MAN=${REDRAW_HELP2MAN}
            -DVERSION=${PROJECT_VERSION} -DINCLUDE=${_pkg}/redraw.h2m
            -DPRESETS=${CMAKE_SOURCE_DIR}/assets/presets -DOUT=${_out}/redraw.1
            -P ${_pkg}/man_page.cmake
    DEPENDS redraw ${_pkg}/man_page.cmake ${_pkg}/redraw.h2m ${_preset_jsons}
    COMMENT "Man page redraw.1 (help2man)" VERBATIM)
  add_custom_target(redraw_man_page ALL DEPENDS ${_out}/redraw.1.gz)
  install(FILES ${_out}/redraw.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man page is installed (apt-get install help2man)")
endif()

# Debian wants the copyright file and a changelog compressed with gzip -9n (no timestamp), and both
# serve any install as well.
file(READ ${CMAKE_SOURCE_DIR}/LICENSE REDRAW_LICENSE_TEXT)
configure_file(${_pkg}/copyright.in ${_out}/copyright @ONLY) # REDRAW_ATTRIBUTION_MD: version.cmake
add_custom_command(
  OUTPUT ${_out}/changelog.gz
  COMMAND gzip -9nc ${_pkg}/changelog > ${_out}/changelog.gz
  DEPENDS ${_pkg}/changelog VERBATIM)
add_custom_target(redraw_changelog ALL DEPENDS ${_out}/changelog.gz)
install(FILES ${_out}/copyright ${_out}/changelog.gz ${CMAKE_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
