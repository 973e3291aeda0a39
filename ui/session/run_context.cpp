#include "ui/session/run_context.h"

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
  say(opened.notices);
  if (!opened.backend_notice.empty() && !m_backend_notice_shown) m_mailbox.notice(opened.backend_notice);
  m_backend_notice_shown = true;
  const size_t cap = m_snapshot_cap > 0 ? m_snapshot_cap : k_default_snapshot_cap_bytes;
  return std::make_unique<LiveRun>(std::move(opened), req.model.empty() ? req.image : req.model, req.model, cap);
}

void RunContext::load(const LoadRequest& req) {
  m_mailbox.busy("loading");
  try {
    adopt(open(req)); // success: the new run replaces the old one
  } catch (const ImageBudgetError& e) { // the app offers to open it with a larger budget
    const std::string file = !req.image.empty() ? req.image : req.model;
    m_mailbox.budget_offer(BudgetOffer{req, file, e.needed_bytes, e.budget_bytes, e.what()});
  } catch (...) {
    m_mailbox.error(load_failure_text(req.model.empty() ? req.image : req.model, m_run != nullptr));
  }
  m_mailbox.idle();
}

void RunContext::adopt(std::unique_ptr<LiveRun> run) {
  m_running = false;
  m_run = std::move(run);
  ensure_frame_ring();
  ++m_trainer_id;
  m_run->loop().set_time_budget(m_limits.time_budget());
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
    if (!refusal.empty()) return m_mailbox.notice(refusal);
    m_limits.going_on_at(t.current_step());
  }
  m_running = on;
  if (!on && m_run) pause();
}

RunLoop& RunContext::loop_to(int64_t end_step, int64_t count) {
  RunLoop& loop = m_run->loop();
  loop.set_end_step(end_step);
  loop.set_step_count(count);
  loop.set_slice_seconds(k_slice_seconds);
  loop.set_stop_flag(&m_stop_step); // every run's trainer, whichever is current
  return loop;
}

void RunContext::step_once() {
  if (!m_run || m_running) return;
  m_stop_step = false;
  RunLoop& loop = loop_to(RunLoop::k_no_end_step, 1); // a step past the last one too
  if (loop.slice(m_run->events(m_mailbox)) == LoopEnd::Diverged)
    m_mailbox.error("training stopped: " + loop.diverged());
  pause();
}

bool RunContext::settle() {
  if (m_run->loop().settle(m_run->events(m_mailbox))) return true;
  m_running = false;
  m_mailbox.error("training stopped: " + m_run->loop().diverged());
  return false;
}

void RunContext::pause() {
  m_running = false;
  settle();
  make_preview(true);
}

void RunContext::reset() {
  if (!m_run) return;
  say(m_run->reset(m_snapshot_cap > 0 ? m_snapshot_cap : k_default_snapshot_cap_bytes));
  show_new_line();
}

void RunContext::branch(int64_t step) {
  if (!m_run || m_run->trainer().frames().store().empty()) return;
  try {
    settle(); // the line being left keeps every row it measured
    bool trains_on = false;
    const std::vector<std::string> notices = m_run->branch(step, trains_on);
    show_new_line();
    if (trains_on) {
      m_running = true;
      m_limits.going_on_at(m_run->trainer().current_step());
    }
    say(notices);
  } catch (const std::exception& e) {
    m_mailbox.error(std::string("resume from here: ") + e.what());
  }
}

void RunContext::switch_line(int32_t line) {
  if (!m_run) return;
  try {
    settle();
    std::vector<std::string> notices;
    if (!m_run->switch_line(line, notices)) return;
    m_running = false;
    show_new_line();
    say(notices);
    m_mailbox.notice("switched to the run-tree line at step " + std::to_string(m_run->trainer().current_step()) +
                     "; Space trains it further");
  } catch (const std::exception& e) {
    m_mailbox.error(std::string("switch line: ") + e.what());
  }
}

void RunContext::set_snapshot_cap(size_t bytes) {
  m_snapshot_cap = bytes;
  if (!m_run) return;
  say(m_run->set_cap(bytes));
  m_run->post_frames(m_mailbox, true); // the panel shows the new cap (and any thinning) at once
}

