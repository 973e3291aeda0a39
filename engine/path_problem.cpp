#include "engine/path_problem.h"

#include <cerrno>
#include <cstring>
#include <fstream>
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

std::string read_user_file(const std::filesystem::path& file, uint64_t max_bytes, const char* what, const char* limit,
                           std::vector<uint8_t>& out) {
  const std::string name = file.string() + ": ";
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status)) {
    const std::string why = path_problem(file);
    return name + (why.empty() ? std::string("no such file") : why);
  }
  if (std::filesystem::is_directory(status)) return name + "is a directory, not " + what;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) return name + "cannot read (" + ec.message() + ")";
  if (size > max_bytes)
    return name + "the file is " + std::to_string(size >> 20) + " MiB, over the " + limit + " limit";
  std::ifstream in(file, std::ios::binary);
  if (!in) return name + "cannot open for reading";
  out.resize(size);
  in.read(reinterpret_cast<char*>(out.data()), std::streamsize(size));
  if (!in) return name + "read error";
  return {};
}

} // namespace redraw
