#pragma once
/// The training picture made from decoded pixels: what prepare_training_image (image.h) does after
/// decoding a file, for a picture already in memory too (the Python module's arrays).
#include "engine/images/image.h"

namespace redraw {

/// Composites alpha, converts `raw` (1 to 4 channels, values in [0, 1]) to the colour mode of
/// `spec` and resizes it to w x h with the area filter; a binary picture is thresholded after the
/// resize, so thin strokes survive as grey before becoming black or white.
Image prepare_training_pixels(Image&& raw, const DataSpec& spec, int32_t w, int32_t h);

} // namespace redraw
