#pragma once
/// Turns engine images into the RGBA8 pictures the canvas shows. Pure functions, no GL.
/// - to_rgba8: 1-channel grey or 3-channel RGB floats in [0, 1] -> RGBA8, row 0 at the top.
/// - error_heat_map: per-pixel mean |prediction - truth| over channels, times `gain`, through a
///   perceptual dark-to-bright colour map (black, purple, orange, pale yellow).
#include "engine/image.h"

#include <array>
#include <cstdint>
#include <vector>

namespace redraw {

std::vector<uint8_t> to_rgba8(const Image& img);
/// Both images must have the same size and channel count (an empty vector otherwise).
std::vector<uint8_t> error_heat_map(const Image& prediction, const Image& truth, float gain);
/// The heat-map colour of a value in [0, 1] (clamped).
std::array<uint8_t, 3> heat_color(float v);
/// Mean |prediction - truth| over every pixel and channel (-1 when the sizes differ).
double mean_abs_error(const Image& prediction, const Image& truth);

} // namespace redraw
