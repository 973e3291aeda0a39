#include "ui/session/live_run.h"

#include "engine/export/comparison.h"
#include "engine/errors.h"
#include "engine/export/render_export.h"
#include "engine/frames/renderer.h"
#include "engine/frames/timelapse.h"

#include <cstdio>
#include <filesystem>
#include <new>

namespace redraw {

LiveRun::LiveRun(OpenedRun opened, std::string source_path, std::string model_path, size_t cap_bytes)
    : m_trainer(std::move(opened.trainer)), m_source(std::move(source_path)), m_image(std::move(opened.image)),
      m_source_image(std::move(opened.source_image)), m_image_width(opened.image_width),
      m_image_height(opened.image_height), m_device(m_trainer->backend().device_renderer()),
      m_changes(std::move(model_path)) {
  (void)m_tree.set_cap_bytes(*m_trainer, cap_bytes);
}

std::vector<std::string> LiveRun::reset(size_t cap_bytes) {
  m_trainer->reset();
  m_tree.reset();
  m_changes.changed();
  restart_rows();
  return m_tree.set_cap_bytes(*m_trainer, cap_bytes);
}

void LiveRun::set_schedule(const ScheduleSpec& schedule, int64_t total_steps) {
  m_trainer->set_total_steps(total_steps);
  m_trainer->set_schedule(schedule);
  m_changes.changed();
}

std::vector<std::string> LiveRun::set_cap(size_t cap_bytes) { return m_tree.set_cap_bytes(*m_trainer, cap_bytes); }

bool LiveRun::switch_line(int32_t line, std::vector<std::string>& notices) {
  if (!m_tree.switch_to(*m_trainer, line, notices)) return false;
  m_changes.changed();
  restart_rows();
  return true;
}

void LiveRun::restart_rows() {
  m_pending_rows.clear();
  m_last_preview_step = -1;
  m_posted_loss_end = -1;
  m_growth_due = true;
}

LoopEvents LiveRun::events(SessionMailbox& box, LoopEvents outer) {
  LoopEvents e = outer;
  e.stepped = [this, then = std::move(outer.stepped)](const std::optional<MetricsRow>& row, double seconds) {
    m_changes.changed();
    if (row) m_pending_rows.push_back(*row);
    m_profile.step_s += seconds;
    ++m_profile.steps;
    return then && then(row, seconds);
  };
  e.settled = [this, then = std::move(outer.settled)](const MetricsRow& row) {
    m_pending_rows.push_back(row);
    if (then) then(row);
  };
  e.recovered = [this, &box, then = std::move(outer.recovered)](const std::vector<RecoveryEvent>& found) {
    post_recoveries(box, found);
    if (then) then(found);
  };
  return e;
}

std::vector<std::string> LiveRun::branch(int64_t step, bool& trains_on) {
  Trainer& t = *m_trainer;
  const int64_t left_at = t.current_step();
  RunTree::BranchResult r = m_tree.branch(t, t.frames().store().index_at_step(step));
  const std::string from = std::to_string(t.current_step());
  const std::string kept = "; the line up to step " + std::to_string(left_at) + " is kept in the run tree";
  const std::string optimizer = r.exact ? " with its optimizer state (an exact continuation)"
                                        : "; the optimizer restarts from zero (this frame's optimizer state "
                                          "was not kept)";
  m_changes.changed();
  restart_rows();
  trains_on = t.current_step() < t.total_steps();
  r.notices.push_back(trains_on ? "training continues from step " + from + optimizer + kept
                                : "branched at step " + from + optimizer + kept + "; raise Steps to train it");
  return std::move(r.notices);
}

void LiveRun::post_recoveries(SessionMailbox& box, const std::vector<RecoveryEvent>& found) {
  if (found.empty()) return;
  for (const RecoveryEvent& e : found)
    box.notice(recovery_text(e, m_trainer->config().training.max_recoveries));
  restart_rows();
  box.replace_history(m_trainer->record().rows());
}

std::string load_failure_text(const std::string& source, bool kept) {
  const std::string keeps = kept ? "; the current run is kept" : "";
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return "out of memory while loading " + source + "; the current run is kept";
  } catch (const ImageError& e) {
    return std::string("cannot open the image: ") + e.what() + keeps;
  } catch (const CheckpointError& e) {
    return std::string("cannot open the model: ") + e.what() + keeps;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "cannot open " + source + keeps;
  }
}

