#include "ui/session/autosave.h"

#include "ui/session/user_folders.h"

#include "engine/folder_lock.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <fstream>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace redraw {
namespace fs = std::filesystem;

namespace {
/// A session is alive while its process holds the flock on its lock file, or (a lock written
/// before locks were held) while its pid is a live process; a zombie is dead.
bool session_alive(const fs::path& lock, long pid) { return lock_file_held(lock) || process_exists(pid); }

/// The pid in "session-<pid>.lock", or 0.
long lock_pid(const std::string& name) {
  const std::string prefix = "session-", suffix = ".lock";
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return 0;
  const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.empty() || digits.size() > 10 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return 0;
  return std::stol(digits);
}

std::string local_time_of(const fs::path& p) {
  std::error_code ec;
  const auto t = fs::last_write_time(p, ec);
  if (ec) return "an unknown time";
  const auto sys = fs::file_time_type::clock::to_sys(t);
  const std::time_t tt = std::chrono::system_clock::to_time_t(sys);
  std::tm tm{};
  localtime_r(&tt, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M", &tm);
  return b;
}
} // namespace

fs::path autosave_folder() {
  const fs::path data = data_folder();
  return data.empty() ? fs::path() : data / "autosave"; // no private folder: no autosave
}

fs::path autosave_fallback_folder() {
  std::error_code ec;
  const fs::path tmp = private_temp_folder(fs::temp_directory_path(ec));
  if (tmp.empty()) return {};
  const fs::path folder = tmp / "autosave";
  return folder == autosave_folder() ? fs::path() : folder;
}

AutosaveSession::AutosaveSession(fs::path folder) : m_folder(std::move(folder)) { m_ok = take_lock(); }

bool AutosaveSession::take_lock() {
  if (m_folder.empty()) return false; // not ok(): nowhere private to write
  const std::string pid = std::to_string(::getpid());
  m_lock = m_folder / ("session-" + pid + ".lock");
  m_model = m_folder / ("autosave-" + pid + ".redraw");
  std::error_code ec;
  fs::create_directories(m_folder, ec);
  m_fd = ::open(m_lock.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644); // never through a link
  const std::string text = pid + "\n";
  // Held for the session's life: the kernel releases it however the process ends.
  return m_fd >= 0 && ::flock(m_fd, LOCK_EX | LOCK_NB) == 0 &&
         ::write(m_fd, text.data(), text.size()) == ssize_t(text.size());
}

bool AutosaveSession::move_to_fallback() {
  const fs::path fallback = autosave_fallback_folder();
  if (fallback.empty() || fallback == m_folder) return false;
  const fs::path old_lock = m_lock;
  const int old_fd = m_fd;
  m_folder = fallback;
  m_fd = -1;
  if (!take_lock()) return false;
  std::error_code ec;
  fs::remove(old_lock, ec); // the session is there now; here it left nothing to restore
  if (old_fd >= 0) ::close(old_fd);
  return true;
}

AutosaveSession::~AutosaveSession() {
  if (m_fd >= 0) ::close(m_fd);
}

void AutosaveSession::finish_clean() {
  if (m_finished) return;
  m_finished = true;
  std::error_code ec;
  if (fs::exists(m_model, ec)) fs::rename(m_model, m_folder / "last-session.redraw", ec);
  fs::remove(m_lock, ec);
}

std::vector<CrashedSession> find_crashed_sessions() {
  std::vector<CrashedSession> out = find_crashed_sessions(autosave_folder());
  if (const fs::path fallback = autosave_fallback_folder(); !fallback.empty()) {
    std::vector<CrashedSession> more = find_crashed_sessions(fallback);
    out.insert(out.end(), more.begin(), more.end());
    std::stable_sort(out.begin(), out.end(), [](const CrashedSession& a, const CrashedSession& b) {
      std::error_code e1, e2;
      return fs::last_write_time(a.model, e1) > fs::last_write_time(b.model, e2);
    });
  }
  return out;
}

std::vector<CrashedSession> find_crashed_sessions(const fs::path& folder) {
  std::vector<CrashedSession> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    const long pid = lock_pid(e.path().filename().string());
    if (pid == 0 || pid == long(::getpid()) || session_alive(e.path(), pid)) continue;
    CrashedSession s;
    s.pid = pid;
    s.lock = e.path();
    s.model = folder / ("autosave-" + std::to_string(pid) + ".redraw");
    std::error_code rm;
    if (!fs::exists(s.model, rm)) {
      fs::remove(s.lock, rm); // crashed before its first autosave: nothing to offer
      continue;
    }
    s.saved_at = local_time_of(s.model);
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const CrashedSession& a, const CrashedSession& b) {
    std::error_code e1, e2;
    return fs::last_write_time(a.model, e1) > fs::last_write_time(b.model, e2);
  });
  return out;
}

void discard_crashed_session(const CrashedSession& s) {
  std::error_code ec;
  fs::remove(s.model, ec);
  fs::remove(s.lock, ec);
}

fs::path adopt_crashed_session(const CrashedSession& s) {
  std::error_code ec;
  const fs::path restored = s.model.parent_path() / ("restored-" + std::to_string(s.pid) + ".redraw");
  fs::rename(s.model, restored, ec);
  fs::remove(s.lock, ec);
  return fs::exists(restored, ec) ? restored : fs::path();
}

void AutosaveRecord::succeeded(uint64_t trainer_id, int64_t step) {
  m_trainer = trainer_id;
  m_step = step;
  m_failed = false;
  std::lock_guard lock(m_mutex);
  m_error.clear();
}

bool AutosaveRecord::failed(const std::string& why) {
  const bool first = !m_failed;
  m_failed = true;
  std::lock_guard lock(m_mutex);
  m_error = why;
  return first;
}

std::string AutosaveRecord::error() const {
  std::lock_guard lock(m_mutex);
  return m_error;
}

} // namespace redraw
