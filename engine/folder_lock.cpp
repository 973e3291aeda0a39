#include "engine/folder_lock.h"

#include "engine/errors.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace redraw {

namespace {
/// "train (pid 123, since 2026-11-23 22:10:05)": what the lock file says about its holder.
std::string holder_of(int fd) {
  char buf[512] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string text(buf, n > 0 ? size_t(n) : 0);
  text.erase(0, text.find('\n') + 1); // the first line is the bare pid
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  std::string out;
  for (char c : text) out += (c == '\n') ? ' ' : (static_cast<unsigned char>(c) < 0x20 ? '?' : c);
  return out.empty() ? std::string("another process") : out;
}

std::string now_text() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", &tm);
  return b;
}

/// The pid at the start of a lock file's text, or 0.
long pid_in(int fd) {
  char buf[32] = {};
  if (::pread(fd, buf, sizeof buf - 1, 0) <= 0) return 0;
  return std::strtol(buf, nullptr, 10);
}
} // namespace

bool process_exists(long pid) {
  if (pid <= 0) return false;
  if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH) return false;
  // /proc/<pid>/stat: "pid (comm) S ..."; the state after the last ')' is Z for a zombie.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true; // no /proc: kill's answer stands
  const size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return true;
  const char state = line[close + 2];
  return state != 'Z' && state != 'X';
}

namespace {
/// Opens the lock file without following a link at its name; IoError naming it when it is a link
/// or anything but a plain file (a planted link would have the lock written into another file).
int open_lock_file(const std::filesystem::path& folder, const std::filesystem::path& file, int flags) {
  const int fd = ::open(file.c_str(), flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT && !(flags & O_CREAT)) return -1;
    if (err == ELOOP)
      throw IoError(file.string() + ": the lock file is a symbolic link, not a plain file; remove it (redraw never "
                                    "writes through it)");
    if (err == EISDIR) throw IoError(file.string() + ": the lock file is not a plain file (a folder); remove it");
    throw IoError(folder.string() + ": cannot create the lock file " + file.filename().string() + " (" +
                  std::strerror(err) + ")");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw IoError(file.string() + ": the lock file is not a plain file; remove it");
  }
  return fd;
}
} // namespace

FolderLock::FolderLock(const std::filesystem::path& folder, const std::string& what, const char* name)
    : m_file(folder / name) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    const int fd = open_lock_file(folder, m_file, O_RDWR | O_CREAT);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string holder = holder_of(fd);
      const long pid = pid_in(fd);
      ::close(fd);
      // flock unsupported (some network file systems): the pid decides.
      if (err != EWOULDBLOCK || process_exists(pid))
        throw IoError(folder.string() + ": another redraw is writing to this folder (" + holder +
                      "); wait for it to finish, or choose another folder");
      std::error_code ec;
      std::filesystem::remove(m_file, ec); // stale: its process is gone
      continue;
    }
    // The file may have been removed (and recreated) by its last holder between open and flock:
    // only the lock on the file that is at the path now counts.
    struct stat at_fd {}, at_path {};
    if (::fstat(fd, &at_fd) != 0 || ::stat(m_file.c_str(), &at_path) != 0 || at_fd.st_ino != at_path.st_ino ||
        at_fd.st_dev != at_path.st_dev) {
      ::close(fd);
      continue;
    }
    std::ostringstream text;
    text << ::getpid() << "\n" << what << " (pid " << ::getpid() << ", since " << now_text() << ")\n";
    const std::string s = text.str();
    errno = 0;
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, s.data(), s.size(), 0) != ssize_t(s.size())) {
      const int err = errno ? errno : ENOSPC; // a short write: the disk filled
      ::unlink(m_file.c_str()); // still held: no empty lock file is left behind
      ::close(fd);
      throw IoError(folder.string() + ": cannot write the lock file " + m_file.filename().string() + " (" +
                    std::strerror(err) + ")");
    }
    m_fd = fd;
    return;
  }
  throw IoError(folder.string() + ": cannot take the lock " + m_file.filename().string() + " (it keeps changing)");
}

FolderLock::~FolderLock() {
  if (m_fd < 0) return;
  ::unlink(m_file.c_str()); // while still holding it, so no one takes a file about to vanish
  ::close(m_fd);
}

bool lock_file_held(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  bool held = false;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) held = errno == EWOULDBLOCK || process_exists(pid_in(fd));
  ::close(fd);
  return held;
}

} // namespace redraw
