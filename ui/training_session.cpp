#include "ui/training_session.h"
#include "ui/training_session_run.h"

#include "engine/comparison.h"
#include "engine/errors.h"
#include "engine/open_run.h"
#include "engine/render_export.h"
#include "engine/renderer.h"
#include "engine/trainer.h"


#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <future>
#include <new>

namespace redraw {
namespace {
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
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

void TrainingSession::load(LoadRequest req) {
  post([this, req = std::move(req)] { do_load(req); });
}
void TrainingSession::set_running(bool run) {
  post([this, run] {
    if (run && !m_run) return;
    if (run && m_run->trainer->current_step() >= m_run->trainer->total_steps()) {
      report_notice("training is at its last step; raise Steps to continue");
      return;
    }
    if (run && m_stop_at >= 0 && m_run->trainer->current_step() >= m_stop_at) m_stop_at = -1;
    m_running = run;
    if (!run && m_run) {
      settle_metrics();
      m_run->trainer->pause_clock();
      make_preview(true);
    }
  });
}
void TrainingSession::settle_metrics() {
  if (!m_run) return;
  try {
    for (const auto& row : m_run->trainer->flush_metrics()) m_run->pending_rows.push_back(row);
  } catch (const DivergedError& e) {
    m_running = false;
    report_error(std::string("training stopped: ") + e.what());
  }
  report_recoveries();
}
void TrainingSession::step_once() {
  post([this] {
    if (!m_run || m_running) return;
    ++m_change;
    try {
      if (auto row = m_run->trainer->step()) m_run->pending_rows.push_back(*row);
    } catch (const DivergedError& e) {
      report_error(std::string("training stopped: ") + e.what());
    }
    settle_metrics();
    report_recoveries();
    m_run->trainer->pause_clock();
    make_preview(true);
  });
}
void TrainingSession::reset() {
  post([this] {
    if (!m_run) return;
    m_run->trainer->reset();
    m_tree.reset();
    for (const auto& n :
         m_tree.set_cap_bytes(*m_run->trainer, m_snapshot_cap > 0 ? m_snapshot_cap : k_default_snapshot_cap_bytes))
      report_notice(n);
    ++m_change;
    m_run->pending_rows.clear();
    m_run->last_preview_step = -1;
    ++m_run_id;
    {
      std::lock_guard lock(m_mutex);
      m_back.rows.clear();
      m_back.history_replaced = true;
      m_back.run_id = m_run_id; // with the history, so a reader sees both or neither
    }
    make_preview(true);
    publish_snapshots(true);
  });
}
void TrainingSession::set_schedule(const ScheduleSpec& spec, int64_t total_steps) {
  post([this, spec, total_steps] {
    if (!m_run) return;
    try {
      m_run->trainer->set_total_steps(total_steps);
      m_run->trainer->set_schedule(spec);
      ++m_change;
    } catch (const std::exception& e) {
      report_error(std::string("schedule: ") + e.what());
    }
  });
}
void TrainingSession::set_preview_every(int32_t n) {
  post([this, n] { m_preview_every = std::max(1, n); });
}
void TrainingSession::set_min_preview_interval(double seconds) {
  post([this, seconds] { m_min_preview_interval = std::clamp(seconds, 0.0, 10.0); });
}
void TrainingSession::set_stop_at(int64_t step) {
  post([this, step] { m_stop_at = step; });
}
void TrainingSession::request_host_preview() {
  post([this] { m_host_preview_wanted = true; });
}
void TrainingSession::request_network() {
  post([this] {
    if (!m_run) return;
    Trainer& t = *m_run->trainer;
    auto net = std::make_shared<NetworkSnapshot>();
    net->model = t.config().model;
    net->params = t.parameters();
    net->fourier_b = t.fourier_b();
    net->step = t.current_step();
    std::lock_guard lock(m_mutex);
    m_back.network = std::move(net);
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
  if (!m_run) return;
  Trainer& t = *m_run->trainer;
  const std::vector<RecoveryEvent> events = t.take_new_recoveries();
  if (events.empty()) return;
  for (const RecoveryEvent& e : events) {
    char b[96];
    std::snprintf(b, sizeof b, "; learning rate x%g from now on (recovery %d of %d)", e.lr_scale, e.attempt,
                  t.config().training.max_recoveries);
    report_notice("training diverged at step " + std::to_string(e.step) + " (" + e.reason + "): went back to step " +
                  std::to_string(e.rolled_back_to) + b);
  }
  // The history after the good state was dropped: the plots take the whole history again.
  m_run->pending_rows.clear();
  m_run->last_preview_step = -1;
  std::lock_guard lock(m_mutex);
  m_back.rows = t.history();
  m_back.history_replaced = true;
}

void TrainingSession::request_frame(int64_t step) {
  {
    std::lock_guard lock(m_mutex);
    m_requested_frame = std::max<int64_t>(0, step);
  }
  m_cv.notify_all();
}

void TrainingSession::publish_replaced_history() {
  m_run->pending_rows.clear();
  m_run->last_preview_step = -1;
  ++m_run_id;
  std::lock_guard lock(m_mutex);
  m_back.rows = m_run->trainer->history();
  m_back.history_replaced = true;
  m_back.run_id = m_run_id; // with the history, so a reader sees both or neither
}

void TrainingSession::branch_from(int64_t step) {
  post([this, step] {
    if (!m_run || m_run->trainer->snapshot_count() == 0) return;
    Trainer& t = *m_run->trainer;
    try {
      settle_metrics(); // the line being left keeps every row it measured
      t.pause_clock();
      const int64_t left_at = t.current_step();
      const RunTree::BranchResult r = m_tree.branch(t, t.snapshots().index_at_step(step));
      ++m_change;
      publish_replaced_history();
      make_preview(true);
      publish_snapshots(true);
      for (const auto& n : r.notices)
        report_notice(n);
      const std::string from = std::to_string(t.current_step());
      const std::string kept = "; the line up to step " + std::to_string(left_at) + " is kept in the run tree";
      const std::string optimizer = r.exact ? " with its optimizer state (an exact continuation)"
                                            : "; the optimizer restarts from zero (this frame's optimizer state "
                                              "was not kept)";
      if (t.current_step() < t.total_steps()) {
        m_running = true;
        if (m_stop_at >= 0 && t.current_step() >= m_stop_at) m_stop_at = -1;
        report_notice("training continues from step " + from + optimizer + kept);
      } else {
        report_notice("branched at step " + from + optimizer + kept + "; raise Steps to train it");
      }
    } catch (const std::exception& e) {
      report_error(std::string("resume from here: ") + e.what());
    }
  });
}

void TrainingSession::switch_line(int32_t id) {
  post([this, id] {
    if (!m_run) return;
    Trainer& t = *m_run->trainer;
    try {
      settle_metrics();
      t.pause_clock();
      std::vector<std::string> notices;
      if (!m_tree.switch_to(t, id, notices)) return;
      m_running = false;
      ++m_change;
      publish_replaced_history();
      make_preview(true);
      publish_snapshots(true);
      for (const auto& n : notices)
        report_notice(n);
      report_notice("switched to the run-tree line at step " + std::to_string(t.current_step()) +
                    "; Space trains it further");
    } catch (const std::exception& e) {
      report_error(std::string("switch line: ") + e.what());
    }
  });
}

void TrainingSession::render_picture(int32_t w, int32_t h) {
  post([this, w, h] {
    if (!m_run) return report_error("compare export: no run");
    try {
      auto img = std::make_shared<Image>(m_run->trainer->render(w, h));
      std::lock_guard lock(m_mutex);
      m_back.picture = std::move(img);
    } catch (const std::exception& e) {
      report_error(std::string("compare export: ") + e.what());
    }
  });
}

void TrainingSession::set_snapshot_cap(size_t bytes) {
  post([this, bytes] {
    m_snapshot_cap = bytes;
    if (!m_run) return;
    for (const auto& n : m_tree.set_cap_bytes(*m_run->trainer, bytes))
      report_notice(n);
    publish_snapshots(true); // the panel shows the new cap (and any thinning) at once
  });
}

void TrainingSession::serve_frame_request() {
  int64_t step;
  {
    std::lock_guard lock(m_mutex);
    step = m_requested_frame;
    m_requested_frame = -1;
  }
  if (step < 0 || !m_run || m_run->trainer->snapshot_count() == 0) return;
  Trainer& t = *m_run->trainer;
  try {
    const size_t i = t.snapshots().index_at_step(step);
    const int64_t frame_step = t.snapshot(i).metrics.step;
    auto img = std::make_shared<Image>(t.render_snapshot(i, t.dataset().image.width, t.dataset().image.height));
    std::lock_guard lock(m_mutex);
    m_back.frame = std::move(img);
    m_back.frame_step = frame_step;
  } catch (const std::exception& e) {
    report_error(std::string("timelapse frame: ") + e.what());
  }
}

void TrainingSession::publish_snapshots(bool force) {
  if (!m_run) return;
  const SnapshotStore& store = m_run->trainer->snapshots();
  const int64_t newest = store.empty() ? -1 : store.frames().back().metrics.step;
  // The bytes change too when frames lose their optimizer state (Snapshot::resumable).
  if (!force && store.size() == m_published_frames && store.thinned() == m_published_thinned &&
      newest == m_published_newest && store.bytes() == m_published_bytes)
    return;
  std::vector<MetricsRow> rows;
  std::vector<uint8_t> resumable;
  rows.reserve(store.size());
  for (const Snapshot& s : store.frames()) {
    rows.push_back(s.metrics);
    resumable.push_back(s.resumable ? 1 : 0);
  }
  m_published_frames = store.size();
  m_published_thinned = store.thinned();
  m_published_bytes = store.bytes();
  m_published_newest = newest;
  std::lock_guard lock(m_mutex);
  m_back.snapshots = std::move(rows);
  m_back.snapshot_resumable = std::move(resumable);
  m_back.snapshots_changed = true;
  m_back.snapshot_bytes = store.bytes();
  m_back.snapshot_cap_bytes = store.cap_bytes();
}

// ---- the training thread ----------------------------------------------------------------------

void TrainingSession::report_error(const std::string& what) {
  std::lock_guard lock(m_mutex);
  m_back.errors.push_back(what);
}
void TrainingSession::report_notice(const std::string& what) {
  std::lock_guard lock(m_mutex);
  m_back.notices.push_back(what);
}

void TrainingSession::do_load(const LoadRequest& req) {
  {
    std::lock_guard lock(m_mutex);
    m_back.status.busy = true;
    m_back.status.busy_what = "loading";
  }
  try {
    auto run = std::make_unique<Run>();
    OpenRunOptions options;
    options.config = req.config;
    options.backend = req.backend;
    options.precision = req.backend == "cpu" ? std::string() : req.precision;
    OpenedRun opened = open_run({req.image, req.model}, m_make_backend, options);
    for (const auto& n : opened.notices)
      report_notice(n);
    if (!opened.backend_notice.empty() && !m_backend_notice_shown) report_notice(opened.backend_notice);
    m_backend_notice_shown = true;
    run->trainer = std::move(opened.trainer);
    // The user's frame memory cap outlives the trainer (after restore, so a model's frames are
    // thinned to it too).
    RunTree tree;
    (void)tree.set_cap_bytes(*run->trainer, m_snapshot_cap > 0 ? m_snapshot_cap : k_default_snapshot_cap_bytes);
    run->source = req.model.empty() ? req.image : req.model;
    run->image = std::move(opened.image);
    run->source_image = std::move(opened.source_image);
    run->image_width = opened.image_width;
    run->image_height = opened.image_height;
    run->device = run->trainer->backend().device_renderer();
    if (run->device && m_interop) {
      std::lock_guard lock(m_mutex);
      if (m_device_preview_enabled && !m_frames) {
        try {
          m_frames = m_interop->make_frame_ring();
        } catch (const std::exception& e) {
          m_back.errors.push_back(std::string("GPU preview disabled: ") + e.what());
          m_device_preview_enabled = false;
        }
      }
    }
    // Success: the new run replaces the old one.
    m_running = false;
    m_run = std::move(run);
    m_tree = std::move(tree);
    m_saved_change = ++m_change; // a run just opened has nothing unsaved
    m_model_path = req.model;
    ++m_run_id;
    ++m_trainer_id;
    auto truth = std::make_shared<Image>(m_run->trainer->dataset().image);
    {
      std::lock_guard lock(m_mutex);
      m_back.ground_truth = std::move(truth);
      m_back.rows = m_run->trainer->history();
      m_back.history_replaced = true;
      m_back.run_id = m_run_id; // with the history, so a reader sees both or neither
    }
    make_preview(true);
    publish_snapshots(true);
  } catch (const std::bad_alloc&) {
    report_error("out of memory while loading " + (req.model.empty() ? req.image : req.model) +
                 "; the current run is kept");
  } catch (const ImageError& e) {
    report_error(std::string("cannot open the image: ") + e.what() + (m_run ? "; the current run is kept" : ""));
  } catch (const CheckpointError& e) {
    report_error(std::string("cannot open the model: ") + e.what() + (m_run ? "; the current run is kept" : ""));
  } catch (const std::exception& e) {
    report_error(e.what());
  }
  std::lock_guard lock(m_mutex);
  m_back.status.busy = false;
}

void TrainingSession::make_preview(bool force) {
  if (!m_run) return;
  Trainer& t = *m_run->trainer;
  const int64_t step = t.current_step();
  if (!force && step == m_run->last_preview_step) return;
  const int32_t w = t.dataset().image.width, h = t.dataset().image.height;
  const auto preview_start = Clock::now();
  bool device_done = false;
  if (m_run->device && m_frames) {
    bool enabled;
    {
      std::lock_guard lock(m_mutex);
      enabled = m_device_preview_enabled;
    }
    if (enabled) {
      try {
        void* dst = m_frames->begin_write(w, h);
        m_run->device->render_rgba8_device(w, h, dst);
        m_frames->end_write(step);
        device_done = true;
        std::lock_guard lock(m_mutex);
        m_back.device_preview = true;
        m_back.preview_step = step;
      } catch (const std::exception& e) {
        report_error(std::string("GPU preview failed, using host previews: ") + e.what());
        std::lock_guard lock(m_mutex);
        m_device_preview_enabled = false;
      }
    }
  }
  // The host copy: always on the CPU; on the GPU only when paused, finished or asked for (the
  // error map and pixel tooltip need it).
  if (!device_done || force || m_host_preview_wanted) {
    auto img = std::make_shared<Image>(t.render(w, h));
    std::lock_guard lock(m_mutex);
    m_back.preview = std::move(img);
    m_back.preview_step = step;
    m_host_preview_wanted = false;
  }
  m_run->last_preview = Clock::now();
  m_run->last_preview_step = step;
  m_run->profile.preview_s += std::chrono::duration<double>(m_run->last_preview - preview_start).count();
}

void TrainingSession::publish_status() {
  publish_snapshots(false);
  SessionStatus s;
  if (m_run) {
    Trainer& t = *m_run->trainer;
    s.has_run = true;
    s.running = m_running;
    s.trainer_id = m_trainer_id;
    s.image_path = m_run->image;
    s.source_path = m_run->source;
    s.backend = t.backend().name();
    s.device = t.backend().device_description();
    s.step = t.current_step();
    s.total_steps = t.total_steps();
    s.stop_at_step = m_stop_at;
    s.elapsed_s = t.elapsed_seconds();
    s.parameter_count = t.backend().parameter_count();
    s.config = t.config();
    s.width = t.dataset().image.width;
    s.height = t.dataset().image.height;
    s.image_width = m_run->image_width;
    s.image_height = m_run->image_height;
    s.lines = m_tree.lines(t);
    s.unsaved = m_change != m_saved_change && (s.step > 0 || s.lines.size() > 1);
    s.model_path = m_model_path;
    auto& win = m_run->rate_window;
    const double now = t.elapsed_seconds(); // training time: a stop (SIGSTOP) is no time
    win.emplace_back(now, s.step);
    while (win.size() > 2 && now - win.front().first > 2.0)
      win.pop_front();
    if (m_running && win.size() >= 2 && win.back().first > win.front().first)
      s.steps_per_s = double(win.back().second - win.front().second) / (win.back().first - win.front().first);
    if (!m_running) win.clear();
  }
  SessionProfile profile;
  if (m_run) {
    profile = m_run->profile;
    profile.wall_s = seconds_since(m_run->profile_since);
    profile.backend = m_run->trainer->backend().take_step_profile();
    m_run->profile = SessionProfile{};
    m_run->profile_since = Clock::now();
  }
  std::lock_guard lock(m_mutex);
  if (m_run) {
    m_back.profiles.push_back(profile);
    if (m_back.profiles.size() > 4096) m_back.profiles.erase(m_back.profiles.begin()); // nobody takes them
  }
  const bool busy = m_back.status.busy;
  const std::string busy_what = m_back.status.busy_what;
  const double busy_progress = m_back.status.busy_progress;
  m_back.status = std::move(s);
  m_back.status.busy = busy;
  m_back.status.busy_what = busy_what;
  m_back.status.busy_progress = busy_progress;
  m_back.run_id = m_run_id;
  if (m_run) {
    for (auto& r : m_run->pending_rows)
      m_back.rows.push_back(r);
    m_run->pending_rows.clear();
  }
}

namespace {
/// Holds the device for one training slice when runs share it (compare runs).
struct SliceTurn {
  SliceTurns* turns;
  explicit SliceTurn(SliceTurns* t) : turns(t) {
    if (turns) turns->begin_slice();
  }
  ~SliceTurn() {
    if (turns) turns->end_slice();
  }
  SliceTurn(const SliceTurn&) = delete;
  SliceTurn& operator=(const SliceTurn&) = delete;
};
} // namespace

void TrainingSession::train_slice() {
  Trainer& t = *m_run->trainer;
  const SliceTurn turn(m_turns.get());
  const auto start = Clock::now();
  const int64_t end = m_stop_at >= 0 ? std::min(m_stop_at, t.total_steps()) : t.total_steps();
  ++m_change;
  try {
    while (t.current_step() < end) {
      const auto step_start = Clock::now();
      if (auto row = t.step()) m_run->pending_rows.push_back(*row);
      m_run->profile.step_s += seconds_since(step_start);
      ++m_run->profile.steps;
      report_recoveries();
      const int64_t step = t.current_step();
      if (step % m_preview_every == 0 && seconds_since(m_run->last_preview) >= m_min_preview_interval)
        make_preview(false);
      if (seconds_since(start) >= k_slice_seconds) break;
      std::lock_guard lock(m_mutex);
      if (!m_commands.empty() || m_quit || m_requested_frame >= 0) break;
    }
    if (t.current_step() >= end) {
      m_running = false;
      settle_metrics();
      t.pause_clock();
      if (t.current_step() != m_run->last_preview_step) make_preview(true);
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

SessionTake TrainingSession::take() {
  SessionTake out;
  std::lock_guard lock(m_mutex);
  out.run_id = m_back.run_id;
  out.history_replaced = m_back.history_replaced;
  out.rows.swap(m_back.rows);
  out.status = m_back.status;
  out.ground_truth = std::move(m_back.ground_truth);
  out.preview = std::move(m_back.preview);
  out.preview_step = m_back.preview_step;
  out.device_preview = m_back.device_preview;
  out.snapshots_changed = m_back.snapshots_changed;
  if (out.snapshots_changed) {
    out.snapshots.swap(m_back.snapshots);
    out.snapshot_resumable.swap(m_back.snapshot_resumable);
  }
  out.snapshot_bytes = m_back.snapshot_bytes;
  out.snapshot_cap_bytes = m_back.snapshot_cap_bytes;
  out.frame = std::move(m_back.frame);
  out.frame_step = m_back.frame_step;
  m_back.snapshots_changed = false;
  m_back.frame.reset();
  out.errors.swap(m_back.errors);
  out.notices.swap(m_back.notices);
  out.saved_models.swap(m_back.saved_models);
  out.profiles.swap(m_back.profiles);
  out.failed_saves.swap(m_back.failed_saves);
  out.network = std::move(m_back.network);
  out.picture = std::move(m_back.picture);
  m_back.picture.reset();
  m_back.network.reset();
  m_back.history_replaced = false;
  m_back.ground_truth.reset();
  m_back.preview.reset();
  m_back.device_preview = false;
  return out;
}

} // namespace redraw
