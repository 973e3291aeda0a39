#include "ui/session/training_session.h"

#include <chrono>
#include <future>

namespace redraw {

TrainingSession::TrainingSession(BackendFactory make_backend, std::shared_ptr<DeviceInterop> interop,
                                 std::shared_ptr<SliceTurns> turns, int32_t turn_slot)
    : m_context(std::move(make_backend), std::move(interop), std::move(turns), turn_slot),
      m_thread([this] { thread_main(); }) {}

TrainingSession::~TrainingSession() {
  m_queue.quit();
  if (m_thread.joinable()) m_thread.join();
}

uint64_t TrainingSession::post(RunCommand command) {
  if (command_traits(command).immediate && !m_context.take_at_once(command)) return m_queue.last_ticket();
  return m_queue.push(std::move(command));
}

bool TrainingSession::flush(double timeout_s) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> f = done->get_future();
  post(run_command::Flush{done});
  return f.wait_for(std::chrono::duration<double>(timeout_s)) == std::future_status::ready;
}

SessionSnapshot TrainingSession::take() {
  SessionSnapshot out;
  out.take_from(m_context.mailbox());
  return out;
}

void TrainingSession::thread_main() {
  std::deque<RunCommand> commands;
  while (m_queue.take(commands, !m_context.trains(), std::chrono::milliseconds(200)))
    m_context.turn(m_queue, commands);
}

} // namespace redraw
