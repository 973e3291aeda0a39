#pragma once
/// When the window draws a frame. Pure logic, no GL and no GLFW (the caller passes
/// glGetString(GL_RENDERER) once, then the clock and what happened, every time the loop wakes).
/// - A frame is drawn only when something changed: input (then at up to 60 fps for 0.5 s, so
///   hover, drags and ImGui's own settling frames follow the pointer), new data (a preview, metrics
///   rows, a message, an insight result), an animation (timelapse playback, an export's progress),
///   or a test script / pending command (every wake-up).
/// - While training without input, changes are drawn at most `watch_seconds` apart: 30 fps on a
///   hardware renderer, 10 on software GL (Mesa's llvmpipe or softpipe, e.g. under Xvfb), where a
///   frame is rasterised on the CPU and every frame is taken from the trainer's cores. There,
///   drawing also takes at most 5% of the time (`draw_share`: a 30 ms frame, at most one every
///   0.6 s). The session makes previews no faster than frames show them
///   (run_command::SetMinPreviewInterval).
/// - While training, minor news (new curve points, an insight view's refresh) waits for the next
///   frame there is anyway (a preview, input, the heartbeat), so they share frames: each frame on
///   software GL costs the trainer ~30 ms of a core, however little changed.
/// - With no change at all a heartbeat frame comes every `heartbeat_seconds` (the status bar's
///   clock, notices expiring); between frames the loop sleeps in glfwWaitEventsTimeout, woken by
///   input or after `poll_seconds` to look for the training thread's news (cheap: no drawing).
#include <atomic>
#include <cstdint>
#include <string_view>

namespace redraw {

/// Frame intervals in seconds (frame_pacing_for gives the rule's values).
struct FramePacing {
  bool software_renderer = false;
  double interact_seconds = 1.0 / 60.0; ///< mouse, keys or an active widget in the last `input_hold_seconds`
  double input_hold_seconds = 0.5;
  double watch_seconds = 1.0 / 30.0;  ///< least time between two frames that show new data without input
  /// Software GL only (0 = no limit): while training untouched, drawing takes at most this share of
  /// the time, so the least gap between frames is also the recent frame time / draw_share.
  double draw_share = 0;
  double heartbeat_seconds = 1.0;     ///< most time between two frames
  double poll_seconds = 1.0 / 30.0;   ///< how often the loop wakes to look for new data while training
  double idle_poll_seconds = 0.25;    ///< the same, paused (loading and saving still report back)
};

/// The pacing for a GL_RENDERER string (null or empty counts as hardware).
FramePacing frame_pacing_for(std::string_view gl_renderer);

/// What the loop knows when it wakes (seconds on one clock, e.g. glfwGetTime()).
struct FrameEvents {
  double now = 0;
  double last_frame = -1e9; ///< when the last frame was drawn
  double last_input = -1e9; ///< the last mouse, key, scroll, focus or resize event
  bool item_active = false; ///< a widget is held (a drag, a text field being edited)
  bool changed = false;     ///< new data since the last frame (undrawn: it stays true until drawn)
  bool minor_change = false; ///< new data that can wait while training (metrics rows, insight results):
                             ///< drawn with the next frame there is anyway, at the latest the heartbeat
  bool animating = false;   ///< something moves on its own (timelapse playback, export progress)
  bool training = false;    ///< training, loading, saving or exporting
  double frame_seconds = 0; ///< what a frame has recently taken on the UI thread (wall time, swap included)
  bool forced = false;      ///< a test script, a screenshot run or a pending command: every wake-up
};

/// The decision: draw now or not, and how long to sleep before looking again (> 0).
struct FrameDecision {
  bool draw = false;
  double wait_seconds = 0;
};

/// The least time between two frames while training untouched: watch_seconds, or longer on
/// software GL when frames are slow (frame_seconds / draw_share). The session's previews follow it.
double watch_gap(const FramePacing& p, double frame_seconds);

/// Previews take at most this share of the training thread's time: on the CPU a preview is a
/// forward pass over the picture's pixels (400 x 328: about three `instant` steps), so one every
/// 10 steps took about a quarter of the training time.
constexpr double k_preview_share = 0.15;

/// The least time from the end of a preview that took `render_seconds` to the start of the next,
/// so that previews take at most `share` of the time: render_seconds * (1 - share) / share.
double preview_cost_gap(double render_seconds, double share = k_preview_share);

/// The rule in the header comment, for one wake-up.
FrameDecision decide_frame(const FramePacing& p, const FrameEvents& e);

/// A preview's size limit in pixels (0: no limit on that axis).
struct PreviewSize {
  int32_t w = 0, h = 0;
  bool operator==(const PreviewSize&) const = default;
};

/// When and how large a training session renders its previews (TrainingSession, ui/session/run_commands.h's
/// SetPreview* commands): while training, every `every` steps, no faster than frames show them
/// (the minimum interval) and spaced by their own cost (preview_cost_gap); at the size of the pane
/// that shows them; with a host copy when one is asked for. Training thread, except set_limit.
class PreviewPacing {
public:
  /// A preview every `steps` training steps (at least 1).
  void set_every(int32_t steps);
  /// At least `seconds` apart while training (clamped to 0..10).
  void set_min_interval(double seconds);
  /// The share of the time previews may take (1 or more: no limit from their cost); the gap
  /// their cost asked for starts over.
  void set_share(double share);
  /// Whether training step `step` gets a preview, `since_last` seconds after the last one.
  bool due(int64_t step, double since_last) const;

  /// Any thread, taking effect at once: previews no larger than `limit`.
  void set_limit(PreviewSize limit);
  /// The limit now.
  PreviewSize limit() const { return PreviewSize{m_max_w.load(), m_max_h.load()}; }
  /// The limit as its command runs (after set_limit): a new preview is wanted unless the last
  /// one was made at this limit.
  void limit_posted(PreviewSize limit);
  /// A host copy of the picture is wanted (the next preview makes one).
  void want_host() { m_host_wanted = true; }
  bool host_wanted() const { return m_host_wanted; }
  /// A preview is about to be made: the limit it is made at (remembered for limit_posted).
  PreviewSize begin();
  /// The preview took `render_seconds`: the next one while training waits for its share of the
  /// time, and a host copy asked for was served.
  void rendered(double render_seconds);

private:
  int32_t m_every = 10;
  double m_min_interval = 1.0 / 30.0;
  double m_share = k_preview_share;
  double m_cost_gap = 0; ///< the least gap after the last preview for its cost
  std::atomic<int32_t> m_max_w{0}, m_max_h{0};
  PreviewSize m_made{-1, -1}; ///< the limit of the last preview
  bool m_host_wanted = false;
};

} // namespace redraw
