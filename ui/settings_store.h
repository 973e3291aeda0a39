#pragma once
/// Where the app remembers things between runs (XDG Base Directory):
/// - $XDG_CONFIG_HOME/redraw/settings.json (default ~/.config): preset, backend, preview interval,
///   window size, panel sizes, last folder.
/// - $XDG_CONFIG_HOME/redraw/imgui.ini: ImGui's own window layout.
/// - $XDG_DATA_HOME/redraw/recent.json (default ~/.local/share): recent files, newest first.
/// - $XDG_DATA_HOME/redraw/autosave/: the running model's autosave (ui/autosave.h).
/// Loading never throws: a missing or unreadable file gives the defaults. Saving reports failure
/// through the return value (the caller shows it) and writes atomically.
#include "ui/ui_state.h"

#include <filesystem>
#include <string>

namespace redraw {

std::filesystem::path config_folder();
std::filesystem::path data_folder();
std::filesystem::path imgui_ini_path();

Settings load_settings();
/// Writes settings.json and recent.json; returns an error message, or "" on success.
std::string save_settings(const Settings& s);
/// Moves `path` to the front of the recent list (at most 10, no duplicates).
void add_recent(Settings& s, const std::string& path);

} // namespace redraw
