#include "ui/testing/frame_hooks.h"

#include "ui/panels/insight_views.h"
#include "ui/testing/screenshot.h"
#include "ui/testing/test_script.h"
#include "ui/testing/window_test_hook.h"
#include "ui/session/training_session.h"
#include "ui/state/shown_runs.h"
#include "ui/state/ui_state.h"

#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace redraw {
namespace {

/// The screenshot run's exit test: the picture of step >= N has been on screen for two frames.
bool screenshot_ready(const UiState& ui, int64_t after_steps) {
  const SessionStatus& st = ui.run_a().status;
  if (!st.has_run || st.busy) return false;
  const int64_t target = std::min(after_steps, st.total_steps);
  return ui.run_a().shown_step >= target && st.step >= target && ui.run_a().frames_since_preview >= 2 &&
         insight_ready(ui, target);
}

/// Compare runs: where each shown run's picture is (x, y, w, h) and the step it shows, in the order
/// of shown_runs: {"compare_runs": [{"run": "A", "rect": [...], "step": N}, ...]}.
std::string compare_sidecar_json(const UiState& ui) {
  std::string out = R"({"compare_runs": [)";
  for (const ShownRun& run : shown_runs(ui)) {
    const float* r = run.view->rect;
    char buf[200];
    std::snprintf(buf, sizeof buf, R"(%s{"run": "%s", "rect": [%g, %g, %g, %g], "step": %lld})",
                  run.index == k_run_a ? "" : ", ", run.letter, double(r[0]), double(r[1]), double(r[2]), double(r[3]),
                  static_cast<long long>(run.view->shown_step));
    out += buf;
  }
  return out + "]}";
}

/// Run A's growth events and where they were drawn last frame (GrowthMarksProbe): {"growth":
/// {"events": [[step, moved], ...], "loss_plot": {"area": [x0, y0, x1, y1], "steps": [lo, hi],
/// "marks": N}, "slider": {"rect": [x0, y0, x1, y1], "track": [first, last], "ticks": N,
/// "frame_steps": [...]}}}: the growth-marks check finds each event's column from these.
nlohmann::json growth_sidecar(const UiState& ui) {
  const GrowthMarksProbe& p = ui.growth_probe;
  nlohmann::json events = nlohmann::json::array(), frames = nlohmann::json::array();
  for (const GrowthEvent& e : ui.run_a().growth)
    events.push_back({e.step, e.moved});
  for (const MetricsRow& f : ui.timelapse.frames)
    frames.push_back(f.step);
  const auto four = [](const float* r) { return nlohmann::json{r[0], r[1], r[2], r[3]}; };
  return {{"events", events},
          {"loss_plot", {{"area", four(p.plot_area)}, {"steps", {p.plot_lo, p.plot_hi}}, {"marks", p.plot_marks}}},
          {"slider",
           {{"rect", four(p.slider_rect)},
            {"track", {p.track[0], p.track[1]}},
            {"ticks", p.slider_ticks},
            {"frame_steps", frames}}}};
}

/// `extra` (a JSON object, or "") with the members of `more` (a JSON object, or "") added.
std::string join_json_objects(const std::string& extra, const std::string& more) {
  if (more.empty()) return extra;
  if (extra.empty()) return more;
  nlohmann::json j = nlohmann::json::parse(extra);
  const nlohmann::json add = nlohmann::json::parse(more); // outlives the loop (items() holds a reference)
  for (const auto& [key, value] : add.items())
    j[key] = value;
  return j.dump();
}

/// What a screenshot's JSON sidecar says about the window (both kinds of screenshot).
ScreenshotInfo screenshot_info(const UiState& ui) {
  ScreenshotInfo info;
  std::copy(ui.recon_rect, ui.recon_rect + 4, info.recon_rect);
  info.step = ui.run_a().shown_step;
  info.psnr_db = ui.run_a().history.empty() ? 0 : ui.run_a().history.back().psnr_db;
  info.fps = ui.fps;
  info.frame_ms = ui.frame_ms;
  info.steps_per_s = ui.run_a().last_steps_per_s;
  const std::string growth = nlohmann::json{{"growth", growth_sidecar(ui)}}.dump();
  info.extra_json = join_json_objects(ui.compare.open ? compare_sidecar_json(ui) : std::string(), growth);
  return info;
}

class TestHooks final : public FrameHooks {
public:
  TestHooks(TestOptions opts, std::unique_ptr<TestScript> script, ResizeTest resize)
      : m_opts(std::move(opts)), m_script(std::move(script)), m_resize(resize) {}

  std::optional<int> after_news(UiState& ui, TrainingSession& session) override {
    if (m_start < 0) m_start = m_last_stats = ui.now;
    if (m_opts.time_limit > 0 && time_limit_reached(ui, session)) return 0;
    return std::nullopt;
  }

  bool forces_frames() const override { return m_opts.scripted() && !(m_script && m_script->paced); }

  std::optional<int> before_draw(UiState& ui) override {
    if (!m_script) return std::nullopt;
    TestScript& s = *m_script;
    try {
      run_test_script(s, ui);
    } catch (const std::exception& e) {
      s.failure = std::string("test script: ") + e.what();
    }
    if (s.expecting_quit && ui.now - s.wait_started > 30) s.failure = "test script: the window did not close (expect_quit)";
    if (!s.failure.empty()) {
      std::fprintf(stderr, "error: %s\n", s.failure.c_str());
      return 1;
    }
    if (s.finished) return 0;
    return std::nullopt;
  }

