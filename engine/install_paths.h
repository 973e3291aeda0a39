#pragma once
/// Where Redraw's files are, found the same way in the build tree and in an installed tree.
/// - The installed layout is relative to the executable (GNUInstallDirs, fixed at configure time):
///   <bindir>/redraw, <datadir>/redraw/{default.png,presets/}, <libdir>/redraw/libredraw_cuda.so.
///   A prefix moved elsewhere as a whole keeps working.
/// - The build tree has no data folder beside bin/: it falls back to the source tree's assets/.
#include <filesystem>
#include <string>

namespace redraw {

/// Folder of the running executable (from /proc/self/exe); empty when it cannot be read.
std::filesystem::path executable_dir();

/// Where asset_dir() found the data, for --version and messages.
enum class AssetSource { Environment, Installed, SourceTree };

/// Folder holding default.png and presets/: $REDRAW_ASSETS when set, else the installed data
/// folder relative to the executable when it holds presets/, else the source tree's assets/.
/// `source`, when given, says which of the three it is. Never throws.
std::filesystem::path find_asset_dir(AssetSource* source = nullptr);

/// "REDRAW_ASSETS", "installed" or "source tree".
const char* asset_source_name(AssetSource s);

/// The GPU module's folder relative to the executable in an installed tree ("../lib/redraw").
const char* installed_module_reldir();

} // namespace redraw
