#pragma once
/// Separable image resampling with bounded memory, for any aspect ratio (1x1, 1xN, Nx1).
/// - Memory: the output, one intermediate of min(width * src.height, src.width * height) pixels
///   (the cheaper pass goes first), and filter taps proportional to the output's sides plus the
///   source's. No asserts: every size the caller's limits accept works.
/// - Edges clamp; colour with alpha (2 or 4 channels) is resampled premultiplied; results are
///   clamped to [0, 1] (cubic filters overshoot) and a NaN becomes 0.
/// - Rows are independent, so the result does not depend on the thread count.
#include "engine/images/image.h"

namespace redraw {

enum class ResampleFilter {
  Box,        ///< area average when shrinking (nearest neighbour when enlarging)
  CatmullRom, ///< bicubic, sharp
  Mitchell,   ///< bicubic B = C = 1/3, smooth
};

/// `src` resized to width x height (each >= 1; the caller checks its own limits).
Image resample(const Image& src, int32_t width, int32_t height, ResampleFilter filter);

/// A thumbnail of `file`: decoded shrunk where the format allows, alpha laid on white, and box-
/// filtered so its longer side is at most `side` (a smaller picture keeps its size). Throws what
/// load_image throws.
Image load_thumbnail(const std::filesystem::path& file, int32_t side);

} // namespace redraw
