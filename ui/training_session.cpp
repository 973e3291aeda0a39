#include "ui/training_session.h"
#include "ui/live_run.h"

#include "engine/errors.h"
#include "engine/training/open_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <new>

namespace redraw {
namespace {
constexpr double k_slice_seconds = 0.03; ///< training runs in slices this long between command checks
} // namespace

TrainingSession::TrainingSession(BackendFactory make_backend, std::shared_ptr<DeviceInterop> interop,
                                 std::shared_ptr<SliceTurns> turns)
    : m_make_backend(std::move(make_backend)), m_interop(std::move(interop)), m_turns(std::move(turns)),
      m_thread([this] { thread_main(); }) {}

TrainingSession::~TrainingSession() {
  {
    std::lock_guard lock(m_mutex);
    m_quit = true;
    m_commands.clear();
  }
  m_cv.notify_all();
  if (m_thread.joinable()) m_thread.join();
}

void TrainingSession::post(Command c) {
  {
    std::lock_guard lock(m_mutex);
    m_commands.push_back(std::move(c));
  }
  m_cv.notify_all();
}

// ---- commands ---------------------------------------------------------------------------------

void TrainingSession::post_to_run(std::string what, Command c, std::string no_run) {
  post([this, what = std::move(what), c = std::move(c), no_run = std::move(no_run)] {
    if (!m_run) return no_run.empty() ? void() : report_error(no_run);
    try {
      c();
    } catch (const std::exception& e) {
      report_error(what + ": " + e.what());
    }
  });
}

void TrainingSession::load(LoadRequest req) {
  post([this, req = std::move(req)] { do_load(req); });
}
void TrainingSession::set_running(bool run) {
  if (!run) m_stop_step = true; // a step in progress is left at once
  post([this, run] {
    if (run) m_stop_step = false;
    if (run && !m_run) return;
    if (run && m_run->trainer->current_step() >= m_run->trainer->total_steps()) {
      report_notice("training is at its last step; raise Steps to continue");
      return;
    }
    if (run && time_budget_spent()) {
      report_notice("the time budget is spent; raise it or turn it off to train further");
      return;
    }
    if (run && m_stop_at >= 0 && m_run->trainer->current_step() >= m_stop_at) m_stop_at = -1;
    m_running = run;
    if (!run && m_run) pause_run();
  });
}
void TrainingSession::settle_metrics() {
  if (m_run && !m_run->settle_metrics(m_mailbox)) m_running = false;
}
void TrainingSession::pause_run() {
  m_running = false;
  settle_metrics();
  m_run->trainer->pause_clock();
  make_preview(true);
}
void TrainingSession::stop_training_now() { set_running(false); }

void TrainingSession::step_once() {
  post([this] {
    if (!m_run || m_running) return;
    m_stop_step = false;
    m_run->trainer->set_stop_flag(&m_stop_step);
    ++m_change;
    try {
      if (auto row = m_run->trainer->step()) m_run->pending_rows.push_back(*row);
    } catch (const DivergedError& e) {
      report_error(std::string("training stopped: ") + e.what());
    }
    pause_run();
  });
}
void TrainingSession::reset() {
  post([this] {
    if (!m_run) return;
    m_run->trainer->reset();
    m_run->tree.reset();
    for (const auto& n : m_run->tree.set_cap_bytes(*m_run->trainer, snapshot_cap()))
      report_notice(n);
    show_new_line();
  });
}
void TrainingSession::set_schedule(const ScheduleSpec& spec, int64_t total_steps) {
  post_to_run("schedule", [this, spec, total_steps] {
    m_run->trainer->set_total_steps(total_steps);
    m_run->trainer->set_schedule(spec);
    ++m_change;
  });
}
void TrainingSession::set_preview_every(int32_t n) {
  post([this, n] { m_preview_every = std::max(1, n); });
}
void TrainingSession::set_min_preview_interval(double seconds) {
  post([this, seconds] { m_min_preview_interval = std::clamp(seconds, 0.0, 10.0); });
}
void TrainingSession::set_preview_share(double share) {
  post([this, share] {
    m_preview_share = share;
    m_preview_cost_gap = 0;
  });
}
void TrainingSession::set_stop_at(int64_t step) {
  post([this, step] { m_stop_at = step; });
}
void TrainingSession::set_time_budget(double seconds) {
  post([this, seconds] {
    m_time_budget = seconds > 0 ? seconds : 0;
    if (m_run) apply_time_budget();
  });
}
void TrainingSession::apply_time_budget() { m_run->trainer->set_time_budget(m_time_budget); }
bool TrainingSession::time_budget_spent() const {
  return m_run && m_time_budget > 0 && m_run->trainer->time_budget_left() <= 0;
}
void TrainingSession::set_preview_limit(int32_t max_w, int32_t max_h) {
  m_preview_max_w = max_w;
  m_preview_max_h = max_h;
  post([this, max_w, max_h] { // a new preview at the new size (none when the last one had it)
    if (max_w != m_preview_made_w || max_h != m_preview_made_h) m_host_preview_wanted = true;
  });
}
void TrainingSession::request_host_preview() {
  post([this] { m_host_preview_wanted = true; });
}
void TrainingSession::request_network() {
  post([this] {
    if (m_run) m_mailbox.network(m_run->network());
  });
}
void TrainingSession::enable_device_preview(bool on) {
  std::lock_guard lock(m_mutex);
  m_device_preview_enabled = on;
}
std::shared_ptr<DeviceFrameRing> TrainingSession::device_frames() const {
  std::lock_guard lock(m_mutex);
  return m_frames;
}

bool TrainingSession::flush(double timeout_s) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> f = done->get_future();
  post([done] { done->set_value(); });
  return f.wait_for(std::chrono::duration<double>(timeout_s)) == std::future_status::ready;
}

