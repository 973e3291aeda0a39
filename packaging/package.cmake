# A Debian package of the install (packaging/install.cmake): `cpack -G DEB` in the build folder.
# - Depends is computed by dpkg-shlibdeps from the ELF files in the package. The CUDA module's
#   cuBLAS is no Debian package: its folder is a private search folder, so dpkg-shlibdeps finds
#   the file, finds no package for it and adds nothing (CPack passes --ignore-missing-info). The
#   GPU stays optional at run time: the module loads when a driver and cuBLAS are there, and
#   otherwise redraw says why and trains on the CPU. tests/project/package_check.sh checks that Depends
#   names no CUDA package and covers every library redraw and the module load.
# - The package installs under /usr whatever prefix was configured; the module goes to
#   /usr/<libdir>/redraw, which redraw finds relative to itself (REDRAW_MODULE_RELDIR).
#   scripts/package.sh builds and packages in one go.
# cpack packs what was built and never builds: scripts/package.sh builds first, and a cpack run by
# the tests cannot relink a binary that another test is running. (`make install` likewise.)
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(REDRAW_MAINTAINER "The Redraw developers <maintainers@redraw.invalid>" CACHE STRING
    "Debian Maintainer field (no public address yet)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME redraw)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The Redraw developers")
set(CPACK_PACKAGE_CONTACT ${REDRAW_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "watch a neural network learn to draw an image")
set(CPACK_PACKAGE_DESCRIPTION
"Redraw treats a picture as a function f(x, y) -> colour, trains a small
neural network on it and redraws the network's picture live while it learns.
The trained network is a resolution-free copy of the image: render it at any
size, scrub the timelapse of how it formed, and export both.

The desktop app shows the loss, PSNR and learning-rate curves and an error map;
presets cover the classic tanh network, SIREN and Fourier features. A command
line trains, renders and exports headless.

Training runs on the CPU (OpenBLAS). The CUDA backend ships as a module that
loads when an NVIDIA driver and cuBLAS are installed; nothing in this package
depends on them.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${REDRAW_HOMEPAGE})
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# GLFW opens the OpenGL library at run time; libglfw3 depends on libgl1, which brings Mesa.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "ffmpeg")
# The Python module (python/, docs/python.md): built for one interpreter, which it depends on;
# it returns numpy arrays. dpkg-shlibdeps appends the libraries' packages to this Depends.
if(TARGET redraw_python)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${REDRAW_PYTHON_DEBIAN_DEPENDS}")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-numpy")
endif()
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
if(REDRAW_CUDA)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR})
endif()
include(CPack)
