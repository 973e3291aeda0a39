#pragma once
/// The Gaussians view: when run A's model is `gaussians`, the Neuron maps window shows this view's
/// controls in place of the maps, and the canvas outlines the Gaussians over A's picture
/// (engine/insight/gaussian_view.h makes the ellipses from a parameter snapshot).
/// - Coloured by size (the ellipse's mean radius against the median), by colour (what it adds to
///   the picture) or by change (how far its floats moved since the previous snapshot: where the
///   gradient is at work).
/// - At most k_gaussians_outlined ellipses are outlined a frame, the largest of those in view
///   first: 70,000 outlines would cost more than the picture. Zooming in brings the rest in.
/// - Hovering the picture names the Gaussian that weighs most under the pointer.
/// GUI thread only.
#include "ui/state/ui_state.h"

#include <imgui.h>

namespace redraw {

enum class GaussianColour : int32_t { Size = 0, Colour, Change };
constexpr int64_t k_gaussians_outlined = 6000;

/// A parameter snapshot of `run`'s gaussians model arrived: the view is remade from it (the
/// earlier view of the same run gives the change). The Gaussians view follows run A.
void update_gaussian_view(UiState& ui, const RunView& run, const NetworkSnapshot& net);
/// True when the view belongs to `run`'s current line (what the canvas and the window show).
bool gaussian_view_current(const UiState& ui, const RunView& run);
/// The window's body in the maps' place: the overlay switch, the colouring, the figures.
void draw_gaussians_controls(UiState& ui, const RunView& run);
/// The outlines over `run`'s picture, whose top-left is at `origin` on screen at `zoom` screen
/// pixels per training pixel, clipped to [clip_min, clip_max].
void draw_gaussians_overlay(UiState& ui, const RunView& run, ImDrawList* dl, ImVec2 origin, float zoom, ImVec2 clip_min,
                            ImVec2 clip_max);
/// The hovered Gaussian's lines for the pixel tooltip at training-pixel (px, py); "" when none.
std::string gaussian_tooltip(const UiState& ui, const RunView& run, double px, double py);

} // namespace redraw