void RunContext::show_new_line() {
  m_run->loop().set_time_budget(m_limits.time_budget());
  m_mailbox.new_history(m_run->trainer().record().rows(), ++m_run_id);
  make_preview(true);
  m_run->post_frames(m_mailbox, true);
}

void RunContext::say(const std::vector<std::string>& notices) {
  for (const std::string& n : notices)
    m_mailbox.notice(n);
}

void RunContext::export_run(const RunExport& request, const std::function<bool()>& quitting) {
  m_cancel = false;
  m_run->export_to(m_mailbox, request, [this, &quitting] { return !quitting() && !m_cancel; });
}

// ---- the thread's loop ------------------------------------------------------------------------------

void RunContext::turn(RunCommandQueue& queue, std::deque<RunCommand>& commands) {
  const bool was_running = m_running;
  const uint64_t trainer = m_trainer_id;
  const auto quitting = [&queue] { return queue.quitting(); };
  for (const RunCommand& c : commands)
    handle_run_command(*this, c, quitting);
  commands.clear();
  m_commands_run = queue.handed();
  // Run or pause shows at once (a toggle reads it), whatever the slice below waits for.
  if (m_running != was_running && m_trainer_id == trainer) publish();
  serve_frame(queue.take_frame_request());
  train_slice([&queue] { return queue.pending(); });
  if (m_run && m_pacing.host_wanted()) make_preview(true);
  publish();
}

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
  if (!m_run) return;
  std::shared_ptr<DeviceFrameRing> ring;
  {
    std::lock_guard lock(m_mutex);
    if (m_device_preview_enabled) ring = m_frames;
  }
  if (!m_run->preview(m_mailbox, ring.get(), m_pacing, force)) {
    std::lock_guard lock(m_mutex);
    m_device_preview_enabled = false;
  }
}

void RunContext::publish() {
  RunNews news;
  if (m_run) {
    news = m_run->news(m_mailbox, m_running);
    news.status.trainer_id = m_trainer_id;
    news.status.stop_at_step = m_limits.stop_at();
  }
  news.status.commands_run = m_commands_run;
  if (m_turns) m_turns->report(m_turn_slot, news.status.step, m_running && m_run);
  m_mailbox.publish(std::move(news.status), m_run_id, std::move(news.rows), m_run ? &news.profile : nullptr);
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
  RunLoop& loop = loop_to(m_limits.pause_step(t.total_steps()), -1);
  LoopEvents outer;
  if (m_turns) outer.may_step = [&] { return t.current_step() < m_turns->step_bound(m_turn_slot); };
  outer.stepped = [&](const std::optional<MetricsRow>&, double) {
    make_preview(false);
    return commands_waiting();
  };
  try {
    const LoopEnd end = loop.slice(run.events(m_mailbox, std::move(outer)));
    if (end == LoopEnd::Limit || end == LoopEnd::TimeUp) end_run(end);
    if (end == LoopEnd::Diverged) stopped_by_divergence();
  } catch (const std::bad_alloc&) {
    m_running = false;
    m_mailbox.error("out of memory during training; paused");
  } catch (const std::exception& e) {
    m_running = false;
    m_mailbox.error(std::string("training paused: ") + e.what());
  }
}

void RunContext::end_run(LoopEnd end) {
  LiveRun& run = *m_run;
  if (run.loop().finish(run.events(m_mailbox))) return; // a recovery moved the run back: it trains on
  if (!run.loop().diverged().empty()) return stopped_by_divergence();
  m_running = false;
  make_preview(true);
  const Trainer& t = run.trainer();
  const std::string n = end == LoopEnd::TimeUp ? m_limits.budget_notice(t.current_step())
                                               : RunLimits::pause_notice(m_limits.pause_step(t.total_steps()), t.total_steps());
  if (!n.empty()) m_mailbox.notice(n);
}

void RunContext::stopped_by_divergence() {
  m_running = false;
  m_mailbox.error("training stopped: " + m_run->loop().diverged());
  make_preview(true);
}

} // namespace redraw
