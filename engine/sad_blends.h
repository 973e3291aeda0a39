#pragma once
/// The `sad` encoding's blend at every pixel centre of a picture, with the lists built afresh
/// (engine/sad_lists.h) or given: which sites each pixel blends and with what weight, and the owner of each
/// pixel (the site of largest weight). The app's sites view draws its owner map from them
/// (engine/insight/primitive_view.h) and growth picks its idle and least used sites from them
/// (engine/sad_growth.h). The same bits on any thread count: each pixel's result is its own.
#include "engine/sad_lists.h"

#include <cstdint>
#include <vector>

namespace redraw {

/// The blends of a width x height picture's pixel centres (pixel_centre, row-major).
struct SadPixelBlends {
  int32_t width = 0, height = 0;
  std::vector<int32_t> ids;   ///< k_sad_k per pixel: the sites blended there, -1 past the list's end
  std::vector<float> weights; ///< k_sad_k per pixel: their weights (0 past the end), summing to 1
  std::vector<float> colour;  ///< k_sad_channels per pixel: the blend (before the colour head)
  /// Pixel p's list entry k.
  int32_t id(int64_t p, int32_t k) const { return ids[size_t(p * k_sad_k + k)]; }
  float weight(int64_t p, int32_t k) const { return weights[size_t(p * k_sad_k + k)]; }
};

/// The blends of the `p.count` sites in params (count x k_sad_floats) at every pixel centre of a
/// width x height picture (width, height >= 1), from lists built afresh for them.
SadPixelBlends sad_pixel_blends(const SadParams& p, const float* params, int32_t width, int32_t height);
/// The same from the given lists (a training step's, sad_check_lists: for p's lattice and count,
/// else BackendError) instead of lists built afresh.
SadPixelBlends sad_pixel_blends(const SadParams& p, const float* params, const SadLists& lists, int32_t width,
                                int32_t height);

/// Each pixel's owner: the site of largest weight (the first in its list's order on a tie), -1
/// where none is blended.
std::vector<int32_t> sad_owners(const SadPixelBlends& blends);

} // namespace redraw
