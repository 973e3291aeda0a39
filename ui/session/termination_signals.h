#pragma once
/// SIGTERM, SIGHUP (the login session's end) and SIGINT for the GUI: instead of dying on the spot,
/// the app leaves its frame loop, autosaves the run and exits (gui_app.cpp). The handler only
/// records the signal and posts a semaphore; a small thread wakes the frame loop through `wake`
/// (glfwPostEmptyEvent, which may be called from any thread but not from a signal handler).
/// One instance at a time, created on the GUI thread; the old handlers come back at destruction.
#include <functional>
#include <thread>

namespace redraw {

class TerminationSignals {
public:
  explicit TerminationSignals(std::function<void()> wake);
  ~TerminationSignals();
  TerminationSignals(const TerminationSignals&) = delete;
  TerminationSignals& operator=(const TerminationSignals&) = delete;
  /// The first signal caught (SIGTERM, SIGHUP or SIGINT), or 0.
  int caught() const;

private:
  std::function<void()> m_wake;
  std::thread m_thread;
};

/// "SIGTERM", "SIGHUP", "SIGINT", or "signal N".
const char* termination_signal_name(int sig);

} // namespace redraw
