#pragma once
/// What `redraw --version` prints and the GUI's About box shows (app/ hands both to ui/).
/// Nothing here loads the GPU module or looks for devices: `redraw info --backends` does that.
#include <string>

namespace redraw::cli {

/// "redraw 0.1.0 (git v0.1.0-3-gabc1234)": the version of CMake's project() and, when built from
/// a git checkout, `git describe --tags --always --dirty` at build time.
std::string version_line();

/// version_line(), then one line each: the build (type, compiler, C++ standard), the backends
/// compiled in with their libraries, where the GPU module is (or was looked for), the desktop
/// app's libraries, and the data folder in use with how it was found.
std::string version_text();

/// The licences of the bundled assets and libraries (assets/ATTRIBUTION.md, built in as Markdown).
const char* licences_text();

} // namespace redraw::cli
