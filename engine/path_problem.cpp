#include "engine/path_problem.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace redraw {

namespace {
/// The deepest existing ancestor of `p` that is not a folder, when there is one ("" otherwise).
std::string file_in_the_way(const std::filesystem::path& p) {
  std::filesystem::path at;
  for (const auto& part : p.parent_path()) {
    at /= part;
    struct stat st {};
    if (::stat(at.c_str(), &st) != 0) return {};
    if (!S_ISDIR(st.st_mode)) return at.string();
  }
  return {};
}

std::string errno_problem(const std::filesystem::path& p, int err, bool folder) {
  switch (err) {
  case ENOENT:
    return folder ? "folder " + p.string() + " does not exist" : "no such file";
  case ELOOP:
    return "a symbolic link loop (a link that points back to itself)";
  case ENOTDIR: {
    const std::string f = file_in_the_way(folder ? p / "x" : p);
    return (f.empty() ? std::string("a part of the path") : f) + " is a file, not a folder";
  }
  case ENAMETOOLONG:
    return "the name is too long for the file system";
  case EACCES:
    return "permission denied";
  default:
    return std::strerror(err);
  }
}
} // namespace

std::string path_problem(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return {};
  return errno_problem(path, errno, false);
}

std::string absolute_path(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  const std::filesystem::path a = std::filesystem::absolute(path, ec);
  return ec ? path : a.lexically_normal().string();
}

std::string folder_problem(const std::filesystem::path& file) {
  const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : ".";
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) return errno_problem(folder, errno, true);
  if (!S_ISDIR(st.st_mode)) return folder.string() + " is a file, not a folder";
  return {};
}

namespace {
const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// Reads the regular file open at `fd` (whose size fstat gave) into `out`, resized to what was
/// read (a file that shrank meanwhile gives less); "" or the reason.
template <class Bytes> std::string read_fd(int fd, uint64_t size, Bytes& out) {
  out.resize(size_t(size));
  size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::read(fd, reinterpret_cast<char*>(out.data()) + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::string("read error (") + std::strerror(errno) + ")";
    if (n == 0) break;
    got += size_t(n);
  }
  out.resize(got);
  return {};
}

template <class Bytes>
std::string read_regular_file(const std::filesystem::path& file, uint64_t max_bytes, const char* what,
                              const char* limit, Bytes& out) {
  const std::string name = file.string() + ": ";
  // O_NONBLOCK: opening a FIFO waits for no writer; fstat then refuses it, as any non-file.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    const std::string why = path_problem(file);
    return name + (why.empty() ? errno_problem(file, err, false) : why);
  }
  struct stat st {};
  std::string why;
  if (::fstat(fd, &st) != 0)
    why = std::string("cannot read (") + std::strerror(errno) + ")";
  else if (S_ISDIR(st.st_mode))
    why = std::string("is a directory, not ") + what;
  else if (!S_ISREG(st.st_mode))
    why = std::string("is ") + kind_of(st.st_mode) + ", not " + what + " (only regular files are read)";
  else if (uint64_t(st.st_size) > max_bytes)
    why = "the file is " + std::to_string(uint64_t(st.st_size) >> 20) + " MiB, over the " + limit + " limit";
  else
    why = read_fd(fd, uint64_t(st.st_size), out);
  ::close(fd);
  return why.empty() ? why : name + why;
}
} // namespace

std::string read_user_file(const std::filesystem::path& file, uint64_t max_bytes, const char* what, const char* limit,
                           std::vector<uint8_t>& out) {
  return read_regular_file(file, max_bytes, what, limit, out);
}

std::string read_user_text(const std::filesystem::path& file, uint64_t max_bytes, const char* what, const char* limit,
                           std::string& out) {
  return read_regular_file(file, max_bytes, what, limit, out);
}

} // namespace redraw