void LiveRun::post_frame(SessionMailbox& box, int64_t step, int32_t max_w, int32_t max_h) {
  Trainer& t = *m_trainer;
  if (t.frames().store().empty()) return;
  try {
    const size_t i = t.frames().store().index_at_step(step);
    int32_t w = 0, h = 0;
    fit_within(t.dataset().image.width, t.dataset().image.height, max_w, max_h, w, h);
    box.frame(std::make_shared<Image>(t.render_snapshot(i, w, h)), t.frames().frame(i).metrics.step);
  } catch (const std::exception& e) {
    box.error(std::string("timelapse frame: ") + e.what());
  }
}

void LiveRun::post_window(SessionMailbox& box, const RenderWindow& window, int32_t w, int32_t h, uint64_t generation,
                          const std::function<bool()>& current, int64_t frame_step) {
  try {
    RenderOptions opts;
    opts.window = window;
    opts.max_tile_pixels = int64_t(1) << 16; // small bands: a newer request cancels soon
    opts.progress = [&current](double) { return current(); };
    if (frame_step >= 0) {
      Trainer& t = *m_trainer;
      if (t.frames().store().empty()) return;
      const size_t i = t.frames().store().index_at_step(frame_step);
      // Thinned away since it was shown, or a picture only: nothing sharper to draw.
      if (t.frames().frame(i).metrics.step != frame_step || !has_weights(t.frames().frame(i))) return;
      box.zoom(std::make_shared<Image>(t.render_snapshot(i, w, h, opts)), generation, frame_step);
      return;
    }
    box.zoom(std::make_shared<Image>(m_trainer->render(w, h, opts)), generation, m_trainer->current_step());
  } catch (const std::exception&) {
    // cancelled by a newer view, or the weights cannot be drawn: the enlarged preview stays
  }
}

RunNews LiveRun::news(SessionMailbox& box, bool running) {
  post_frames(box, false);
  post_loss_trace(box);
  post_growth(box);
  RunNews out;
  out.status = status(running);
  out.rows.swap(m_pending_rows);
  out.profile = m_profile;
  out.profile.wall_s = seconds_since(m_profile_since);
  out.profile.backend = m_trainer->backend().take_step_profile();
  m_profile = SessionProfile{};
  m_profile_since = Clock::now();
  return out;
}

void LiveRun::post_loss_trace(SessionMailbox& box) {
  const LossTrace& t = m_trainer->record().losses();
  const int64_t end = t.end_count();
  if (m_posted_loss_end < 0 || m_posted_loss_end > end || m_posted_loss_end < t.first_count) {
    box.loss_trace(t, true);
  } else if (end > m_posted_loss_end) {
    LossTrace part;
    part.first_count = m_posted_loss_end;
    part.loss.assign(t.loss.begin() + (m_posted_loss_end - t.first_count), t.loss.end());
    box.loss_trace(std::move(part), false);
  }
  m_posted_loss_end = end;
}

void LiveRun::post_growth(SessionMailbox& box) {
  const std::vector<GrowthEvent>& events = m_trainer->record().growth();
  if (!m_growth_due && events == m_posted_growth) return;
  m_posted_growth = events;
  m_growth_due = false;
  box.growth(events);
}

