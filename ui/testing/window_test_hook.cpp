#include "ui/testing/window_test_hook.h"

#include "ui/testing/screenshot.h"
#include "ui/state/settings_store.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>

namespace redraw {
namespace {
constexpr int32_t k_settle_frames = 8; ///< frames drawn at a new size before it is measured

nlohmann::json layout_json(const LayoutProbe& l) {
  return {{"controls_w", l.controls_w}, {"plots_h", l.plots_h},   {"canvas_w", l.canvas_w}, {"canvas_h", l.canvas_h},
          {"status_y", l.status_y},     {"status_h", l.status_h}, {"window_w", l.window_w}, {"window_h", l.window_h}};
}
} // namespace

bool parse_window_size(const std::string& text, int32_t& w, int32_t& h) {
  int a = 0, b = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%dx%d%c", &a, &b, &tail) != 2) return false;
  if (a < 1 || b < 1 || a > 16384 || b > 16384) return false;
  w = a;
  h = b;
  return true;
}

std::string sibling_path(const std::string& file, const std::string& suffix) {
  const std::filesystem::path p(file);
  return (p.parent_path() / (p.stem().string() + "-" + suffix + p.extension().string())).string();
}

bool step_resize_test(ResizeTest& t, GLFWwindow* window, const UiState& ui, const std::string& screenshot, int fb_w,
                      int fb_h) {
  if (t.tiny_w <= 0 || t.phase == 3) return true;
  int w = 0, h = 0;
  glfwGetWindowSize(window, &w, &h);
  switch (t.phase) {
  case 0:
    t.before = ui.layout;
    t.orig_w = w;
    t.orig_h = h;
    glfwSetWindowSize(window, t.tiny_w, t.tiny_h);
    t.phase = 1;
    t.frames = 0;
    return false;
  case 1:
    if ((w != t.tiny_w || h != t.tiny_h) && t.frames < 200) { // the X server may take a moment
      ++t.frames;
      return false;
    }
    if (++t.frames < k_settle_frames) return false;
    t.tiny = ui.layout;
    t.saved_while_tiny = settings_for_save(ui.settings, w, h);
    {
      ScreenshotInfo info;
      t.error = write_screenshot(sibling_path(screenshot, "tiny"), fb_w, fb_h, info);
    }
    glfwSetWindowSize(window, t.orig_w, t.orig_h);
    t.phase = 2;
    t.frames = 0;
    return false;
  case 2:
    if ((w != t.orig_w || h != t.orig_h) && t.frames < 200) {
      ++t.frames;
      return false;
    }
    if (++t.frames < k_settle_frames) return false;
    t.after = ui.layout;
    t.phase = 3;
    return true;
  default:
    return true;
  }
}

std::string resize_test_json(const ResizeTest& t) {
  if (t.tiny_w <= 0) return {};
  const Settings& s = t.saved_while_tiny;
  const nlohmann::json j = {{"layout_before", layout_json(t.before)},
                            {"layout_tiny", layout_json(t.tiny)},
                            {"layout_after", layout_json(t.after)},
                            {"tiny_size", {t.tiny_w, t.tiny_h}},
                            {"settings_saved_while_tiny",
                             {{"window_width", s.window_width},
                              {"window_height", s.window_height},
                              {"controls_width", s.controls_width},
                              {"plots_height", s.plots_height}}},
                            {"error", t.error}};
  return j.dump();
}

} // namespace redraw
