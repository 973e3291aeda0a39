#pragma once
/// What tests and benchmarks hang on the GUI's frame loop, behind one interface, so the loop that
/// users run reads like Dear ImGui's example: take news, decide, draw, swap, apply intents.
/// - TestOptions: the command line's test and benchmark switches (`redraw gui --screenshot`,
///   `--screenshot-after-steps`, `--test-resize`, `--test-script`, `--time-limit`) and the
///   environment's REDRAW_GUI_STATS (one line of frame statistics a second on stderr).
/// - FrameHooks: the calls the loop makes at fixed points of a turn. The base class does nothing
///   (a user's session); make_frame_hooks() builds the test hooks when any switch is set.
/// - A hook that returns an exit code ends the loop with it: a screenshot written (0) or not (1),
///   a test script that passed or failed, the time limit reached.
struct GLFWwindow;

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace redraw {

struct UiState;
class TrainingSession;

struct TestOptions {
  double time_limit = 0;              ///< > 0: after this many seconds of training (the Trainer's clock),
                                      ///< pause, print "time limit: N steps in T s of training (R steps/s)"
                                      ///< on stdout and quit (benchmarks: bench/gui_throughput_bench.sh)
  std::string screenshot;             ///< write the framebuffer here as PNG, then exit; FILE.json
                                      ///< beside it says where the reconstruction is drawn (x, y, w, h)
  int64_t screenshot_after_steps = 0; ///< ... once training has done at least this many steps
  std::string test_resize;            ///< with --screenshot: "WxH", shrink and restore first (window_test_hook.h)
  std::string test_script;            ///< scripted input (test_script.h); exit 0 when it passes
  bool print_stats = false;           ///< REDRAW_GUI_STATS: one line of frame statistics a second
  /// A one-shot screenshot run: it trains at once, stops at the step, and neither reads nor
  /// writes the user's files (window layout, settings, autosave).
  bool screenshot_run() const { return !screenshot.empty(); }
  /// Input comes from a script or nobody: no pointer hovering where the display left it.
  bool scripted() const { return !screenshot.empty() || !test_script.empty(); }
};

class FrameHooks {
public:
  virtual ~FrameHooks() = default;
  /// Each turn, after the session's news is taken and before the frame is decided.
  virtual std::optional<int> after_news(UiState&, TrainingSession&) { return std::nullopt; }
  /// Draw every wake-up, whatever the pacing rule says.
  virtual bool forces_frames() const { return false; }
  /// A frame will be drawn: before ImGui's new frame (a test script acts here).
  virtual std::optional<int> before_draw(UiState&) { return std::nullopt; }
  /// The frame is rendered, before the swap: the framebuffer (fb_w x fb_h) can be read.
  virtual std::optional<int> after_render(GLFWwindow*, UiState&, int /*fb_w*/, int /*fb_h*/) { return std::nullopt; }
  /// The end of each turn (ui.frame_ms holds the frame time).
  virtual void end_of_turn(const UiState&) {}
  /// The window was closed: the exit code.
  virtual int on_close() { return 0; }
};

/// The hooks for `opts`: the test hooks when any switch is set, the do-nothing base otherwise.
/// Null and `error` set when an option is malformed (a bad --test-resize, an unreadable script).
std::unique_ptr<FrameHooks> make_frame_hooks(const TestOptions& opts, std::string* error);

} // namespace redraw