SessionStatus LiveRun::status(bool running) {
  Trainer& t = *m_trainer;
  SessionStatus s;
  s.has_run = true;
  s.running = running;
  s.image_path = m_image;
  s.source_path = m_source;
  s.backend = t.backend().name();
  s.device = t.backend().device_description();
  s.step = t.current_step();
  s.total_steps = t.total_steps();
  s.elapsed_s = t.clock().elapsed();
  s.parameter_count = t.backend().parameter_count();
  s.config = t.config();
  s.width = t.dataset().image.width;
  s.height = t.dataset().image.height;
  s.image_width = m_image_width;
  s.image_height = m_image_height;
  s.lines = m_tree.lines(t);
  s.unsaved = m_changes.unsaved(s.step, s.lines.size());
  s.model_path = m_changes.model_path();
  auto& win = m_rate_window;
  const double now = t.clock().elapsed(); // training time: a stop (SIGSTOP) is no time
  win.emplace_back(now, s.step);
  while (win.size() > 2 && now - win.front().first > 2.0)
    win.pop_front();
  if (running && win.size() >= 2 && win.back().first > win.front().first)
    s.steps_per_s = double(win.back().second - win.front().second) / (win.back().first - win.front().first);
  if (!running) win.clear();
  return s;
}

bool LiveRun::preview(SessionMailbox& box, DeviceFrameRing* ring, PreviewPacing& pacing, bool force) {
  Trainer& t = *m_trainer;
  const int64_t step = t.current_step();
  if (!force && (!pacing.due(step, seconds_since(m_last_preview)) || step == m_last_preview_step)) return true;
  const PreviewSize limit = pacing.begin();
  const bool host = force || pacing.host_wanted();
  // At the size shown, never more than the training grid: on the GPU too, a 100-megapixel run
  // would otherwise draw 100 megapixels for a pane of a few hundred thousand.
  int32_t pw = 0, ph = 0;
  fit_within(t.dataset().image.width, t.dataset().image.height, limit.w, limit.h, pw, ph);
  const auto start = Clock::now();
  bool device_done = false, device_ok = true;
  if (ring && m_device) {
    try {
      void* dst = ring->begin_write(pw, ph);
      m_device->render_rgba8_device(pw, ph, dst);
      ring->end_write(step);
      device_done = true;
      box.device_preview(step);
    } catch (const std::exception& e) {
      box.error(std::string("GPU preview failed, using host previews: ") + e.what());
      device_ok = false;
    }
  }
  // The host copy: always on the CPU; on the GPU only when asked for (paused, finished, or the
  // error map and pixel tooltip need it).
  if (!device_done || host) box.preview(std::make_shared<Image>(t.render(pw, ph)), step);
  m_last_preview = Clock::now();
  m_last_preview_step = step;
  const double seconds = std::chrono::duration<double>(m_last_preview - start).count();
  m_profile.preview_s += seconds;
  pacing.rendered(seconds);
  return device_ok;
}

void LiveRun::post_frames(SessionMailbox& box, bool force) {
  const SnapshotStore& store = m_trainer->frames().store();
  const int64_t newest = store.empty() ? -1 : store.frames().back().metrics.step;
  // The bytes change too when frames lose their optimizer state (Snapshot::resumable).
  if (!force && store.size() == m_posted_frames && store.thinned() == m_posted_thinned && newest == m_posted_newest &&
      store.bytes() == m_posted_bytes)
    return;
  std::vector<MetricsRow> rows;
  std::vector<uint8_t> kinds;
  rows.reserve(store.size());
  for (const Snapshot& s : store.frames()) {
    rows.push_back(s.metrics);
    kinds.push_back(uint8_t(frame_kind(s)));
  }
  m_posted_frames = store.size();
  m_posted_thinned = store.thinned();
  m_posted_bytes = store.bytes();
  m_posted_newest = newest;
  box.frames(std::move(rows), std::move(kinds), store.bytes(), store.cap_bytes());
}

std::shared_ptr<const NetworkSnapshot> LiveRun::network() {
  auto net = std::make_shared<NetworkSnapshot>();
  net->model = m_trainer->config().model;
  net->params = m_trainer->parameters();
  net->fourier_b = m_trainer->fourier_b();
  net->step = m_trainer->current_step();
  return net;
}

