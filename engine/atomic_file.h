#pragma once
/// Atomic file writes: data goes to "<target>.tmp-<pid>-<n>" in the same folder, is fsynced, then
/// renamed over the target. A failure at any point (full disk, missing folder, no permission)
/// throws IoError naming the target, removes the temp file, and leaves any earlier target intact.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>

namespace redraw {

class AtomicFileWriter {
public:
  /// Opens the temp file; throws IoError when the folder is missing or not writable.
  explicit AtomicFileWriter(std::filesystem::path target);
  ~AtomicFileWriter(); ///< removes the temp file unless commit() succeeded; never throws
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, size_t bytes); ///< IoError on a short write (e.g. disk full)
  void write(std::span<const uint8_t> bytes) { write(bytes.data(), bytes.size()); }
  /// Flushes, fsyncs, closes and renames onto the target. IoError on failure.
  void commit();
  const std::filesystem::path& target() const { return m_target; }

private:
  [[noreturn]] void fail(const std::string& what);
  std::filesystem::path m_target, m_temp;
  std::FILE* m_file = nullptr;
  bool m_committed = false;
};

/// Writes `bytes` to `target` atomically.
void write_file_atomic(const std::filesystem::path& target, std::span<const uint8_t> bytes);

/// Throws IoError when `target` could not be created: its folder is missing or not writable,
/// or it names a folder. Used to refuse a bad destination before doing long work.
void check_writable_destination(const std::filesystem::path& target);

} // namespace redraw
