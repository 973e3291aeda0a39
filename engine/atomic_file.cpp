#include "engine/atomic_file.h"

#include "engine/errors.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace redraw {

namespace {
std::atomic<uint64_t> g_temp_counter{0};

std::filesystem::path parent_or_dot(const std::filesystem::path& p) {
  return p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
}
} // namespace

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : m_target(std::move(target)) {
  if (m_target.empty()) throw IoError("(empty path): no output file given");
  std::error_code ec;
  if (std::filesystem::is_directory(m_target, ec)) fail("is a folder, not a file");
  m_temp = m_target;
  m_temp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(g_temp_counter++);
  m_file = std::fopen(m_temp.c_str(), "wb");
  if (!m_file) {
    const int err = errno;
    if (!std::filesystem::is_directory(parent_or_dot(m_target), ec)) fail("folder does not exist");
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

void AtomicFileWriter::fail(const std::string& what) {
  throw IoError(m_target.string() + ": " + what);
}

void AtomicFileWriter::write(const void* data, size_t bytes) {
  if (!m_file) fail("write after close");
  if (bytes && std::fwrite(data, 1, bytes, m_file) != bytes)
    fail(std::string("write failed: ") + std::strerror(errno));
}

void AtomicFileWriter::commit() {
  if (!m_file) fail("commit after close");
  if (std::fflush(m_file) != 0) fail(std::string("write failed: ") + std::strerror(errno));
  if (::fsync(::fileno(m_file)) != 0) fail(std::string("fsync failed: ") + std::strerror(errno));
  const int rc = std::fclose(m_file);
  m_file = nullptr;
  if (rc != 0) fail(std::string("close failed: ") + std::strerror(errno));
  if (std::rename(m_temp.c_str(), m_target.c_str()) != 0) fail(std::string("rename failed: ") + std::strerror(errno));
  m_committed = true;
  // Make the rename itself durable.
  const int dir = ::open(parent_or_dot(m_target).c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void write_file_atomic(const std::filesystem::path& target, std::span<const uint8_t> bytes) {
  AtomicFileWriter w(target);
  w.write(bytes);
  w.commit();
}

void check_writable_destination(const std::filesystem::path& target) {
  AtomicFileWriter probe(target); // creates and, on destruction, removes a temp file beside the target
}

} // namespace redraw
