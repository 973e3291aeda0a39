#pragma once
/// A tiny built-in 5x7 bitmap font for labelling timelapse frames ("step 1234  PSNR 23.4 dB").
/// - Covers the digits, ". - : + % _", space, every lower-case letter, and A B I L N P R S T U.
///   Other characters are drawn as blanks.
/// - Text is drawn white on a darkened box, clipped to the image; works on 1- and 3-channel images.
#include "engine/images/image.h"
#include "engine/metrics.h"

#include <string>

namespace redraw {

/// Pixel size of one glyph cell (6 x 8 including spacing) at scale 1.
constexpr int32_t k_glyph_advance = 6;
constexpr int32_t k_glyph_height = 7;

/// Draws `text` with its top-left corner at (x, y), each font pixel `scale` x `scale` image pixels.
void draw_text(Image& img, int32_t x, int32_t y, const std::string& text, int32_t scale);
/// The label of a timelapse frame: "step 1234  PSNR 23.4 dB".
std::string frame_label(const MetricsRow& row);
/// Draws frame_label(row) in the top-left corner at a scale that suits the image size.
void draw_frame_label(Image& img, const MetricsRow& row);

} // namespace redraw
