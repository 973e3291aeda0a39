/// The app's GLFW window and its callbacks: the rules are in ui/window/glfw_window.h.
#include "ui/window/glfw_window.h"

#include "ui/state/ui_state.h"

#define GLFW_INCLUDE_NONE // glad is the GL loader; GLFW must not pull in <GL/gl.h>
#include <GLFW/glfw3.h>
#include <glad/gl.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace redraw {
namespace {

/// The window's close button is a Quit like Ctrl+Q: it asks first when the run is unsaved.
void on_close(GLFWwindow* window) {
  auto* ui = static_cast<UiState*>(glfwGetWindowUserPointer(window));
  if (!ui) return;
  glfwSetWindowShouldClose(window, GLFW_FALSE);
  ui->push(intent::Quit{});
}

void on_drop(GLFWwindow* window, int count, const char** paths) {
  auto* ui = static_cast<UiState*>(glfwGetWindowUserPointer(window));
  if (ui && count > 0) ui->push(intent::OpenPath{paths[0]});
}

/// Notes that the user did something, so frames run at full rate for a moment. Installed before
/// ImGui's backend, which chains to these callbacks.
void note_input(GLFWwindow* window) {
  if (auto* ui = static_cast<UiState*>(glfwGetWindowUserPointer(window))) ui->last_input = glfwGetTime();
}
void install_input_callbacks(GLFWwindow* w) {
  glfwSetCursorPosCallback(w, [](GLFWwindow* win, double, double) { note_input(win); });
  glfwSetMouseButtonCallback(w, [](GLFWwindow* win, int, int, int) { note_input(win); });
  glfwSetScrollCallback(w, [](GLFWwindow* win, double, double) { note_input(win); });
  glfwSetKeyCallback(w, [](GLFWwindow* win, int key, int, int action, int) {
    note_input(win);
    auto* ui = static_cast<UiState*>(glfwGetWindowUserPointer(win));
    if (ui && action != GLFW_REPEAT && key >= 0 && key < 512) ui->keys_changed.push_back(key);
  });
  glfwSetCharCallback(w, [](GLFWwindow* win, unsigned int) { note_input(win); });
  glfwSetWindowFocusCallback(w, [](GLFWwindow* win, int) { note_input(win); });
  glfwSetCursorEnterCallback(w, [](GLFWwindow* win, int) { note_input(win); });
  glfwSetFramebufferSizeCallback(w, [](GLFWwindow* win, int, int) { note_input(win); });
  // Uncovered or restored: the window's contents must be drawn again (frames come only on change).
  glfwSetWindowRefreshCallback(w, [](GLFWwindow* win) { note_input(win); });
  // HiDPI: the window moved to a monitor with another content scale (ui/widgets/ui_scale.h).
  glfwSetWindowContentScaleCallback(w, [](GLFWwindow* win, float, float) {
    note_input(win);
    if (auto* ui = static_cast<UiState*>(glfwGetWindowUserPointer(win))) ui->scale.content = content_scale(win);
  });
}

void update_modifiers(ImGuiIO& io) {
  io.KeyCtrl = io.KeysDown[GLFW_KEY_LEFT_CONTROL] || io.KeysDown[GLFW_KEY_RIGHT_CONTROL];
  io.KeyShift = io.KeysDown[GLFW_KEY_LEFT_SHIFT] || io.KeysDown[GLFW_KEY_RIGHT_SHIFT];
  io.KeyAlt = io.KeysDown[GLFW_KEY_LEFT_ALT] || io.KeysDown[GLFW_KEY_RIGHT_ALT];
  io.KeySuper = io.KeysDown[GLFW_KEY_LEFT_SUPER] || io.KeysDown[GLFW_KEY_RIGHT_SUPER];
}

} // namespace

void on_glfw_error(int code, const char* what) { std::fprintf(stderr, "glfw error %d: %s\n", code, what); }

float content_scale(GLFWwindow* window) {
  float xs = 1, ys = 1;
  glfwGetWindowContentScale(window, &xs, &ys);
  int ww = 0, wh = 0, fw = 0, fh = 0;
  glfwGetWindowSize(window, &ww, &wh);
  glfwGetFramebufferSize(window, &fw, &fh);
  const float platform = ww > 0 && fw > ww ? float(fw) / float(ww) : 1.0f;
  return xs / platform;
}

/// ImGui 1.86 reads key state once per frame, so a key pressed and released between two frames
/// (a quick tap on a slow frame, or xdotool) would be lost, and so would Ctrl when it is let go
/// in the same gap as the key it modifies. Every key pressed or released since the last frame
/// is seen as down for this frame and released after it (what 1.87's input queue does).
std::vector<int> hold_quick_taps(UiState& ui) {
  ImGuiIO& io = ImGui::GetIO();
  std::vector<int> held;
  for (int k : ui.keys_changed)
    if (!io.KeysDown[k]) {
      io.KeysDown[k] = true;
      // A new press, even right after a tap of the same key held for the frame before: NewFrame has
      // not seen that key up in between, and would count this one as still held (not pressed).
      io.KeysDownDuration[k] = -1.0f;
      held.push_back(k);
    }
  ui.keys_changed.clear();
  if (!held.empty()) update_modifiers(io);
  return held;
}
void release_held(GLFWwindow* window, const std::vector<int>& held) {
  if (held.empty()) return;
  ImGuiIO& io = ImGui::GetIO();
  for (int k : held)
    io.KeysDown[k] = glfwGetKey(window, k) == GLFW_PRESS;
  update_modifiers(io);
}

GLFWwindow* open_window(UiState& ui) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  // The X11 class names the window after redraw.desktop (StartupWMClass), so docks and task
  // bars show its icon.
  glfwWindowHintString(GLFW_X11_CLASS_NAME, "redraw");
  glfwWindowHintString(GLFW_X11_INSTANCE_NAME, "redraw");
  // The remembered size, but never larger than the screen (a laptop after a big monitor).
  if (GLFWmonitor* monitor = glfwGetPrimaryMonitor())
    if (const GLFWvidmode* mode = glfwGetVideoMode(monitor)) {
      ui.settings.window_width = std::clamp(ui.settings.window_width, 640, std::max(640, mode->width));
      ui.settings.window_height = std::clamp(ui.settings.window_height, 480, std::max(480, mode->height));
    }
  GLFWwindow* window =
      glfwCreateWindow(ui.settings.window_width, ui.settings.window_height, "Redraw", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "error: cannot open a window with an OpenGL 3.3 core context\n");
    return nullptr;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);
  if (!gladLoadGL(glfwGetProcAddress)) {
    std::fprintf(stderr, "error: cannot load OpenGL functions (glad)\n");
    glfwDestroyWindow(window);
    return nullptr;
  }
  glfwSetWindowUserPointer(window, &ui);
  glfwSetDropCallback(window, on_drop);
  glfwSetWindowCloseCallback(window, on_close);
  install_input_callbacks(window); // before ImGui's backend, which chains to them
  return window;
}

} // namespace redraw
