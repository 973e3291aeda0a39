#include "engine/install_paths.h"

#include <cstdlib>
#include <system_error>

// Both come from CMake (packaging/install.cmake); these defaults match a plain GNUInstallDirs tree.
#ifndef REDRAW_DATA_RELDIR
#define REDRAW_DATA_RELDIR "../share/redraw"
#endif
#ifndef REDRAW_MODULE_RELDIR
#define REDRAW_MODULE_RELDIR "../lib/redraw"
#endif

namespace redraw {

std::filesystem::path executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

std::filesystem::path find_asset_dir(AssetSource* source) {
  auto found = [source](AssetSource s, std::filesystem::path p) {
    if (source) *source = s;
    return p;
  };
  if (const char* env = std::getenv("REDRAW_ASSETS"); env && *env) return found(AssetSource::Environment, env);
  if (const auto exe = executable_dir(); !exe.empty()) {
    std::error_code ec;
    const auto installed = (exe / REDRAW_DATA_RELDIR).lexically_normal();
    if (std::filesystem::is_directory(installed / "presets", ec)) return found(AssetSource::Installed, installed);
  }
  return found(AssetSource::SourceTree, REDRAW_ASSET_DIR);
}

const char* asset_source_name(AssetSource s) {
  switch (s) {
  case AssetSource::Environment: return "REDRAW_ASSETS";
  case AssetSource::Installed: return "installed";
  case AssetSource::SourceTree: return "source tree";
  }
  return "?";
}

const char* installed_module_reldir() { return REDRAW_MODULE_RELDIR; }

} // namespace redraw
