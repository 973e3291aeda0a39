#include "ui/session/run_command_queue.h"

#include <algorithm>

namespace redraw {

uint64_t RunCommandQueue::push(RunCommand command) {
  uint64_t ticket = 0;
  {
    std::lock_guard lock(m_mutex);
    if (m_quit) return m_pushed;
    m_commands.push_back(std::move(command));
    ticket = ++m_pushed;
  }
  m_cv.notify_all();
  return ticket;
}

void RunCommandQueue::request_frame(int64_t step) {
  {
    std::lock_guard lock(m_mutex);
    m_frame = std::max<int64_t>(0, step);
  }
  m_cv.notify_all();
}

void RunCommandQueue::quit() {
  std::deque<RunCommand> dropped; // destroyed outside the lock (a Flush's promise, say)
  {
    std::lock_guard lock(m_mutex);
    m_quit = true;
    dropped.swap(m_commands);
  }
  m_cv.notify_all();
}

bool RunCommandQueue::quitting() const {
  std::lock_guard lock(m_mutex);
  return m_quit;
}

bool RunCommandQueue::take(std::deque<RunCommand>& out, bool wait, std::chrono::milliseconds timeout) {
  std::unique_lock lock(m_mutex);
  if (wait) m_cv.wait_for(lock, timeout, [this] { return pending_locked(); });
  if (m_quit) return false;
  out.clear();
  out.swap(m_commands);
  m_handed = m_pushed;
  return true;
}

uint64_t RunCommandQueue::last_ticket() const {
  std::lock_guard lock(m_mutex);
  return m_pushed;
}

uint64_t RunCommandQueue::handed() const {
  std::lock_guard lock(m_mutex);
  return m_handed;
}

int64_t RunCommandQueue::take_frame_request() {
  std::lock_guard lock(m_mutex);
  const int64_t step = m_frame;
  m_frame = -1;
  return step;
}

bool RunCommandQueue::pending() const {
  std::lock_guard lock(m_mutex);
  return pending_locked();
}

} // namespace redraw
