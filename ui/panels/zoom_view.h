#pragma once
/// The sharp zoom: zoomed past the training size, the live reconstruction's visible part is drawn
/// again by the network at the screen's resolution (one sample per framebuffer pixel), so the
/// user sees what the network has learnt between the training pixels instead of enlarged texels.
/// A scrubbed timelapse frame that keeps weights (exact or fp16) is drawn the same way from its
/// own weights; a picture-only frame stays its enlarged picture.
/// - The canvas computes the region on screen every frame (zoom_region, pure maths, tested by
///   hand in tests/ui/panels/test_ui_zoom.cpp) and draws the render over the preview while it shows
///   exactly that view.
/// - update_zoom asks the session for a render once the view has stood still for a moment; a
///   newer view cancels a render in flight. While training, the render is refreshed as the
///   network changes, taking at most about a fifth of the time (the training thread draws it).
/// - Cost follows the screen, not the image: at most one sample per framebuffer pixel of the pane,
///   and no more than k_zoom_max_samples.
#include "engine/frames/renderer.h"
#include "ui/state/zoom_state.h"

#include <cstdint>
#include <memory>

namespace redraw {

struct UiState;
struct RunView;
struct SessionSnapshot;
class TrainingSession;

constexpr int64_t k_zoom_max_samples = int64_t(1) << 21;

/// Whether a zoom shows a training pixel larger than one framebuffer pixel (a sharp render adds
/// detail). `zoom` is screen units per image pixel, `fb_scale` framebuffer pixels per unit.
bool zoomed_past_texels(float zoom, float fb_scale);

/// The part of a w x h picture visible in the pane [pane_x0, pane_x1] x [pane_y0, pane_y1] when
/// image point (center_x, center_y) sits at the pane's centre at `zoom` units per pixel: the
/// picture's rectangle clipped to the pane, in screen units and in image pixels, sampled once per
/// framebuffer pixel (fb_x, fb_y per unit) and scaled down to at most max_samples. Empty when the
/// picture is outside the pane.
ZoomRegion zoom_region(float center_x, float center_y, float zoom, float pane_x0, float pane_y0, float pane_x1,
                       float pane_y1, float fb_x, float fb_y, int32_t w, int32_t h, int64_t max_samples);

/// Takes a render that arrived (into ui.zoom_texture) when it answers the newest request for
/// `run`, the run the zoom draws (run A). Returns true when the screen changed.
bool absorb_zoom(UiState& ui, const RunView& run, SessionSnapshot& take);
/// Asks `run`'s session for, refreshes or cancels the render (every time the loop wakes, after
/// absorbing).
void update_zoom(UiState& ui, const RunView& run, TrainingSession& session);

} // namespace redraw
