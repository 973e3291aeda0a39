#pragma once
/// The primitives view: when run A's model is `gaussians` or `sad`, the Neuron maps key opens a
/// small window of this view's controls in place of the maps ("Gaussians", "Sites"), and the
/// canvas outlines the Gaussians or sites over A's picture (engine/insight/primitive_view.h makes
/// the ellipses and, for sites, the owner map from a parameter snapshot, on the insight worker).
/// - A sad model's owner map is drawn under the outlines, at a chosen opacity: each pixel in the
///   colour of the site that weighs most there (or a distinct colour per site), the diagram's
///   edges darkened.
/// - Coloured by size (the ellipse's mean radius against the median), by colour (what it adds to
///   the picture) or by change (how far its floats moved since the previous snapshot: where the
///   gradient is at work).
/// - At most k_primitives_outlined ellipses are outlined a frame, the largest of those in view
///   first: 70,000 outlines would cost more than the picture. Zooming in brings the rest in.
/// - Hovering the picture names the Gaussian that weighs most under the pointer, or the site that
///   owns the pixel.
/// GUI thread only.
#include "ui/state/ui_state.h"

#include <imgui.h>

#include <cstdint>
#include <vector>

namespace redraw {

enum class PrimitiveColour : int32_t { Size = 0, Colour, Change };
constexpr int64_t k_primitives_outlined = 6000;

/// The owner map's pixels (map_w x map_h RGBA): mode 1 each site's colour, mode 2 a distinct
/// colour per site (a hue from its id), both with the diagram's edges (where the owner changes to
/// the right or below) darkened; transparent where no site is blended.
std::vector<uint8_t> owner_map_rgba(const PrimitiveView& v, int32_t mode);
/// True when the view belongs to `run`'s current line (what the canvas and the window show).
bool primitive_view_current(const UiState& ui, const RunView& run);
/// The window's body in the maps' place: the overlay switch, the colouring, the figures.
void draw_primitives_controls(UiState& ui, const RunView& run);
/// The outlines over `run`'s picture, whose top-left is at `origin` on screen at `zoom` screen
/// pixels per training pixel, clipped to [clip_min, clip_max].
void draw_primitives_overlay(UiState& ui, const RunView& run, ImDrawList* dl, ImVec2 origin, float zoom, ImVec2 clip_min,
                            ImVec2 clip_max);
/// The hovered Gaussian's or site's lines for the pixel tooltip at training-pixel (px, py); "" when none.
std::string primitive_tooltip(const UiState& ui, const RunView& run, double px, double py);

} // namespace redraw
