#include "ui/panels/zoom_view.h"

#include "ui/widgets/image_views.h"
#include "ui/session/training_session.h"
#include "ui/state/ui_state.h"

#include <algorithm>
#include <cmath>

namespace redraw {

namespace {
constexpr double k_still_seconds = 0.15;   ///< the view stands still this long before a render
constexpr double k_refresh_seconds = 1.0;  ///< least time between two refreshes while training
constexpr double k_refresh_share = 0.2;    ///< refreshes take at most about this share of the time
} // namespace

bool zoomed_past_texels(float zoom, float fb_scale) { return double(zoom) * double(fb_scale) > 1.0 + 1e-6; }

ZoomRegion zoom_region(float center_x, float center_y, float zoom, float pane_x0, float pane_y0, float pane_x1,
                       float pane_y1, float fb_x, float fb_y, int32_t w, int32_t h, int64_t max_samples) {
  ZoomRegion r;
  if (!(zoom > 0) || w < 1 || h < 1 || !(fb_x > 0) || !(fb_y > 0) || max_samples < 1) return r;
  const double cx = 0.5 * (double(pane_x0) + pane_x1), cy = 0.5 * (double(pane_y0) + pane_y1);
  const double ax = cx - double(center_x) * zoom, ay = cy - double(center_y) * zoom; // picture's top left
  const double sx0 = std::max<double>(pane_x0, ax), sy0 = std::max<double>(pane_y0, ay);
  const double sx1 = std::min<double>(pane_x1, ax + double(w) * zoom), sy1 = std::min<double>(pane_y1, ay + double(h) * zoom);
  if (!(sx1 > sx0) || !(sy1 > sy0)) return r;
  // Whole framebuffer pixels: round the rect outwards to the framebuffer grid, then back.
  const double fx0 = std::floor(sx0 * fb_x), fy0 = std::floor(sy0 * fb_y);
  const double fx1 = std::ceil(sx1 * fb_x), fy1 = std::ceil(sy1 * fb_y);
  double sw = fx1 - fx0, sh = fy1 - fy0;
  if (sw * sh > double(max_samples)) {
    const double k = std::sqrt(double(max_samples) / (sw * sh));
    sw = std::max(1.0, std::floor(sw * k));
    sh = std::max(1.0, std::floor(sh * k));
  }
  r.width = int32_t(sw);
  r.height = int32_t(sh);
  r.screen_x0 = float(fx0 / fb_x);
  r.screen_y0 = float(fy0 / fb_y);
  r.screen_x1 = float(fx1 / fb_x);
  r.screen_y1 = float(fy1 / fb_y);
  r.window.image_w = w;
  r.window.image_h = h;
  r.window.x0 = (double(r.screen_x0) - ax) / zoom;
  r.window.y0 = (double(r.screen_y0) - ay) / zoom;
  r.window.x1 = (double(r.screen_x1) - ax) / zoom;
  r.window.y1 = (double(r.screen_y1) - ay) / zoom;
  return r;
}

bool absorb_zoom(UiState& ui, const RunView& run, SessionSnapshot& take) {
  ZoomViewState& z = ui.zoom;
  if (z.run_id != run.run_id || z.trainer_id != run.status.trainer_id) { // a new run or line
    z.shown = ZoomRegion{};
    z.run_id = run.run_id;
    z.trainer_id = run.status.trainer_id;
  }
  if (!take.zoom || take.zoom_generation != z.generation || z.generation == 0) return false;
  const Image& img = *take.zoom;
  if (ui.zoom_texture) ui.zoom_texture->upload_image(img);
  z.shown = z.requested;
  z.shown_step = take.zoom_step;
  z.render_s = ui.now - z.requested_at;
  z.finished_at = ui.now;
  z.generation = 0;
  return true;
}

void update_zoom(UiState& ui, const RunView& run, TrainingSession& session) {
  ZoomViewState& z = ui.zoom;
  const bool want = z.enabled && !z.wanted.empty() && ui.zoom_texture && run.status.has_run;
  if (!want) {
    if (z.generation != 0) session.post(run_command::RenderZoom{RenderWindow{}, 0, 0, 0}); // cancels
    z.generation = 0;
    return;
  }
  if (z.generation != 0 && z.requested.same_view(z.wanted)) return; // on its way
  if (ui.now - z.wanted_since < k_still_seconds) return;             // still moving
  bool ask = !z.shown.same_view(z.wanted);
  if (!ask && z.wanted.frame_step < 0 && run.shown_step > z.shown_step) { // the network moved on: refresh now and then
    const double gap = std::max(k_refresh_seconds, z.render_s / k_refresh_share);
    ask = ui.now - z.finished_at >= gap;
  }
  if (!ask) return;
  z.generation = ++z.last_generation;
  z.requested = z.wanted;
  z.requested_at = ui.now;
  session.post(run_command::RenderZoom{z.wanted.window, z.wanted.width, z.wanted.height, z.generation, z.wanted.frame_step});
}

} // namespace redraw
