#include "ui/session/user_folders.h"

#include <cstdlib>
#include <string>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace redraw {
namespace fs = std::filesystem;

namespace {
/// The user database's home folder when it is a folder this user owns, else "".
std::string passwd_home() {
  const passwd* pw = ::getpwuid(::getuid());
  struct stat st {};
  if (pw && pw->pw_dir && fs::path(pw->pw_dir).is_absolute() && ::stat(pw->pw_dir, &st) == 0 && S_ISDIR(st.st_mode) &&
      st.st_uid == ::getuid())
    return pw->pw_dir;
  return {};
}

fs::path folder_for(const char* var, const char* under_home, const char* leaf) {
  const std::string pw = std::getenv("HOME") ? std::string() : passwd_home();
  return user_folder(std::getenv(var), std::getenv("HOME"), pw.empty() ? nullptr : pw.c_str(), "/tmp", under_home,
                     leaf);
}
} // namespace

fs::path private_temp_folder(const fs::path& tmp_root) {
  const fs::path p = tmp_root / ("redraw-" + std::to_string(::getuid()));
  (void)::mkdir(p.c_str(), 0700);
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid() || (st.st_mode & 077) != 0)
    return {};
  return p;
}

fs::path user_folder(const char* xdg_value, const char* home, const char* passwd_home, const fs::path& tmp_root,
                     const char* under_home, const char* leaf) {
  if (xdg_value && *xdg_value && fs::path(xdg_value).is_absolute()) return fs::path(xdg_value) / "redraw";
  if (home && *home && fs::path(home).is_absolute()) return fs::path(home) / under_home / "redraw";
  if (passwd_home && *passwd_home) return fs::path(passwd_home) / under_home / "redraw";
  if (const fs::path tmp = private_temp_folder(tmp_root); !tmp.empty()) return tmp / leaf;
  return {};
}

fs::path config_folder() { return folder_for("XDG_CONFIG_HOME", ".config", "config"); }
fs::path data_folder() { return folder_for("XDG_DATA_HOME", ".local/share", "data"); }

std::string user_folder_notice() {
  const char* home = std::getenv("HOME");
  const bool has_home = home && *home && fs::path(home).is_absolute();
  if (has_home) return {};
  const fs::path data = data_folder();
  const std::string why = home && *home ? "HOME is not an absolute path" : "HOME is not set";
  if (data.empty())
    return why + " and no private folder could be made in /tmp: settings are not kept and autosave is off";
  if (data.string().rfind("/tmp/", 0) == 0)
    return why + ": settings and autosaves go to the private folder " + data.parent_path().string() + " (mode 0700)";
  if (!std::getenv("XDG_DATA_HOME") || !std::getenv("XDG_CONFIG_HOME"))
    return why + ": settings and autosaves go under " + passwd_home() + " (the user database's home)";
  return {};
}
fs::path imgui_ini_path() { return config_folder() / "imgui.ini"; }

} // namespace redraw
