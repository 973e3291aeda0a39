#include "app/cli_version.h"

#include "app/device_plugin_loader.h"
#include "cpu/openblas_kernels.h"
#include "engine/install_paths.h"

#include "redraw_attribution.h"  // generated at configure time: k_attribution_md
#include "redraw_git_describe.h" // generated at build time: REDRAW_GIT_DESCRIBE

#include <filesystem>
#include <system_error>

// Set by CMake on this file only (CMakeLists.txt: "version"), so a new compiler or library
// version recompiles one file.
#ifndef REDRAW_BUILD_TYPE
#define REDRAW_BUILD_TYPE ""
#endif

namespace redraw::cli {

namespace {

std::string gpu_module_line() {
#if REDRAW_HAVE_CUDA
  std::string looked;
  for (const auto& candidate : device_plugin_candidates()) {
    std::error_code ec;
    if (std::filesystem::exists(candidate, ec)) return "cuda module: " + candidate + "\n";
    looked += (looked.empty() ? "" : ", ") + candidate;
  }
  return "cuda module: not found (looked for " + looked + ")\n";
#else
  return {};
#endif
}

} // namespace

std::string version_line() {
  std::string s = std::string("redraw ") + REDRAW_VERSION;
  if (*REDRAW_GIT_DESCRIBE) s += std::string(" (git ") + REDRAW_GIT_DESCRIBE + ")";
  return s;
}

std::string version_text() {
  std::string s = version_line() + "\n";
  s += std::string("build: ") + (*REDRAW_BUILD_TYPE ? REDRAW_BUILD_TYPE : "no build type") + ", " +
       REDRAW_BUILD_COMPILER + ", C++" + std::to_string(__cplusplus / 100 % 100) + "\n";
  s += std::string("backends: cpu (OpenBLAS ") + REDRAW_BUILD_OPENBLAS + ", OpenMP " + REDRAW_BUILD_OPENMP + ")";
#if REDRAW_HAVE_CUDA
  s += std::string(", cuda (run-time module; CUDA ") + REDRAW_BUILD_CUDA + ", architectures " +
       REDRAW_BUILD_CUDA_ARCHS + ")\n";
#else
  s += "; cuda not compiled in\n";
#endif
  s += gpu_module_line();
  s += "cpu kernels: " + openblas_kernel_description() + "\n";
#if REDRAW_HAVE_GUI
  s += std::string("desktop app: Dear ImGui ") + REDRAW_BUILD_IMGUI + ", GLFW " + REDRAW_BUILD_GLFW +
       ", OpenGL 3.3 core (glad)\n";
#else
  s += "desktop app: not built (-DREDRAW_GUI=OFF)\n";
#endif
  AssetSource source{};
  const auto data = find_asset_dir(&source);
  s += "data: " + data.string() + " (" + asset_source_name(source) + ")\n";
  return s;
}

const char* licences_text() { return k_attribution_md; }

} // namespace redraw::cli
