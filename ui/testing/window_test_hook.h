#pragma once
/// `redraw gui --screenshot FILE --test-resize WxH`: the layout test of a shrunk window.
/// Once the screenshot would be taken, the hook records the layout, shrinks the window to W x H,
/// draws a few frames there, writes FILE's twin `<FILE stem>-tiny.png` and notes what the settings
/// would save at that size, grows the window back to where it was, draws a few frames, and then
/// lets the screenshot be taken. The sidecar FILE.json gets "layout_before", "layout_tiny",
/// "layout_after" and "settings_saved_while_tiny" (see resize_test_json).
#include "ui/state/ui_state.h"

#include <string>

struct GLFWwindow;

namespace redraw {

struct ResizeTest {
  int32_t tiny_w = 0, tiny_h = 0; ///< 0: no test
  int32_t phase = 0;              ///< 0 not started, 1 shrinking, 2 growing back, 3 done
  int32_t frames = 0;             ///< frames drawn in this phase
  int32_t orig_w = 0, orig_h = 0;
  LayoutProbe before, tiny, after;
  Settings saved_while_tiny;
  std::string error; ///< the tiny screenshot could not be written
};

/// Parses "WxH" (each 1..16384); false on anything else.
bool parse_window_size(const std::string& text, int32_t& w, int32_t& h);
/// Advances the test after a frame was drawn (before the buffers are swapped); `fb_w` x `fb_h`
/// is the framebuffer. Returns true when the test is done (or there is none) and the screenshot
/// may be taken.
bool step_resize_test(ResizeTest& t, GLFWwindow* window, const UiState& ui, const std::string& screenshot, int fb_w,
                      int fb_h);
/// The sidecar's part of the test, a JSON object's members ("" when there was no test).
std::string resize_test_json(const ResizeTest& t);
/// `file` with "-" + `suffix` before its extension (shot.png -> shot-tiny.png).
std::string sibling_path(const std::string& file, const std::string& suffix);

} // namespace redraw
