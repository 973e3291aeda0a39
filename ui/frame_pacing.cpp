#include "ui/frame_pacing.h"

namespace redraw {

FramePacing frame_pacing_for(std::string_view gl_renderer) {
  FramePacing p;
  p.software_renderer =
      gl_renderer.find("llvmpipe") != std::string_view::npos || gl_renderer.find("softpipe") != std::string_view::npos;
  if (p.software_renderer) p.watch_seconds = 1.0 / 15.0;
  return p;
}

} // namespace redraw
