#pragma once
/// The commands posted to a TrainingSession and not yet run, and the newest timelapse frame asked
/// for: one producer (the GUI thread), one consumer (the session's training thread). Every call
/// holds the lock for a few moves only.
#include "ui/session/run_commands.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

namespace redraw {

class RunCommandQueue {
public:
  /// Queues `command` after those already queued and wakes the consumer; returns its ticket, one
  /// more than the last (dropped after quit(): the last ticket is returned).
  uint64_t push(RunCommand command);
  /// Asks for the timelapse frame at or before `step` (negative counts as 0). Requests coalesce:
  /// only the newest is served, so dragging a slider never queues work.
  void request_frame(int64_t step);
  /// Ends the consumer's waits: what is queued is dropped and take() returns false from now on.
  void quit();
  bool quitting() const;
  /// Moves every queued command into `out`, oldest first. With `wait`, first waits up to
  /// `timeout` for a command, a frame request or quit(). False once quit() was called.
  bool take(std::deque<RunCommand>& out, bool wait, std::chrono::milliseconds timeout);
  /// The newest ticket push() gave.
  uint64_t last_ticket() const;
  /// The ticket of the newest command take() handed over (0: none yet). The consumer's, after take().
  uint64_t handed() const;
  /// The frame step asked for and not yet served, or -1; the request is cleared.
  int64_t take_frame_request();
  /// Whether something waits for the consumer (a command, a frame request or quit): a training
  /// slice ends early for it.
  bool pending() const;

private:
  bool pending_locked() const { return m_quit || !m_commands.empty() || m_frame >= 0; }

  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<RunCommand> m_commands;
  bool m_quit = false;
  int64_t m_frame = -1;
  uint64_t m_pushed = 0; ///< the newest ticket
  uint64_t m_handed = 0; ///< the newest ticket take() handed over
};

} // namespace redraw
