#pragma once
/// The app's GLFW window: opening it with an OpenGL 3.3 core context, and the callbacks that turn
/// the platform's events into app state (ui/state/ui_state.h), installed before ImGui's GLFW
/// backend, which chains to them:
/// - the close button and a dropped file become intents (a Quit, which asks first when the run is
///   unsaved; an OpenPath);
/// - any input notes UiState::last_input, so frames run at full rate for a moment
///   (ui/session/frame_pacing.h), and a key's press or release is kept in UiState::keys_changed
///   for hold_quick_taps;
/// - a move to a monitor with another content scale sets UiState::scale.content (ui/widgets/ui_scale.h).
/// GLFW's thread only (the GUI thread), with GLFW initialised.
#include <vector>

struct GLFWwindow;

namespace redraw {

struct UiState;

/// GLFW's error callback: the error on stderr.
void on_glfw_error(int code, const char* what);

/// The window with an OpenGL 3.3 core context, current and its functions loaded, its size the
/// remembered one clamped to the screen (written back to ui.settings) and its callbacks installed
/// (they reach `ui` through the window's user pointer, so `ui` must outlive it); null (said on
/// stderr) when that cannot be had.
GLFWwindow* open_window(UiState& ui);

/// The monitor's content scale the UI itself must apply: GLFW's, less the part the platform already
/// applies by giving the window a larger framebuffer (macOS, some Wayland set-ups). X11: GLFW's.
float content_scale(GLFWwindow* window);

/// Before ImGui's NewFrame: every key pressed or released since the last frame (ui.keys_changed,
/// cleared) held down for this frame; returns the keys it held. ImGui 1.86 reads key state once
/// per frame, so a quick tap between two frames would otherwise be lost.
std::vector<int> hold_quick_taps(UiState& ui);
/// After the frame is drawn: the keys hold_quick_taps held take the state GLFW reports now.
void release_held(GLFWwindow* window, const std::vector<int>& held);

} // namespace redraw
