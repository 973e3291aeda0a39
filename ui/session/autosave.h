#pragma once
/// Autosave of the running model and the offer to restore it after a crash.
/// - Folder: $XDG_DATA_HOME/redraw/autosave/ (default ~/.local/share/redraw/autosave).
/// - While the app runs it holds "session-<pid>.lock" there; its model is autosaved to
///   "autosave-<pid>.redraw" every few minutes (Settings::autosave_minutes) and on quit. A clean
///   quit renames that file to "last-session.redraw" and removes the lock.
/// - The lock file is flock()ed for the session's life; a lock that no process holds, and whose
///   pid is gone or a zombie, means that session crashed (or was killed): the next launch
///   finds it with find_crashed_sessions() and offers to restore its autosave.
/// - Nothing here throws: a folder that cannot be written just means no autosave (the caller is
///   told through the return values).
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace redraw {

std::filesystem::path autosave_folder();
/// Where an autosave goes when autosave_folder() cannot take it (a full disk, say): a private
/// folder of this user's in the temp folder (settings_store.h's private_temp_folder) / autosave;
/// "" when there is none or it is autosave_folder() itself. A launch looks in both.
std::filesystem::path autosave_fallback_folder();

/// A session that ended without quitting, and what it autosaved.
struct CrashedSession {
  long pid = 0;
  std::filesystem::path lock;  ///< its session-<pid>.lock
  std::filesystem::path model; ///< its autosave-<pid>.redraw
  std::string saved_at;        ///< local time the autosave was written, "2026-11-23 10:45"
};

/// This process's lock and autosave path. Create once at startup; finish_clean() at a normal quit.
class AutosaveSession {
public:
  /// Writes the lock in `folder` (created when missing). ok() is false when it could not.
  explicit AutosaveSession(std::filesystem::path folder = autosave_folder());
  ~AutosaveSession(); ///< keeps the lock unless finish_clean() ran: a crash leaves it behind
  AutosaveSession(const AutosaveSession&) = delete;
  AutosaveSession& operator=(const AutosaveSession&) = delete;
  bool ok() const { return m_ok; }
  /// Where the running model is autosaved.
  const std::filesystem::path& model_path() const { return m_model; }
  /// A normal quit: the autosave becomes last-session.redraw and the lock goes.
  void finish_clean();
  /// Moves this session to autosave_fallback_folder() (its lock written there, the lock here
  /// removed), so the next launch finds an autosave written to fallback_model_path(). False when
  /// there is no fallback folder or it cannot be written.
  bool move_to_fallback();

private:
  bool take_lock(); ///< the lock in m_folder; sets m_lock, m_model and m_fd
  std::filesystem::path m_folder, m_lock, m_model;
  bool m_ok = false, m_finished = false;
  int m_fd = -1; ///< the lock file, flock()ed while this session lives
};

/// A training session's record of its autosaves: the trainer and step last written (an autosave
/// of the same is skipped), and whether the last one failed (the error is said once until a save
/// works again, and error() says why). Training thread, except error() (any thread).
class AutosaveRecord {
public:
  /// Whether an autosave of trainer `trainer_id` (the session's count of trainers) at `step`
  /// would write anything the last autosave did not.
  bool due(uint64_t trainer_id, int64_t step) const { return trainer_id != m_trainer || step != m_step; }
  void succeeded(uint64_t trainer_id, int64_t step);
  /// The autosave failed with `why`; true when the one before worked (say it), false when it is
  /// one more failure in a row.
  bool failed(const std::string& why);
  /// Why the last autosave failed, or "" when it worked (or none ran). Any thread.
  std::string error() const;

private:
  uint64_t m_trainer = 0;
  int64_t m_step = -1;
  bool m_failed = false;
  mutable std::mutex m_mutex; ///< guards m_error, read from other threads
  std::string m_error;
};

/// Sessions in `folder` whose lock outlived their process and which left an autosave, newest
/// first. Stale locks without an autosave are removed on the way.
std::vector<CrashedSession> find_crashed_sessions(const std::filesystem::path& folder);
/// The same in autosave_folder() and autosave_fallback_folder(), newest first.
std::vector<CrashedSession> find_crashed_sessions();
/// The user declined: the session's lock and autosave are removed.
void discard_crashed_session(const CrashedSession& s);
/// The user accepted: the autosave is renamed to restored-<pid>.redraw (so no later launch
/// offers it again) and the lock removed. Returns the model to open ("" when it vanished).
std::filesystem::path adopt_crashed_session(const CrashedSession& s);

} // namespace redraw
