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
///   (TrainingSession::set_min_preview_interval).
/// - While training, minor news (new curve points, an insight view's refresh) waits for the next
///   frame there is anyway (a preview, input, the heartbeat), so they share frames: each frame on
///   software GL costs the trainer ~30 ms of a core, however little changed.
/// - With no change at all a heartbeat frame comes every `heartbeat_seconds` (the status bar's
///   clock, notices expiring); between frames the loop sleeps in glfwWaitEventsTimeout, woken by
///   input or after `poll_seconds` to look for the training thread's news (cheap: no drawing).
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

} // namespace redraw
