#pragma once
/// A training set made from one image: sample i is pixel (i % width, i / width), its input the
/// pixel-centre coordinate in [-1, 1]^2 and its target the pixel value in [0, 1].
/// Full batch uses every pixel each step; a minibatch of B draws B indices with the counter-based
/// RNG (minibatch_index), identically on every backend.
#include "engine/hd_common.h"
#include "engine/image_buffer.h"
#include "engine/rng_math.h"

namespace redraw {

struct Dataset {
  Image image; ///< 1 or 3 channels, in [0, 1]

  int64_t size() const { return image.pixel_count(); }
  int32_t channels() const { return image.channels; }
  const float* targets() const { return image.pixels.data(); }

  /// Normalised coordinate of sample i.
  void coordinate(int64_t i, float& x, float& y) const {
    x = pixel_centre<float>(i % image.width, image.width);
    y = pixel_centre<float>(i / image.width, image.height);
  }
};

/// Row-major (n x 2) coordinates of the pixel centres of rows [y0, y1) of a w x h grid.
void grid_coordinates(int32_t w, int32_t h, int32_t y0, int32_t y1, float* out);

} // namespace redraw