  std::optional<int> after_render(GLFWwindow* window, UiState& ui, int fw, int fh) override {
    if (m_script && !m_script->screenshot.empty()) {
      const std::string err = write_screenshot(m_script->screenshot, fw, fh, screenshot_info(ui));
      if (!err.empty()) {
        std::fprintf(stderr, "error: screenshot %s: %s\n", m_script->screenshot.c_str(), err.c_str());
        return 1;
      }
      m_script->screenshot.clear();
    }
    if (m_opts.screenshot_run()) return screenshot_run(window, ui, fw, fh);
    return std::nullopt;
  }

  void end_of_turn(const UiState& ui) override {
    if (!m_opts.print_stats || ui.now - m_last_stats < 1.0) return;
    m_last_stats = ui.now;
    std::fprintf(stderr, "gui: %.1f fps, %.1f ms/frame, step %lld, %.2f steps/s\n", double(ui.fps), ui.frame_ms,
                 static_cast<long long>(ui.run_a().status.step), ui.run_a().status.steps_per_s);
  }

  int on_close() override {
    if (!m_script) return 0;
    const TestScript& s = *m_script;
    const bool quit_expected = s.expecting_quit || (s.next < s.lines.size() && s.lines[s.next] == "expect_quit");
    if (quit_expected) return 0;
    std::fprintf(stderr, "error: test script: the window closed at line %zu of %zu\n", s.next + 1, s.lines.size());
    return 1;
  }

private:
  /// --time-limit: pauses the run once it has trained that long, then (once the pause is
  /// published, with the step and the clock of the same moment) prints what it did.
  bool time_limit_reached(const UiState& ui, TrainingSession& session) {
    const SessionStatus& st = ui.run_a().status;
    if (!m_time_limit_asked && st.running && st.elapsed_s >= m_opts.time_limit) {
      session.post(run_command::SetRunning{false});
      m_time_limit_asked = true;
    }
    if (!m_time_limit_asked || st.running) return false;
    std::printf("time limit: %lld steps in %.3f s of training (%.2f steps/s)\n", static_cast<long long>(st.step),
                st.elapsed_s, st.elapsed_s > 0 ? double(st.step) / st.elapsed_s : 0.0);
    std::fflush(stdout);
    return true;
  }

  /// --screenshot: once the wanted step is on screen (after the resize test, if any), writes the
  /// framebuffer and its sidecar and ends the run; an error or a timeout ends it with 1.
  std::optional<int> screenshot_run(GLFWwindow* window, UiState& ui, int fw, int fh) {
    constexpr double k_timeout_s = 600;
    const bool ready = screenshot_ready(ui, m_opts.screenshot_after_steps) &&
                       step_resize_test(m_resize, window, ui, m_opts.screenshot, fw, fh);
    const bool failed =
        !ui.run_a().status.has_run && !ui.run_a().status.busy && ui.now - m_start > 2.0 &&
        std::any_of(ui.message_log.begin(), ui.message_log.end(), [](const UiMessage& m) { return m.error; });
    const bool timed_out = ui.now - m_start > k_timeout_s;
    if (!ready && !failed && !timed_out) return std::nullopt;
    ScreenshotInfo info = screenshot_info(ui);
    info.font_px = ImGui::GetFontSize();
    info.ui_scale = ui.scale.applied;
    const LayoutProbe& l = ui.layout;
    const float layout[8] = {l.controls_w, l.plots_h, l.canvas_w, l.canvas_h, l.status_y, l.status_h, l.window_w, l.window_h};
    std::copy(layout, layout + 8, info.layout);
    info.extra_json = join_json_objects(info.extra_json, resize_test_json(m_resize));
    std::string err = write_screenshot(m_opts.screenshot, fw, fh, info);
    if (err.empty() && (ui.settings.show_spectrum || ui.settings.show_neuron_maps))
      err = write_insight_sidecar(ui, m_opts.screenshot);
    if (!err.empty()) std::fprintf(stderr, "error: %s (%s)\n", err.c_str(), m_opts.screenshot.c_str());
    for (const auto& m : ui.message_log)
      if (m.error) std::fprintf(stderr, "error: %s\n", m.text.c_str());
    if (timed_out && !ready)
      std::fprintf(stderr, "error: screenshot: timed out waiting for step %lld\n",
                   static_cast<long long>(m_opts.screenshot_after_steps));
    return (err.empty() && ready) ? 0 : 1;
  }

  TestOptions m_opts;
  std::unique_ptr<TestScript> m_script;
  ResizeTest m_resize;
  double m_start = -1, m_last_stats = 0;
  bool m_time_limit_asked = false;
};

} // namespace

std::unique_ptr<FrameHooks> make_frame_hooks(const TestOptions& opts, std::string* error) {
  const bool any = opts.time_limit > 0 || !opts.screenshot.empty() || !opts.test_resize.empty() ||
                   !opts.test_script.empty() || opts.print_stats;
  if (!any) return std::make_unique<FrameHooks>();
  ResizeTest resize;
  if (!opts.test_resize.empty() && !parse_window_size(opts.test_resize, resize.tiny_w, resize.tiny_h)) {
    if (error) *error = "--test-resize: expected WxH, got '" + opts.test_resize + "'";
    return nullptr;
  }
  std::unique_ptr<TestScript> script;
  if (!opts.test_script.empty()) {
    script = std::make_unique<TestScript>();
    if (const std::string err = load_test_script(opts.test_script, *script); !err.empty()) {
      if (error) *error = err;
      return nullptr;
    }
  }
  return std::make_unique<TestHooks>(opts, std::move(script), resize);
}

} // namespace redraw
