#include "ui/session/run_command_queue.h"

#include <algorithm>

namespace redraw {

void RunCommandQueue::push(RunCommand command) {
  {
    std::lock_guard lock(m_mutex);
    if (m_quit) return;
    m_commands.push_back(std::move(command));
  }
  m_cv.notify_all();
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
  return true;
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
