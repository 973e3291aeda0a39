#pragma once
/// How often the window redraws, decided once at startup from the OpenGL renderer's name.
/// Pure logic, no GL (the caller passes glGetString(GL_RENDERER)).
#include <string_view>

namespace redraw {

/// Frame intervals in seconds. The rule (frame_pacing_for):
/// - hardware renderer: 60 fps while the user interacts, 30 fps while they watch training;
/// - software renderer (Mesa's llvmpipe or softpipe, e.g. under Xvfb): a frame costs 20-30 ms of
///   CPU there and takes it from the trainer, so watching stays at 15 fps (60 while interacting).
/// Idle (no training, no input) the loop sleeps until an event, whatever the renderer.
struct FramePacing {
  bool software_renderer = false;
  double interact_seconds = 1.0 / 60.0; ///< mouse, keys or an active widget in the last 0.5 s
  double watch_seconds = 1.0 / 30.0;    ///< training (or exporting) with no input
};

/// The pacing for a GL_RENDERER string (null or empty counts as hardware).
FramePacing frame_pacing_for(std::string_view gl_renderer);

} // namespace redraw
