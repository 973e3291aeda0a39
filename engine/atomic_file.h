#pragma once
/// Atomic file writes: data goes to a short temp name in the target's folder
/// (".redraw-<pid>-<16 random hex digits>.tmp", so a target name near the file system's length
/// limit still works), is fsynced, then renamed over the target. Every temp file is created
/// exclusively (O_CREAT | O_EXCL | O_NOFOLLOW) under a name no other user can guess, so a file or
/// a symbolic link planted in the folder is never written through. A failure at any point (full disk, missing folder,
/// no permission) throws IoError naming the target, removes the temp file, and leaves any earlier
/// target intact.
/// - Stale temp files: a process killed mid-write (kill -9, power loss) leaves its temp file
///   behind. The first write into a folder by this process removes the temp files and folders of
///   processes that no longer exist (clean_stale_temps).
/// - Sets of files: finish() every writer, then commit() them in a fixed order; a failure while
///   writing any of them renames none (see commit_together).
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

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
  /// Overwrites `bytes` at `offset` of what was written so far (a header field known only at the
  /// end); later writes still append. IoError on failure.
  void write_at(uint64_t offset, const void* data, size_t bytes);
  /// Flushes, fsyncs and closes the temp file without renaming it. IoError on failure.
  void finish();
  /// finish() if not done yet, then renames onto the target and (sync_folder) fsyncs the folder so
  /// the rename is durable. IoError on failure.
  void commit(bool sync_folder = true);
  const std::filesystem::path& target() const { return m_target; }
  const std::filesystem::path& temp_path() const { return m_temp; }

private:
  [[noreturn]] void fail(const std::string& what);
  std::filesystem::path m_target, m_temp;
  std::FILE* m_file = nullptr;
  bool m_finished = false, m_committed = false;
};

/// Writes `bytes` to `target` atomically.
void write_file_atomic(const std::filesystem::path& target, std::span<const uint8_t> bytes);
/// Writes `text` to `target` atomically.
void write_text_atomic(const std::filesystem::path& target, std::string_view text);

/// Runs write() and returns what it threw as a message, or "" when it succeeded: for writes whose
/// failure is told to the user (exports, settings) rather than thrown on.
template <class Write> std::string write_error(Write&& write) {
  try {
    write();
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

/// finish()es every writer first (any IoError there leaves every target untouched), then
/// commits them in the given order. Put the file that marks a set complete (the model) last.
void commit_together(std::span<AtomicFileWriter* const> writers);

/// Throws IoError when `target` could not be created: its folder is missing or not writable,
/// or it names a folder. Used to refuse a bad destination before doing long work.
void check_writable_destination(const std::filesystem::path& target);

/// A fresh temp name in `folder` for this process: ".redraw-<pid>-<random>.tmp" + `suffix`.
std::filesystem::path temp_path_in(const std::filesystem::path& folder, const std::string& suffix = {});

/// A temp file created exclusively in `folder` (O_CREAT | O_EXCL | O_NOFOLLOW, mode 0666 less the
/// umask) and open for writing; `fd` is -1 with errno set when it could not be created. The
/// caller owns the descriptor and removes the file when it does not rename it.
struct TempFile {
  std::filesystem::path path;
  int fd = -1;
};
TempFile create_temp_file(const std::filesystem::path& folder, const std::string& suffix = {});
/// A temp folder created in `folder` under a fresh name (mkdir: never through a planted link);
/// empty with errno set on failure.
std::filesystem::path create_temp_folder(const std::filesystem::path& folder);

/// Creates `folder` when it is missing (one level: its parent must exist; mkdir never follows a
/// link at the name) and checks that it is a folder of its own: IoError naming it when it is a
/// symbolic link (never followed: a link planted there would redirect every write into it) or
/// anything but a folder, or when it cannot be created. For folders that a program writes into
/// by name and that others may be able to write beside (a sweep's cells).
void make_own_folder(const std::filesystem::path& folder);

/// Removes temp files and folders named like temp_path_in's whose process is gone (checked by
/// pid: a pid that is alive, or in use by another process, keeps its files). Runs once per folder
/// per process; later calls for the same folder return at once. Never throws. Returns how many
/// entries it removed.
int clean_stale_temps(const std::filesystem::path& folder);

} // namespace redraw
