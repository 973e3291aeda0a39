#pragma once
/// The app's private folders (XDG Base Directory): settings under config_folder(), autosaves and
/// recent files under data_folder() (ui/state/settings_store.h, ui/session/autosave.h). Plain
/// paths, no app state: the session's autosave and the window's settings both ask here.
#include <filesystem>
#include <string>

namespace redraw {

/// $XDG_CONFIG_HOME/redraw or ~/.config/redraw (see user_folder_notice() without HOME); "" when
/// there is no private place: nothing is read or written then.
std::filesystem::path config_folder();
std::filesystem::path data_folder();
/// With HOME unset, where settings and autosaves go instead (never the shared /tmp itself: a
/// private /tmp/redraw-<uid> of mode 0700 that this user owns, or nowhere), said in one line for
/// the messages; "" when HOME is set.
std::string user_folder_notice();
/// The rule behind config_folder() and data_folder(), with its inputs given: $XDG (absolute) /
/// redraw, else HOME/<under_home>/redraw, else the user database's home, else
/// private_temp_folder(tmp_root)/<leaf>, else "".
std::filesystem::path user_folder(const char* xdg_value, const char* home, const char* passwd_home,
                                  const std::filesystem::path& tmp_root, const char* under_home, const char* leaf);
/// tmp_root/redraw-<uid>, made with mode 0700 when missing; "" unless it is a folder (not a link)
/// owned by this user that no one else may enter.
std::filesystem::path private_temp_folder(const std::filesystem::path& tmp_root);
std::filesystem::path imgui_ini_path();

} // namespace redraw
