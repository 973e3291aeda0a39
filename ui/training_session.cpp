#include "ui/training_session.h"
#include "ui/live_run.h"

#include "engine/errors.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <new>

namespace redraw {
namespace {
constexpr double k_slice_seconds = 0.03; ///< training runs in slices this long between command checks
} // namespace

TrainingSession::TrainingSession(BackendFactory make_backend, std::shared_ptr<DeviceInterop> interop,
                                 std::shared_ptr<SliceTurns> turns, int32_t turn_slot)
    : m_make_backend(std::move(make_backend)), m_interop(std::move(interop)), m_turns(std::move(turns)),
      m_turn_slot(turn_slot), m_thread([this] { thread_main(); }) {}

TrainingSession::~TrainingSession() {
  m_queue.quit();
  if (m_thread.joinable()) m_thread.join();
  if (m_turns) m_turns->report(m_turn_slot, 0, false); // the other run no longer keeps pace with this one
}

void TrainingSession::post(RunCommand command) {
  if (const auto* run = std::get_if<run_command::SetRunning>(&command)) {
    if (!run->on) m_stop_step = true; // a step in progress is left at once
  } else if (const auto* limit = std::get_if<run_command::SetPreviewLimit>(&command)) {
    m_pacing.set_limit(PreviewSize{limit->max_w, limit->max_h}); // a load in progress renders at it
  } else if (const auto* zoom = std::get_if<run_command::RenderZoom>(&command)) {
    m_zoom_generation = zoom->generation; // an older zoom still rendering stops
    if (zoom->generation == 0) return;
  }
  m_queue.push(std::move(command));
}

bool TrainingSession::flush(double timeout_s) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> f = done->get_future();
  post(run_command::Flush{done});
  return f.wait_for(std::chrono::duration<double>(timeout_s)) == std::future_status::ready;
}

void TrainingSession::enable_device_preview(bool on) {
  std::lock_guard lock(m_mutex);
  m_device_preview_enabled = on;
}
std::shared_ptr<DeviceFrameRing> TrainingSession::device_frames() const {
  std::lock_guard lock(m_mutex);
  return m_frames;
}

SessionSnapshot TrainingSession::take() {
  SessionSnapshot out;
  out.take_from(m_mailbox);
  return out;
}

// ---- the training thread ----------------------------------------------------------------------

void TrainingSession::settle_metrics() {
  if (m_run && !m_run->settle_metrics(m_mailbox)) m_running = false;
}
void TrainingSession::pause_run() {
  m_running = false;
  settle_metrics();
  m_run->trainer->pause_clock();
  make_preview(true);
}
void TrainingSession::apply_time_budget() { m_run->trainer->set_time_budget(m_limits.time_budget()); }

void TrainingSession::report_recoveries() {
  if (m_run) m_run->post_recoveries(m_mailbox);
}

void TrainingSession::show_new_line() {
  m_run->changes.changed();
  apply_time_budget();
  m_run->restart_rows();
  m_mailbox.new_history(m_run->trainer->record().rows(), ++m_run_id);
  make_preview(true);
  m_run->post_frames(m_mailbox, true);
}

void TrainingSession::serve_frame_request() {
  const int64_t step = m_queue.take_frame_request();
  if (step < 0 || !m_run) return;
  const PreviewSize limit = m_pacing.limit();
  m_run->post_frame(m_mailbox, step, limit.w, limit.h);
}

void TrainingSession::ensure_frame_ring() {
  if (!m_run->device || !m_interop) return;
  std::lock_guard lock(m_mutex);
  if (!m_device_preview_enabled || m_frames) return;
  try {
    m_frames = m_interop->make_frame_ring();
  } catch (const std::exception& e) {
    m_mailbox.error(std::string("GPU preview disabled: ") + e.what());
    m_device_preview_enabled = false;
  }
}