void TrainingSession::report_recoveries() {
  if (m_run) m_run->post_recoveries(m_mailbox);
}

void TrainingSession::request_frame(int64_t step) {
  {
    std::lock_guard lock(m_mutex);
    m_requested_frame = std::max<int64_t>(0, step);
  }
  m_cv.notify_all();
}

void TrainingSession::show_new_line() {
  ++m_change;
  apply_time_budget();
  m_run->restart_rows();
  m_mailbox.new_history(m_run->trainer->history(), ++m_run_id);
  make_preview(true);
  m_run->post_frames(m_mailbox, true);
}

void TrainingSession::branch_from(int64_t step) {
  post_to_run("resume from here", [this, step] {
    if (m_run->trainer->snapshot_count() == 0) return;
    settle_metrics(); // the line being left keeps every row it measured
    m_run->trainer->pause_clock();
    bool trains_on = false;
    const std::vector<std::string> notices = m_run->branch(step, trains_on);
    show_new_line();
    if (trains_on) {
      m_running = true;
      if (m_stop_at >= 0 && m_run->trainer->current_step() >= m_stop_at) m_stop_at = -1;
    }
    for (const auto& n : notices)
      report_notice(n);
  });
}

void TrainingSession::switch_line(int32_t id) {
  post_to_run("switch line", [this, id] {
    Trainer& t = *m_run->trainer;
    settle_metrics();
    t.pause_clock();
    std::vector<std::string> notices;
    if (!m_run->tree.switch_to(t, id, notices)) return;
    m_running = false;
    show_new_line();
    for (const auto& n : notices)
      report_notice(n);
    report_notice("switched to the run-tree line at step " + std::to_string(t.current_step()) +
                  "; Space trains it further");
  });
}

void TrainingSession::render_picture(int32_t w, int32_t h) {
  post_to_run(
      "compare export", [this, w, h] { m_mailbox.picture(std::make_shared<Image>(m_run->trainer->render(w, h))); },
      "compare export: no run");
}

void TrainingSession::render_window(const RenderWindow& window, int32_t w, int32_t h, uint64_t generation,
                                    int64_t frame_step) {
  m_zoom_generation = generation;
  if (generation == 0) return;
  post([this, window, w, h, generation, frame_step] {
    const auto current = [this, generation] { return m_zoom_generation == generation; };
    if (m_run && current()) m_run->post_window(m_mailbox, window, w, h, generation, current, frame_step);
  });
}

void TrainingSession::set_snapshot_cap(size_t bytes) {
  post([this, bytes] {
    m_snapshot_cap = bytes;
    if (!m_run) return;
    for (const auto& n : m_run->tree.set_cap_bytes(*m_run->trainer, bytes))
      report_notice(n);
    m_run->post_frames(m_mailbox, true); // the panel shows the new cap (and any thinning) at once
  });
}

void TrainingSession::serve_frame_request() {
  int64_t step;
  {
    std::lock_guard lock(m_mutex);
    step = m_requested_frame;
    m_requested_frame = -1;
  }
  if (step >= 0 && m_run) m_run->post_frame(m_mailbox, step, m_preview_max_w.load(), m_preview_max_h.load());
}

// ---- the training thread ----------------------------------------------------------------------

void TrainingSession::report_error(const std::string& what) { m_mailbox.error(what); }
void TrainingSession::report_notice(const std::string& what) { m_mailbox.notice(what); }

