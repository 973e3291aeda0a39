# Dear ImGui from Debian (libimgui-dev 1.86: libimgui.a holds the GLFW and OpenGL3 backends),
# GLFW 3, and glad 2 generated at configure time into the build tree (nothing generated is committed).
pkg_check_modules(GLFW REQUIRED IMPORTED_TARGET glfw3)
pkg_check_modules(IMGUI REQUIRED IMPORTED_TARGET imgui)
find_package(OpenGL REQUIRED)
find_program(GLAD_EXECUTABLE glad REQUIRED)

set(REDRAW_GLAD_DIR ${CMAKE_BINARY_DIR}/glad)
if(NOT EXISTS ${REDRAW_GLAD_DIR}/src/gl.c)
  execute_process(
    COMMAND ${GLAD_EXECUTABLE} --api gl:core=3.3 --out-path ${REDRAW_GLAD_DIR} --reproducible c
    RESULT_VARIABLE _glad_result OUTPUT_QUIET ERROR_VARIABLE _glad_err)
  if(NOT _glad_result EQUAL 0)
    message(FATAL_ERROR "glad generation failed: ${_glad_err}")
  endif()
endif()
add_library(redraw_glad STATIC ${REDRAW_GLAD_DIR}/src/gl.c)
target_include_directories(redraw_glad PUBLIC ${REDRAW_GLAD_DIR}/include)
target_link_libraries(redraw_glad PUBLIC ${CMAKE_DL_LIBS})

file(GLOB REDRAW_UI_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/ui/*/*.cpp)
add_library(redraw_ui STATIC ${REDRAW_UI_SOURCES})
target_compile_options(redraw_ui PRIVATE ${REDRAW_WARNINGS})
redraw_precompile(redraw_ui <imgui.h>)
# Debian ships imgui's backends under <imgui>/backends; pkg-config names only the top folder.
foreach(_dir ${IMGUI_INCLUDE_DIRS})
  if(EXISTS ${_dir}/backends/imgui_impl_glfw.h)
    target_include_directories(redraw_ui PRIVATE ${_dir}/backends)
  endif()
endforeach()
# imgui's libimgui.a needs stb after it on the link line.
# ui/ knows engine's interfaces only: app/ hands it the backend factory and the GPU interop.
target_link_libraries(redraw_ui PUBLIC redraw_engine redraw_glad PkgConfig::GLFW PkgConfig::IMGUI PkgConfig::STB OpenGL::GL)