void LiveRun::write_model(SessionMailbox& box, const std::string& path, WriteKind kind) {
  if (kind == WriteKind::Copy) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  }
  try {
    m_trainer->with_checkpoint(m_source_image, [&](const Checkpoint& c) { save_checkpoint(path, c); });
  } catch (...) {
    post_recoveries(box, m_trainer->take_new_recoveries()); // a diverged state is recovered before it is saved
    throw;
  }
  post_recoveries(box, m_trainer->take_new_recoveries());
  if (kind == WriteKind::Save) m_changes.saved(path);
}

void LiveRun::export_to(SessionMailbox& box, const RunExport& request, const std::function<bool()>& go_on) {
  const std::string what = export_what(request);
  box.busy(what);
  try {
    const auto progress = [&](double f) {
      box.progress(f);
      return go_on();
    };
    if (const auto* c = std::get_if<run_command::ExportImage>(&request)) export_image(*c, progress);
    if (const auto* c = std::get_if<run_command::ExportComparison>(&request)) export_comparison(*c, progress);
    if (const auto* c = std::get_if<run_command::ExportTimelapse>(&request)) export_timelapse(*c, progress);
    box.notice(what + " done: " + std::visit([](const auto& c) { return c.path; }, request));
  } catch (const CancelledError&) {
    box.notice(what + " cancelled; nothing was written");
  } catch (const std::bad_alloc&) {
    box.error(what + ": out of memory; nothing was written");
  } catch (const std::exception& e) {
    box.error(what + ": " + e.what());
  }
  box.idle();
}

std::string LiveRun::export_what(const RunExport& request) const {
  if (const auto* c = std::get_if<run_command::ExportComparison>(&request))
    return "comparison " + std::to_string(2 * c->width) + "x" + std::to_string(c->height);
  if (std::holds_alternative<run_command::ExportTimelapse>(request))
    return "timelapse (" + std::to_string(m_trainer->frames().store().size()) + " frames)";
  const auto& c = std::get<run_command::ExportImage>(request);
  std::string what = "export " + std::to_string(c.width) + "x" + std::to_string(c.height);
  const SnapshotStore& store = m_trainer->frames().store();
  if (c.frame_step >= 0 && !store.empty())
    what += " (step " + std::to_string(m_trainer->frames().frame(store.index_at_step(c.frame_step)).metrics.step) + ")";
  return what;
}

void LiveRun::export_image(const run_command::ExportImage& c, const std::function<bool(double)>& progress) {
  Trainer& t = *m_trainer;
  const std::vector<float> params = c.frame_step >= 0 && !t.frames().store().empty()
                                        ? frame_weights(t.frames().frame(t.frames().store().index_at_step(c.frame_step)))
                                        : t.parameters();
  if (params.empty()) throw ConfigError("this frame is a picture only (its weights were not kept): export a keyframe");
  RenderOptions opts;
  opts.progress = progress;
  export_render_png(t.backend(), NetworkView{&t.config().model, params, t.fourier_b()}, c.width, c.height, c.path,
                    c.bit_depth, opts);
}

void LiveRun::export_comparison(const run_command::ExportComparison& c, const std::function<bool(double)>& progress) {
  if (m_image.empty()) throw ConfigError("the original image of this run is not available");
  Trainer& t = *m_trainer;
  const Image original = comparison_original(load_image(m_image), t.config().data);
  const std::vector<float> params = t.parameters();
  RenderOptions opts;
  opts.progress = progress;
  export_comparison_png(t.backend(), NetworkView{&t.config().model, params, t.fourier_b()}, original, c.width,
                        c.height, c.path, c.bit_depth, opts);
}

void LiveRun::export_timelapse(const run_command::ExportTimelapse& c, const std::function<bool(double)>& progress) {
  Trainer& t = *m_trainer;
  TimelapseOptions opts = c.options;
  opts.progress = progress;
  redraw::export_timelapse(t.backend(), t.config().model, t.fourier_b(), t.frames().store().frames(), c.path, opts);
}

} // namespace redraw
