#pragma once
/// One writer per output folder, and what "that process is gone" means.
/// - FolderLock holds ".redraw-lock" in a folder for its lifetime: an flock() on the file (released
///   by the kernel however the process ends, kill -9 included) and, inside it, the holder's pid,
///   what it does and since when, for the message a second process gets. A lock file left by a
///   process that is gone is stale and taken over.
/// - process_exists(): a pid counts as alive only when the process exists and is not a zombie
///   (kill(pid, 0) succeeds on a zombie, which will never write again).
#include <filesystem>
#include <string>

namespace redraw {

/// True when process `pid` exists and is not a zombie; another user's process (EPERM) counts.
bool process_exists(long pid);

/// The lock file name FolderLock uses.
inline constexpr const char* k_folder_lock_name = ".redraw-lock";

class FolderLock {
public:
  /// Takes the lock on `folder` (which must exist) for `what` ("train", "the GUI's autosave").
  /// `name` is the lock file's: another name is another lock on the same folder (a sweep's cell).
  /// IoError naming the holder when another live process has it, when the lock file cannot be
  /// created or written (with the reason; nothing is left behind), or when the name holds a
  /// symbolic link or anything but a plain file (naming it: the lock is never written through it).
  FolderLock(const std::filesystem::path& folder, const std::string& what, const char* name = k_folder_lock_name);
  ~FolderLock(); ///< removes the lock file and releases it; never throws
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  const std::filesystem::path& file() const { return m_file; }

private:
  std::filesystem::path m_file;
  int m_fd = -1;
};

/// True when some live process holds an flock() on `file` (tested without taking it for long).
bool lock_file_held(const std::filesystem::path& file);

} // namespace redraw