void TrainingSession::make_preview(bool force) {
  if (!m_run || (!force && m_run->trainer->current_step() == m_run->last_preview_step)) return;
  std::shared_ptr<DeviceFrameRing> ring;
  {
    std::lock_guard lock(m_mutex);
    if (m_device_preview_enabled) ring = m_frames;
  }
  const PreviewSize size = m_pacing.begin();
  const auto start = Clock::now();
  const bool device_ok = m_run->preview(m_mailbox, ring.get(), force || m_pacing.host_wanted(), size.w, size.h);
  m_pacing.rendered(seconds_since(start));
  if (!device_ok) {
    std::lock_guard lock(m_mutex);
    m_device_preview_enabled = false;
  }
}

void TrainingSession::publish_status() {
  SessionStatus s;
  SessionProfile profile;
  std::vector<MetricsRow> rows;
  if (m_run) {
    m_run->post_frames(m_mailbox, false);
    m_run->post_loss_trace(m_mailbox);
    s = m_run->status(m_running);
    s.trainer_id = m_trainer_id;
    s.stop_at_step = m_limits.stop_at();
    s.lines = m_run->tree.lines(*m_run->trainer);
    s.unsaved = m_run->changes.unsaved(s.step, s.lines.size());
    s.model_path = m_run->changes.model_path();
    profile = m_run->take_profile();
    rows.swap(m_run->pending_rows);
  }
  if (m_turns) m_turns->report(m_turn_slot, s.step, m_running && m_run);
  m_mailbox.publish(std::move(s), m_run_id, std::move(rows), m_run ? &profile : nullptr);
}

void TrainingSession::train_slice() {
  Trainer& t = *m_run->trainer;
  // At the same step (compare runs), a run ahead of the other waits here, off the device and for
  // a short while only, so commands are still served; then it takes no more steps than the pace
  // allows in this slice.
  if (m_turns && !m_turns->wait_to_step(m_turn_slot, t.current_step(), std::chrono::milliseconds(20))) return;
  const SliceTurn turn(m_turns.get());
  const auto start = Clock::now();
  const int64_t end = m_limits.pause_step(t.total_steps());
  m_run->changes.changed();
  t.set_stop_flag(&m_stop_step); // every run's trainer, whichever is current
  try {
    while (t.current_step() < end && (!m_turns || t.current_step() < m_turns->step_bound(m_turn_slot))) {
      m_run->step();
      if (t.stop_requested()) return; // a pause or a quit: its command, next, pauses the run
      report_recoveries();
      if (m_pacing.due(t.current_step(), seconds_since(m_run->last_preview))) make_preview(false);
      if (m_limits.budget_spent(t.clock().budget_left())) {
        pause_run();
        report_notice(m_limits.budget_notice(t.current_step()));
        return;
      }
      if (seconds_since(start) >= k_slice_seconds || m_queue.pending()) break;
    }
    if (t.current_step() >= end) {
      pause_run();
      const std::string notice = RunLimits::pause_notice(end, t.total_steps());
      if (!notice.empty()) report_notice(notice);
    }
  } catch (const DivergedError& e) {
    m_running = false;
    t.pause_clock();
    report_recoveries();
    report_error(std::string("training stopped: ") + e.what());
    make_preview(true);
  } catch (const std::bad_alloc&) {
    m_running = false;
    report_error("out of memory during training; paused");
  } catch (const std::exception& e) {
    m_running = false;
    report_error(std::string("training paused: ") + e.what());
  }
}

void TrainingSession::thread_main() {
  std::deque<RunCommand> commands;
  while (m_queue.take(commands, !m_running || !m_run, std::chrono::milliseconds(200))) {
    for (const RunCommand& c : commands)
      handle(c);
    commands.clear();
    serve_frame_request();
    if (m_running && m_run) train_slice();
    if (m_run && m_pacing.host_wanted()) make_preview(true);
    publish_status();
  }
}

} // namespace redraw
