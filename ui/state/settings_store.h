#pragma once
/// Where the app remembers things between runs (XDG Base Directory):
/// - $XDG_CONFIG_HOME/redraw/settings.json (default ~/.config): preset, backend, preview interval,
///   window size, panel sizes, last folder.
/// - $XDG_CONFIG_HOME/redraw/imgui.ini: ImGui's own window layout.
/// - $XDG_DATA_HOME/redraw/recent.json (default ~/.local/share): recent files, newest first.
/// - $XDG_DATA_HOME/redraw/autosave/: the running model's autosave (ui/session/autosave.h).
/// Loading never throws: a missing or unreadable file gives the defaults. Saving reports failure
/// through the return value (the caller shows it) and writes atomically.
#include "ui/session/user_folders.h"
#include "ui/state/ui_state.h"

#include <filesystem>
#include <string>

namespace redraw {


Settings load_settings();
/// Writes settings.json and recent.json; returns an error message, or "" on success.
std::string save_settings(const Settings& s);
/// The largest image memory budget a setting or the field accepts, in MiB (1 TiB).
constexpr int32_t k_max_image_memory_mb = 1 << 20;
/// The largest CPU thread count a setting or the field accepts.
constexpr int32_t k_max_cpu_threads = 1024;
/// The smallest remembered window, and the panel sizes (pixels at UI scale 1) settings keep.
constexpr int32_t k_min_window_width = 640, k_min_window_height = 480;
constexpr float k_min_controls_width = 260.0f, k_min_plots_height = 120.0f, k_max_panel_size = 1200.0f;
/// Clamps the window and panel sizes and the UI scale into the ranges above (NaN: the default).
void sanitize_layout(Settings& s);
/// What to save when the window is `window_width` x `window_height` now: that size when it is at
/// least the smallest remembered window (a shrunk or iconified window keeps the last one), and a
/// sanitized layout. Never a degenerate layout.
Settings settings_for_save(const Settings& current, int32_t window_width, int32_t window_height);
/// Moves `path` to the front of the recent list (at most 10, no duplicates).
void add_recent(Settings& s, const std::string& path);

} // namespace redraw