void TrainingSession::do_load(const LoadRequest& req) {
  m_mailbox.busy("loading");
  try {
    OpenRunOptions options;
    options.config = req.config;
    options.backend = req.backend;
    options.precision = req.backend == "cpu" ? std::string() : req.precision;
    options.limits = req.limits;
    OpenedRun opened = open_run({req.image, req.model}, m_make_backend, options);
    for (const auto& n : opened.notices)
      report_notice(n);
    if (!opened.backend_notice.empty() && !m_backend_notice_shown) report_notice(opened.backend_notice);
    m_backend_notice_shown = true;
    auto run = std::make_unique<LiveRun>(std::move(opened), req.model.empty() ? req.image : req.model);
    // The user's frame memory cap outlives the trainer (after restore, so a model's frames are
    // thinned to it too).
    (void)run->tree.set_cap_bytes(*run->trainer, snapshot_cap());
    if (run->device && m_interop) {
      std::lock_guard lock(m_mutex);
      if (m_device_preview_enabled && !m_frames) {
        try {
          m_frames = m_interop->make_frame_ring();
        } catch (const std::exception& e) {
          m_mailbox.error(std::string("GPU preview disabled: ") + e.what());
          m_device_preview_enabled = false;
        }
      }
    }
    // Success: the new run replaces the old one.
    m_running = false;
    m_run = std::move(run);
    m_saved_change = ++m_change; // a run just opened has nothing unsaved
    m_model_path = req.model;
    ++m_trainer_id;
    apply_time_budget();
    const std::shared_ptr<const Dataset> data = m_run->trainer->shared_dataset();
    m_mailbox.new_history(m_run->trainer->history(), ++m_run_id,
                          std::shared_ptr<const Image>(data, &data->image)); // the trainer's floats, shared
    make_preview(true);
    m_run->post_frames(m_mailbox, true);
  } catch (const ImageBudgetError& e) { // the app offers to open it with a larger budget
    const std::string file = !req.image.empty() ? req.image : req.model;
    m_mailbox.budget_offer(BudgetOffer{req, file, e.needed_bytes, e.budget_bytes, e.what()});
  } catch (...) {
    report_error(load_failure_text(req.model.empty() ? req.image : req.model, m_run != nullptr));
  }
  m_mailbox.idle();
}

void TrainingSession::make_preview(bool force) {
  if (!m_run || (!force && m_run->trainer->current_step() == m_run->last_preview_step)) return;
  std::shared_ptr<DeviceFrameRing> ring;
  {
    std::lock_guard lock(m_mutex);
    if (m_device_preview_enabled) ring = m_frames;
  }
  m_preview_made_w = m_preview_max_w;
  m_preview_made_h = m_preview_max_h;
  const auto start = Clock::now();
  const bool device_ok =
      m_run->preview(m_mailbox, ring.get(), force || m_host_preview_wanted, m_preview_made_w, m_preview_made_h);
  m_preview_cost_gap = preview_cost_gap(seconds_since(start), m_preview_share);
  if (!device_ok) {
    std::lock_guard lock(m_mutex);
    m_device_preview_enabled = false;
  }
  m_host_preview_wanted = false;
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
    s.stop_at_step = m_stop_at;
    s.lines = m_run->tree.lines(*m_run->trainer);
    s.unsaved = m_change != m_saved_change && (s.step > 0 || s.lines.size() > 1);
    s.model_path = m_model_path;
    profile = m_run->take_profile();
    rows.swap(m_run->pending_rows);
  }
  m_mailbox.publish(std::move(s), m_run_id, std::move(rows), m_run ? &profile : nullptr);
}

void TrainingSession::train_slice() {
  Trainer& t = *m_run->trainer;
  const SliceTurn turn(m_turns.get());
  const auto start = Clock::now();
  const int64_t end = m_stop_at >= 0 ? std::min(m_stop_at, t.total_steps()) : t.total_steps();
  ++m_change;
  t.set_stop_flag(&m_stop_step); // every run's trainer, whichever is current
  try {
    while (t.current_step() < end) {
      m_run->step();
      if (t.stop_requested()) return; // a pause or a quit: its command, next, pauses the run
      report_recoveries();
      const int64_t step = t.current_step();
      // Every preview_every steps, no faster than frames show them, and within the previews' share.
      if (step % m_preview_every == 0 &&
          seconds_since(m_run->last_preview) >= std::max(m_min_preview_interval, m_preview_cost_gap))
        make_preview(false);
      if (time_budget_spent()) {
        pause_run();
        char what[160];
        std::snprintf(what, sizeof what, "time budget of %g s spent at step %lld; training paused", m_time_budget,
                      static_cast<long long>(t.current_step()));
        report_notice(what);
        return;
      }
      if (seconds_since(start) >= k_slice_seconds) break;
      std::lock_guard lock(m_mutex);
      if (!m_commands.empty() || m_quit || m_requested_frame >= 0) break;
    }
    if (t.current_step() >= end) {
      pause_run();
      if (end == t.total_steps()) report_notice("training finished at step " + std::to_string(end));
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
  for (;;) {
    std::deque<Command> cmds;
    {
      std::unique_lock lock(m_mutex);
      if (!m_running || !m_run)
        m_cv.wait_for(lock, std::chrono::milliseconds(200),
                      [this] { return m_quit || !m_commands.empty() || m_requested_frame >= 0; });
      if (m_quit) return;
      cmds.swap(m_commands);
    }
    for (auto& c : cmds) {
      try {
        c();
      } catch (const std::exception& e) {
        report_error(e.what());
      }
    }
    serve_frame_request();
    if (m_running && m_run) train_slice();
    if (m_run && m_host_preview_wanted) make_preview(true);
    publish_status();
  }
}

SessionSnapshot TrainingSession::take() {
  SessionSnapshot out;
  out.take_from(m_mailbox);
  return out;
}

} // namespace redraw
