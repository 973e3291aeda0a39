#include "ui/session/run_context.h"
#include "ui/session/live_run.h"

#include "engine/backend_names.h"
#include "engine/errors.h"
#include "engine/training/open_run.h"
#include "ui/session/load_request.h"

#include <chrono>
#include <new>

namespace redraw {
namespace {
constexpr double k_slice_seconds = 0.03; ///< training runs in slices this long between command checks
} // namespace

RunContext::RunContext(BackendFactory make_backend, std::shared_ptr<DeviceInterop> interop,
                       std::shared_ptr<SliceTurns> turns, int32_t turn_slot)
    : m_make_backend(std::move(make_backend)), m_interop(std::move(interop)), m_turns(std::move(turns)),
      m_turn_slot(turn_slot) {}

RunContext::~RunContext() {
  if (m_turns) m_turns->report(m_turn_slot, 0, false);
}

bool RunContext::take_at_once(const RunCommand& command) {
  if (const auto* run = std::get_if<run_command::SetRunning>(&command)) {
    if (!run->on) m_stop_step = true; // a step in progress is left at once
  } else if (const auto* limit = std::get_if<run_command::SetPreviewLimit>(&command)) {
    m_pacing.set_limit(PreviewSize{limit->max_w, limit->max_h}); // a load in progress renders at it
  } else if (const auto* zoom = std::get_if<run_command::RenderZoom>(&command)) {
    m_zoom_generation = zoom->generation; // an older zoom still rendering stops
    if (zoom->generation == 0) return false;
  }
  return true;
}

void RunContext::enable_device_preview(bool on) {
  std::lock_guard lock(m_mutex);
  m_device_preview_enabled = on;
}

std::shared_ptr<DeviceFrameRing> RunContext::device_frames() const {
  std::lock_guard lock(m_mutex);
  return m_frames;
}

// ---- the run's verbs --------------------------------------------------------------------------------

std::unique_ptr<LiveRun> RunContext::open(const LoadRequest& req) {
  OpenRunOptions options;
  options.config = req.config;
  options.backend = req.backend;
  options.precision = may_use_gpu(req.backend) ? req.precision : std::string();
  options.limits = req.limits;
  OpenedRun opened = open_run({req.image, req.model}, m_make_backend, options);
  notices(opened.notices);
  if (!opened.backend_notice.empty() && !m_backend_notice_shown) notice(opened.backend_notice);
  m_backend_notice_shown = true;
  return std::make_unique<LiveRun>(std::move(opened), req.model.empty() ? req.image : req.model, req.model,
                                   snapshot_cap());
}

void RunContext::adopt(std::unique_ptr<LiveRun> run) {
  m_running = false;
  m_run = std::move(run);
  ensure_frame_ring();
  ++m_trainer_id;
  apply_time_budget();
  const std::shared_ptr<const Dataset> data = m_run->trainer().shared_dataset();
  m_mailbox.new_history(m_run->trainer().record().rows(), ++m_run_id,
                        std::shared_ptr<const Image>(data, &data->image)); // the trainer's floats, shared
  make_preview(true);
  m_run->post_frames(m_mailbox, true);
}

void RunContext::set_running(bool on) {
  if (on) m_stop_step = false;
  if (on && !m_run) return;
  if (on) {
    const Trainer& t = m_run->trainer();
    const std::string refusal = m_limits.refusal(t.current_step(), t.total_steps(), t.clock().budget_left());
    if (!refusal.empty()) return notice(refusal);
    m_limits.going_on_at(t.current_step());
  }
  m_running = on;
  if (!on && m_run) pause();
}

void RunContext::train_on() {
  m_running = true;
  m_limits.going_on_at(m_run->trainer().current_step());
}

void RunContext::step_once() {
  if (!m_run || m_running) return;
  m_stop_step = false;
  try {
    m_run->step_once(&m_stop_step);
  } catch (const DivergedError& e) {
    error(std::string("training stopped: ") + e.what());
  }
  pause();
}

void RunContext::settle_metrics() {
  if (m_run && !m_run->settle_metrics(m_mailbox)) m_running = false;
}

void RunContext::pause() {
  m_running = false;
  settle_metrics();
  m_run->pause_clock();
  make_preview(true);
}

void RunContext::apply_time_budget() { m_run->set_time_budget(m_limits.time_budget()); }

void RunContext::report_recoveries() {
  if (m_run) m_run->post_recoveries(m_mailbox);
}

void RunContext::show_new_line() {
  m_run->changed();
  apply_time_budget();
  m_run->restart_rows();
  m_mailbox.new_history(m_run->trainer().record().rows(), ++m_run_id);
  make_preview(true);
  m_run->post_frames(m_mailbox, true);
}

void RunContext::write_model(const std::string& path, bool make_folder) {
  m_run->write_model(path, make_folder);
  report_recoveries(); // a diverged state is recovered before it is saved
}

void RunContext::run_export(const std::string& what, const std::string& path,
                            const std::function<void(const std::function<bool(double)>&)>& work,
                            const std::function<bool()>& quitting) {
  m_cancel = false;
  m_run->run_export(m_mailbox, what, path, work, [this, &quitting] { return !quitting() && !m_cancel; });
}

// ---- the thread's loop ------------------------------------------------------------------------------

void RunContext::serve_frame(int64_t step) {
  if (step < 0 || !m_run) return;
  const PreviewSize limit = m_pacing.limit();
  m_run->post_frame(m_mailbox, step, limit.w, limit.h);
}

void RunContext::ensure_frame_ring() {
  if (!m_run->has_device() || !m_interop) return;
  std::lock_guard lock(m_mutex);
  if (!m_device_preview_enabled || m_frames) return;
  try {
    m_frames = m_interop->make_frame_ring();
  } catch (const std::exception& e) {
    m_mailbox.error(std::string("GPU preview disabled: ") + e.what());
    m_device_preview_enabled = false;
  }
}

void RunContext::make_preview(bool force) {
  if (!m_run || (!force && m_run->previewed_current())) return;
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

SessionStatus RunContext::current_status() {
  SessionStatus s;
  if (m_run) {
    s = m_run->status(m_running);
    s.trainer_id = m_trainer_id;
    s.stop_at_step = m_limits.stop_at();
  }
  s.commands_run = m_commands_run;
  return s;
}

void RunContext::publish_command_effects() { m_mailbox.publish(current_status(), m_run_id, {}, nullptr); }

void RunContext::publish_status() {
  SessionProfile profile;
  std::vector<MetricsRow> rows;
  if (m_run) {
    m_run->post_frames(m_mailbox, false);
    m_run->post_loss_trace(m_mailbox);
    profile = m_run->take_profile();
    rows = m_run->take_rows();
  }
  SessionStatus s = current_status();
  if (m_turns) m_turns->report(m_turn_slot, s.step, m_running && m_run);
  m_mailbox.publish(std::move(s), m_run_id, std::move(rows), m_run ? &profile : nullptr);
}

void RunContext::train_slice(const std::function<bool()>& commands_waiting) {
  if (!m_running || !m_run) return;
  LiveRun& run = *m_run;
  const Trainer& t = run.trainer();
  // At the same step (compare runs), a run ahead of the other waits here, off the device and for
  // a short while only, so commands are still served; then it takes no more steps than the pace
  // allows in this slice.
  if (m_turns && !m_turns->wait_to_step(m_turn_slot, t.current_step(), std::chrono::milliseconds(20))) return;
  const SliceTurn turn(m_turns.get());
  const auto start = Clock::now();
  const int64_t end = m_limits.pause_step(t.total_steps());
  run.changed();
  run.set_stop_flag(&m_stop_step); // every run's trainer, whichever is current
  try {
    while (t.current_step() < end && (!m_turns || t.current_step() < m_turns->step_bound(m_turn_slot))) {
      run.step();
      if (t.stop_requested()) return; // a pause or a quit: its command, next, pauses the run
      report_recoveries();
      if (m_pacing.due(t.current_step(), run.seconds_since_preview())) make_preview(false);
      if (m_limits.budget_spent(t.clock().budget_left())) {
        pause();
        notice(m_limits.budget_notice(t.current_step()));
        return;
      }
      if (seconds_since(start) >= k_slice_seconds || commands_waiting()) break;
    }
    if (t.current_step() >= end) {
      pause();
      const std::string n = RunLimits::pause_notice(end, t.total_steps());
      if (!n.empty()) notice(n);
    }
  } catch (const DivergedError& e) {
    m_running = false;
    run.pause_clock();
    report_recoveries();
    error(std::string("training stopped: ") + e.what());
    make_preview(true);
  } catch (const std::bad_alloc&) {
    m_running = false;
    error("out of memory during training; paused");
  } catch (const std::exception& e) {
    m_running = false;
    error(std::string("training paused: ") + e.what());
  }
}

} // namespace redraw
