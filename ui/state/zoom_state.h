#pragma once
/// The sharp zoom's state in UiState (ui/panels/zoom_view.h draws and asks for it): the region
/// of the picture on screen and the render that fills it. Plain data.
#include "engine/frames/renderer.h"

#include <cstdint>

namespace redraw {

/// A part of the picture on screen and the render that fills it.
struct ZoomRegion {
  RenderWindow window;                                     ///< image pixels shown
  int32_t width = 0, height = 0;                           ///< samples (framebuffer pixels, capped)
  float screen_x0 = 0, screen_y0 = 0, screen_x1 = 0, screen_y1 = 0; ///< where it is drawn (ImGui units)
  int64_t frame_step = -1; ///< the scrubbed timelapse frame drawn (its step); -1: the live network
  bool empty() const { return width <= 0 || height <= 0; }
  bool same_view(const ZoomRegion& o) const {
    return width == o.width && height == o.height && window.x0 == o.window.x0 && window.y0 == o.window.y0 &&
           window.x1 == o.window.x1 && window.y1 == o.window.y1 && window.image_w == o.window.image_w &&
           window.image_h == o.window.image_h && screen_x0 == o.screen_x0 && screen_y0 == o.screen_y0 &&
           screen_x1 == o.screen_x1 && screen_y1 == o.screen_y1 && frame_step == o.frame_step;
  }
};

/// The GUI's side of the sharp zoom (in UiState).
struct ZoomViewState {
  bool enabled = true;       ///< the toolbar's "sharp zoom"
  ZoomRegion wanted;         ///< the reconstruction's (or scrubbed frame's) view past the texels (or empty)
  double wanted_since = 0;   ///< when `wanted` last changed
  ZoomRegion requested;      ///< the view of the render asked for last
  uint64_t generation = 0;   ///< of that request (0: none in flight)
  uint64_t last_generation = 0;
  double requested_at = 0;
  ZoomRegion shown;          ///< the view the texture holds (empty: nothing to draw)
  int64_t shown_step = -1;   ///< the step of the weights it shows
  double finished_at = 0;    ///< when it arrived
  double render_s = 0;       ///< how long it took
  uint64_t run_id = 0, trainer_id = 0; ///< the run it belongs to
  /// Whether the canvas should draw the render over the preview now.
  bool sharp() const { return enabled && !wanted.empty() && shown.same_view(wanted); }
};

} // namespace redraw
