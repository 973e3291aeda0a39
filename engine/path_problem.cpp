#include "engine/path_problem.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

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
  case ENOENT: return folder ? "folder " + p.string() + " does not exist" : "no such file";
  case ELOOP: return "a symbolic link loop (a link that points back to itself)";
  case ENOTDIR: {
    const std::string f = file_in_the_way(folder ? p / "x" : p);
    return (f.empty() ? std::string("a part of the path") : f) + " is a file, not a folder";
  }
  case ENAMETOOLONG: return "the name is too long for the file system";
  case EACCES: return "permission denied";
  default: return std::strerror(err);
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

} // namespace redraw
