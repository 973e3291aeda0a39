#include "engine/atomic_file.h"

#include "engine/errors.h"
#include "engine/folder_lock.h"
#include "engine/path_problem.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <cctype>
#include <cstdio>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <mutex>
#include <set>
#include <thread>
#include <unistd.h>

namespace redraw {

namespace {
constexpr const char* k_temp_prefix = ".redraw-";

/// 64 unpredictable bits (the kernel's random source; the clock and a counter if it fails).
uint64_t unpredictable() {
  uint64_t v = 0;
  if (::getrandom(&v, sizeof v, 0) == ssize_t(sizeof v)) return v;
  static std::atomic<uint64_t> counter{0};
  return uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9e3779b97f4a7c15ull + counter++;
}

std::filesystem::path parent_or_dot(const std::filesystem::path& p) {
  return p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
}

/// The pid in a temp name ".redraw-<pid>-<random hex>.tmp[suffix]", or -1 when `name` is not one.
long temp_name_pid(const std::string& name) {
  const size_t prefix = std::strlen(k_temp_prefix);
  if (name.compare(0, prefix, k_temp_prefix) != 0) return -1;
  size_t i = prefix, digits = 0;
  long pid = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 10)
    pid = pid * 10 + (name[i++] - '0'), ++digits;
  if (digits == 0 || i >= name.size() || name[i] != '-') return -1;
  const size_t counter = ++i;
  while (i < name.size() && std::isxdigit(static_cast<unsigned char>(name[i])))
    ++i;
  if (i == counter || name.compare(i, 4, ".tmp") != 0) return -1;
  return pid;
}

/// A test hook for the fault tests: REDRAW_TEST_SLOW_SAVE_MS=N sleeps N ms after a temp file is
/// written and before it is renamed, so a test can kill the process in the middle of a save.
void test_hook_slow_save() {
  static const long ms = [] {
    const char* v = std::getenv("REDRAW_TEST_SLOW_SAVE_MS");
    return v ? std::strtol(v, nullptr, 10) : 0L;
  }();
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}
} // namespace

std::filesystem::path temp_path_in(const std::filesystem::path& folder, const std::string& suffix) {
  char random[24];
  std::snprintf(random, sizeof random, "%016llx", static_cast<unsigned long long>(unpredictable()));
  return folder / (k_temp_prefix + std::to_string(::getpid()) + "-" + random + ".tmp" + suffix);
}

