#include "engine/export/ffmpeg_writer.h"

#include "engine/atomic_file.h"
#include "engine/errors.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace redraw {

namespace {

/// write() that reports a closed pipe as EPIPE instead of killing the process with SIGPIPE: the
/// signal is blocked for this thread only, and a SIGPIPE it raised is consumed before unblocking.
bool write_all(int fd, const uint8_t* p, size_t n) {
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigset_t pending;
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  bool ok = true, got_epipe = false;
  while (n > 0) {
    const ssize_t k = ::write(fd, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      got_epipe = errno == EPIPE;
      ok = false;
      break;
    }
    p += k;
    n -= size_t(k);
  }
  if (got_epipe && !was_pending) {
    const timespec zero{0, 0};
    sigtimedwait(&pipe_set, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  return ok;
}

std::string find_on_path(const char* name) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    const std::filesystem::path candidate =
        (dir.empty() ? std::filesystem::path(".") : std::filesystem::path(dir)) / name;
    std::error_code ec;
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate, ec))
      return candidate.string();
  }
  return {};
}
} // namespace

bool ffmpeg_available() { return !find_on_path("ffmpeg").empty(); }

Mp4Writer::Mp4Writer(const std::filesystem::path& file, int32_t width, int32_t height, double fps)
    : m_target(file), m_width(width), m_height(height) {
  if (width < 1 || height < 1) throw ConfigError("MP4: frame size must be at least 1x1");
  if (!(fps > 0)) throw ConfigError("MP4: the frame rate must be positive");
  const std::string exe = find_on_path("ffmpeg");
  if (exe.empty())
    throw IoError(
        m_target.string() +
        ": MP4 export needs ffmpeg, which is not on PATH; install ffmpeg, or export a .gif or a folder of PNG frames");
  check_writable_destination(m_target);
  // The temp file is created here, exclusively (atomic_file.h); ffmpeg writes it through the
  // descriptor it inherits as fd 3 (/dev/fd/3 reopens that very file), never through its name.
  const TempFile temp =
      create_temp_file(m_target.has_parent_path() ? m_target.parent_path() : std::filesystem::path("."), ".mp4");
  if (temp.fd < 0) fail(std::string("cannot create a file beside it: ") + std::strerror(errno));
  m_temp = temp.path;
  m_temp_fd = temp.fd;

  char size[32], rate[32];
  std::snprintf(size, sizeof size, "%dx%d", width, height);
  std::snprintf(rate, sizeof rate, "%.6g", fps);
  // clang-format off
  const std::vector<std::string> args = {
      exe, "-hide_banner", "-loglevel", "error", "-y",
      "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", size, "-r", rate, "-i", "-",
      "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-crf", "18",
      "-movflags", "+faststart", "-f", "mp4", "file:/dev/fd/3"};
  // clang-format on
  std::vector<char*> argv;
  for (const auto& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  int fds[2];
  // A constructor that throws runs no destructor: the temp file goes here.
  const auto discard_temp = [&] {
    ::close(m_temp_fd);
    m_temp_fd = -1;
    std::error_code ec;
    std::filesystem::remove(m_temp, ec);
  };
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    const int err = errno;
    discard_temp();
    fail(std::string("cannot create a pipe: ") + std::strerror(err));
  }
  m_log = std::tmpfile();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  if (m_log) posix_spawn_file_actions_adddup2(&actions, ::fileno(m_log), 2);
  posix_spawn_file_actions_adddup2(&actions, m_temp_fd, 3); // dup2 clears close-on-exec on fd 3
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[0]);
  m_pipe = fds[1];
  if (rc != 0) {
    ::close(m_pipe);
    m_pipe = -1;
    if (m_log) std::fclose(m_log);
    m_log = nullptr;
    discard_temp();
    throw IoError(m_target.string() + ": cannot start ffmpeg: " + std::strerror(rc));
  }
  m_pid = pid;
}

Mp4Writer::~Mp4Writer() {
  stop();
  if (m_temp_fd >= 0) ::close(m_temp_fd);
  if (!m_committed && !m_temp.empty()) {
    std::error_code ec;
    std::filesystem::remove(m_temp, ec);
  }
  if (m_log) std::fclose(m_log);
}

void Mp4Writer::stop() {
  if (m_pipe >= 0) ::close(m_pipe);
  m_pipe = -1;
  if (m_pid > 0) {
    ::kill(m_pid, SIGKILL);
    int status = 0;
    while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    m_pid = -1;
  }
}

std::string Mp4Writer::ffmpeg_messages() {
  if (!m_log) return {};
  std::fflush(m_log);
  std::rewind(m_log);
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, m_log)) > 0)
    text.append(buf, n);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.pop_back();
  if (text.size() > 600) text = "..." + text.substr(text.size() - 600);
  return text;
}

void Mp4Writer::fail(const std::string& what) {
  stop();
  const std::string messages = ffmpeg_messages();
  throw IoError(m_target.string() + ": " + what + (messages.empty() ? std::string() : ": " + messages));
}

void Mp4Writer::add_frame(const Image& frame) {
  if (m_pipe < 0) fail("video already finished");
  if (frame.width != m_width || frame.height != m_height || (frame.channels != 1 && frame.channels != 3))
    throw ConfigError("MP4: frame of " + std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                      " does not match the video's " + std::to_string(m_width) + "x" + std::to_string(m_height));
  std::vector<uint8_t> rgb(size_t(m_width) * 3);
  for (int32_t y = 0; y < m_height; ++y) {
    const float* p = frame.pixels.data() + size_t(y) * size_t(m_width) * size_t(frame.channels);
    for (int32_t x = 0; x < m_width; ++x)
      for (int c = 0; c < 3; ++c) {
        const float v = p[size_t(x) * size_t(frame.channels) + size_t(frame.channels == 3 ? c : 0)];
        rgb[size_t(x) * 3 + size_t(c)] = uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
      }
    if (!write_all(m_pipe, rgb.data(), rgb.size())) {
      // ffmpeg exited: collect its status and message.
      ::close(m_pipe);
      m_pipe = -1;
      int status = 0;
      while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
      }
      m_pid = -1;
      fail("ffmpeg stopped while receiving frames");
    }
  }
}

void Mp4Writer::commit() {
  if (m_pipe < 0) fail("video already finished");
  ::close(m_pipe);
  m_pipe = -1;
  int status = 0;
  while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
  }
  m_pid = -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail("ffmpeg failed (exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  struct stat st {};
  if (::fstat(m_temp_fd, &st) != 0 || st.st_size == 0) fail("ffmpeg wrote no video");
  if (::fsync(m_temp_fd) != 0) fail(std::string("fsync failed: ") + std::strerror(errno));
  if (std::rename(m_temp.c_str(), m_target.c_str()) != 0) fail(std::string("rename failed: ") + std::strerror(errno));
  m_committed = true;
  const std::filesystem::path dir = m_target.has_parent_path() ? m_target.parent_path() : ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

} // namespace redraw
