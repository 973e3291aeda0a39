# What `redraw --version` and the About box say (app/cli_version.cpp):
# - the build's facts, as compile definitions on that one file;
# - assets/ATTRIBUTION.md built in (generated/redraw_attribution.h, rewritten at configure time);
# - `git describe` of the source tree (generated/redraw_git_describe.h, refreshed at every build
#   and rewritten only when it changes, so an unchanged tree relinks nothing).
set(_cli_version ${CMAKE_SOURCE_DIR}/app/cli_version.cpp)
string(REPLACE "GNU" "GCC" _compiler "${CMAKE_CXX_COMPILER_ID}")
set(_build_info
  REDRAW_BUILD_TYPE="${CMAKE_BUILD_TYPE}"
  REDRAW_BUILD_COMPILER="${_compiler} ${CMAKE_CXX_COMPILER_VERSION}"
  REDRAW_BUILD_OPENBLAS="${OPENBLAS_VERSION}"
  REDRAW_BUILD_OPENMP="${OpenMP_CXX_VERSION}")
if(REDRAW_CUDA)
  string(REPLACE ";" " " _archs "${CMAKE_CUDA_ARCHITECTURES}")
  list(APPEND _build_info REDRAW_HAVE_CUDA=1 REDRAW_BUILD_CUDA="${CUDAToolkit_VERSION}"
       REDRAW_BUILD_CUDA_ARCHS="${_archs}")
endif()
if(REDRAW_GUI)
  list(APPEND _build_info REDRAW_HAVE_GUI=1 REDRAW_BUILD_IMGUI="${IMGUI_VERSION}" REDRAW_BUILD_GLFW="${GLFW_VERSION}")
endif()
set_property(SOURCE ${_cli_version} APPEND PROPERTY COMPILE_DEFINITIONS ${_build_info})

set(_attribution ${CMAKE_SOURCE_DIR}/assets/ATTRIBUTION.md)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_attribution})
file(READ ${_attribution} REDRAW_ATTRIBUTION_MD)
if(REDRAW_ATTRIBUTION_MD MATCHES "\\)redraw_md\"")
  message(FATAL_ERROR "assets/ATTRIBUTION.md contains the raw-string delimiter )redraw_md\"")
endif()
file(CONFIGURE OUTPUT ${REDRAW_GENERATED_DIR}/redraw_attribution.h @ONLY CONTENT
"// Generated from assets/ATTRIBUTION.md by packaging/version.cmake; do not edit.
#pragma once
inline constexpr const char k_attribution_md[] = R\"redraw_md(@REDRAW_ATTRIBUTION_MD@)redraw_md\";
")

add_custom_target(redraw_git_describe
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUT=${REDRAW_GENERATED_DIR}/redraw_git_describe.h
          -P ${CMAKE_SOURCE_DIR}/packaging/git_describe.cmake
  BYPRODUCTS ${REDRAW_GENERATED_DIR}/redraw_git_describe.h
  COMMENT "git describe" VERBATIM)
add_dependencies(redraw redraw_git_describe)
target_include_directories(redraw PRIVATE ${REDRAW_GENERATED_DIR})