TempFile create_temp_file(const std::filesystem::path& folder, const std::string& suffix) {
  for (int attempt = 0;; ++attempt) {
    TempFile t{temp_path_in(folder, suffix), -1};
    // O_EXCL | O_NOFOLLOW: a file or a link planted at the name is never opened through.
    t.fd = ::open(t.path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (t.fd >= 0 || errno != EEXIST || attempt == 16) return t;
  }
}

std::filesystem::path create_temp_folder(const std::filesystem::path& folder) {
  for (int attempt = 0;; ++attempt) {
    const std::filesystem::path p = temp_path_in(folder);
    if (::mkdir(p.c_str(), 0777) == 0) return p; // mkdir never follows a link at the name
    if (errno != EEXIST || attempt == 16) return {};
  }
}

void make_own_folder(const std::filesystem::path& folder) {
  if (::mkdir(folder.c_str(), 0777) != 0 && errno != EEXIST)
    throw IoError(folder.string() + ": cannot create the folder (" + std::strerror(errno) + ")");
  // O_NOFOLLOW | O_DIRECTORY: a link at the name, or a file, is refused, never gone through.
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    ::close(fd);
    return;
  }
  const int err = errno;
  struct stat st {};
  if (::lstat(folder.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    throw IoError(folder.string() + ": is a symbolic link, not a folder (refused: nothing is written through it)");
  if (err == ENOTDIR) throw IoError(folder.string() + ": is not a folder");
  throw IoError(folder.string() + ": cannot open the folder (" + std::strerror(err) + ")");
}

int clean_stale_temps(const std::filesystem::path& folder) {
  static std::mutex mutex;
  static std::set<std::string> cleaned;
  std::error_code ec;
  const std::filesystem::path key = std::filesystem::weakly_canonical(folder, ec);
  {
    std::lock_guard lock(mutex);
    if (!cleaned.insert((ec ? folder : key).string()).second) return 0;
  }
  int removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const long pid = temp_name_pid(entry.path().filename().string());
    if (pid <= 0 || pid == long(::getpid())) continue;
    // ESRCH: no such process. EPERM means it exists (another user's): keep its files.
    if (process_exists(pid)) continue; // a zombie's files are stale too
    std::error_code rm;
    if (std::filesystem::remove_all(entry.path(), rm) > 0 && !rm) ++removed;
  }
  return removed;
}

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : m_target(std::move(target)) {
  if (m_target.empty()) throw IoError("(empty path): no output file given");
  std::error_code ec;
  if (std::filesystem::is_directory(m_target, ec)) fail("is a folder, not a file");
  const std::filesystem::path folder = parent_or_dot(m_target);
  clean_stale_temps(folder);
  const TempFile temp = create_temp_file(folder);
  m_temp = temp.path;
  if (temp.fd >= 0) m_file = ::fdopen(temp.fd, "wb");
  const int err = errno;
  if (!m_file) {
    if (temp.fd >= 0) {
      ::close(temp.fd);
      std::error_code ec;
      std::filesystem::remove(m_temp, ec);
    }
    m_temp.clear();
    if (const std::string why = folder_problem(m_target); !why.empty()) fail(why);
    fail(std::string("cannot create file: ") + std::strerror(err));
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (m_file) std::fclose(m_file);
  if (!m_committed && !m_temp.empty()) {
    std::error_code ec;
    std::filesystem::remove(m_temp, ec);
  }
}

void AtomicFileWriter::fail(const std::string& what) { throw IoError(m_target.string() + ": " + what); }

void AtomicFileWriter::write(const void* data, size_t bytes) {
  if (!m_file || m_finished) fail("write after close");
  if (bytes && std::fwrite(data, 1, bytes, m_file) != bytes) fail(std::string("write failed: ") + std::strerror(errno));
}

void AtomicFileWriter::write_at(uint64_t offset, const void* data, size_t bytes) {
  if (!m_file || m_finished) fail("write after close");
  if (std::fflush(m_file) != 0) fail(std::string("write failed: ") + std::strerror(errno));
  if (bytes && ::pwrite(::fileno(m_file), data, bytes, off_t(offset)) != ssize_t(bytes))
    fail(std::string("write failed: ") + std::strerror(errno));
}

void AtomicFileWriter::finish() {
  if (m_finished) return;
  if (!m_file) fail("finish after close");
  if (std::fflush(m_file) != 0) fail(std::string("write failed: ") + std::strerror(errno));
  if (::fsync(::fileno(m_file)) != 0) fail(std::string("fsync failed: ") + std::strerror(errno));
  const int rc = std::fclose(m_file);
  m_file = nullptr;
  if (rc != 0) fail(std::string("close failed: ") + std::strerror(errno));
  m_finished = true;
  test_hook_slow_save();
}

namespace {
/// Makes the renames into `folder` durable.
void sync_folder_of(const std::filesystem::path& target) {
  const int dir = ::open(parent_or_dot(target).c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}
} // namespace

void AtomicFileWriter::commit(bool sync_folder) {
  if (m_committed) return;
  finish();
  if (std::rename(m_temp.c_str(), m_target.c_str()) != 0) fail(std::string("rename failed: ") + std::strerror(errno));
  m_committed = true;
  if (sync_folder) sync_folder_of(m_target);
}

void write_file_atomic(const std::filesystem::path& target, std::span<const uint8_t> bytes) {
  AtomicFileWriter w(target);
  w.write(bytes);
  w.commit();
}

void write_text_atomic(const std::filesystem::path& target, std::string_view text) {
  write_file_atomic(target, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

void commit_together(std::span<AtomicFileWriter* const> writers) {
  for (AtomicFileWriter* w : writers)
    w->finish();
  // The renames back to back, the folders synced after: a folder fsync between two renames (a few
  // ms each) was a window in which a kill left the set half renamed, e.g. metrics.csv a
  // checkpoint ahead of model.redraw (fault_tests' kill -9 caught it now and then).
  for (AtomicFileWriter* w : writers)
    w->commit(false);
  for (size_t i = 0; i < writers.size(); ++i) {
    bool seen = false;
    for (size_t j = 0; j < i; ++j)
      seen = seen || parent_or_dot(writers[j]->target()) == parent_or_dot(writers[i]->target());
    if (!seen) sync_folder_of(writers[i]->target());
  }
}

void check_writable_destination(const std::filesystem::path& target) {
  AtomicFileWriter probe(target); // creates and, on destruction, removes a temp file beside the target
}

} // namespace redraw
