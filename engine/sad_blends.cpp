/// The sad blend at every pixel centre: the rules are in engine/sad_blends.h.
#include "engine/sad_blends.h"

#include "engine/errors.h"

#include <new>
#include <string>

namespace redraw {

SadPixelBlends sad_pixel_blends(const SadParams& p, const float* params, int32_t width, int32_t height) {
  SadLists lists;
  sad_build_lists(p, params, lists);
  return sad_pixel_blends(p, params, lists, width, height);
}

SadPixelBlends sad_pixel_blends(const SadParams& p, const float* params, const SadLists& lists, int32_t width,
                                int32_t height) {
  sad_check_lists(p, lists);
  SadPixelBlends b;
  b.width = width;
  b.height = height;
  const int64_t n = int64_t(width) * height;
  try {
    b.ids.assign(size_t(n) * k_sad_k, -1);
    b.weights.assign(size_t(n) * k_sad_k, 0.0f);
    b.colour.assign(size_t(n) * k_sad_channels, 0.0f);
  } catch (const std::bad_alloc&) {
    throw BackendError("out of memory for the sites' blends of a " + std::to_string(width) + " x " +
                       std::to_string(height) + " picture");
  }
  const std::vector<SadShape<float>> shapes = sad_shapes(p, params);
#pragma omp parallel for schedule(static)
  for (int32_t j = 0; j < height; ++j)
    for (int32_t i = 0; i < width; ++i) {
      const size_t at = size_t(j) * size_t(width) + size_t(i);
      sad_point(shapes, params, lists, pixel_centre<float>(i, width), pixel_centre<float>(j, height),
                b.ids.data() + at * k_sad_k, b.weights.data() + at * k_sad_k, b.colour.data() + at * k_sad_channels);
    }
  return b;
}

std::vector<int32_t> sad_owners(const SadPixelBlends& b) {
  const int64_t n = int64_t(b.width) * b.height;
  std::vector<int32_t> owner(size_t(n), -1);
  for (int64_t q = 0; q < n; ++q) {
    int32_t best = -1;
    for (int32_t k = 0; k < k_sad_k && b.id(q, k) >= 0; ++k)
      if (best < 0 || b.weight(q, k) > b.weight(q, best)) best = k;
    owner[size_t(q)] = best < 0 ? -1 : b.id(q, best);
  }
  return owner;
}

} // namespace redraw
