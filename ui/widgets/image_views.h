#pragma once
/// Turns engine images into the RGBA8 pictures the canvas shows. Pure functions, no GL.
/// - to_rgba8: 1-channel grey or 3-channel RGB floats in [0, 1] -> RGBA8, row 0 at the top;
///   to_rgba8_rows the same for a band of rows, so a large picture converts a band at a time.
/// - error_heat_map: per-pixel mean |prediction - truth| over channels, times `gain`, through a
///   perceptual dark-to-bright colour map (black, purple, orange, pale yellow). The canvas picks
///   the gain from auto_error_full_scale unless the user sets it by hand.
#include "engine/images/image.h"

#include <array>
#include <cstdint>
#include <vector>

namespace redraw {

std::vector<uint8_t> to_rgba8(const Image& img);
/// Rows [y0, y0 + rows) of to_rgba8(img) into out (rows * width * 4 bytes).
void to_rgba8_rows(const Image& img, int32_t y0, int32_t rows, uint8_t* out);
/// Both images must have the same size and channel count (an empty vector otherwise).
std::vector<uint8_t> error_heat_map(const Image& prediction, const Image& truth, float gain);
/// The heat-map colour of a value in [0, 1] (clamped).
std::array<uint8_t, 3> heat_color(float v);
/// The q-quantile (q in [0, 1]) of the per-pixel error error_heat_map colours (mean |prediction -
/// truth| over channels), from at most ~65k evenly spaced pixels; -1 when the sizes differ.
float error_quantile(const Image& prediction, const Image& truth, float q);
/// The automatic heat-map scale: the error shown as the brightest colour, the 99th percentile of
/// the current error clamped to [1/255, 1] (so the map never saturates early in training and
/// never magnifies sub-8-bit noise late). The gain is its inverse; -1 when the sizes differ.
float auto_error_full_scale(const Image& prediction, const Image& truth);
/// Mean |prediction - truth| over every pixel and channel (-1 when the sizes differ).
double mean_abs_error(const Image& prediction, const Image& truth);

} // namespace redraw
